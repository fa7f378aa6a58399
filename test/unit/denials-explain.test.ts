import { describe, expect, it } from 'vitest';
import { findDenials } from '../../src/denials/explain.ts';
import { withFlagRule } from '../../src/denials/fix.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import type { PathKind } from '../../src/host/types.ts';
import { resolveAccess } from '../../src/policy/access.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const CWD = '/home/user/project';

function context(
  profile = 'workspace',
  flags: { read?: string[]; write?: string[]; deny?: string[]; network?: 'on' | 'off' } = {},
  files: Record<string, PathKind> = {},
) {
  const host = syntheticHost('linux', { files });
  const policy = resolvePolicy(
    loadProfile(profile, CWD),
    { read: flags.read ?? [], write: flags.write ?? [], deny: flags.deny ?? [], network: flags.network },
    host,
    CWD,
  );
  return {
    policy,
    home: host.home,
    networkFromFlag: flags.network !== undefined,
    privateDirs: ['/tmp'],
    kindOf: (p: string) => host.kind(p),
  };
}

describe('findDenials', () => {
  it('blames a write outside the workspace on the read-only rule and names the flag', () => {
    const ctx = context('workspace', {}, { '/home/user/.cache': 'dir', '/home/user/.cache/npm': 'dir' });
    const r = findDenials("Error: EROFS: read-only file system, mkdir '/home/user/.cache/npm/_cacache'", ctx);
    expect(r).toEqual({
      omitted: 0,
      denials: [
        {
          kind: 'denial',
          message:
            "denied: create of ~/.cache/npm/_cacache (profile workspace (filesystem[0]): read /) — allow with --write ~/.cache/npm (its directory: a path that does not exist yet cannot be granted alone) (inferred from the command's output)",
          operation: 'create',
          path: '/home/user/.cache/npm/_cacache',
          rule: 'profile workspace (filesystem[0]): read /',
          fix: '--write ~/.cache/npm',
          certainty: 'certain',
        },
      ],
    });
    // The suggested flag really allows it.
    expect(
      resolveAccess(
        withFlagRule(ctx.policy.rules, '/home/user/.cache/npm', 'write'),
        '/home/user/.cache/npm/_cacache',
      ),
    ).toBe('write');
  });

  it('blames a read of a denied credential file on the profile rule', () => {
    const ctx = context('workspace', {}, { '/home/user/.ssh': 'dir', '/home/user/.ssh/id_rsa': 'file' });
    const r = findDenials('cat: /home/user/.ssh/id_rsa: Permission denied', ctx);
    expect(r.denials).toEqual([
      {
        kind: 'denial',
        message:
          "denied: read of ~/.ssh/id_rsa (profile workspace (filesystem[2]): none ~/.ssh) — no flag suggested: ~/.ssh/id_rsa: it is a credential store or a denied path (~/.ssh) (inferred from the command's output)",
        operation: 'read',
        path: '/home/user/.ssh/id_rsa',
        rule: 'profile workspace (filesystem[2]): none ~/.ssh',
        fix: undefined,
        certainty: 'certain',
      },
    ]);
  });

  it('suggests no flag for a credential store the profile denies', () => {
    const ctx = context('workspace', {}, { '/home/user/.ssh': 'dir' });
    const [d] = findDenials("ls: cannot open directory '/home/user/.ssh': Permission denied", ctx).denials;
    expect(d?.fix).toBeUndefined();
    expect(d?.message).toContain('no flag suggested');
    expect(d?.message).not.toContain('--read');
  });

  it('names the --deny flag behind a denial, never suggesting to drop it', () => {
    const ctx = context('workspace', { deny: ['secrets'] }, { [`${CWD}/secrets`]: 'dir' });
    const [d] = findDenials(`cat: ${CWD}/secrets/a: Permission denied`, ctx).denials;
    expect([
      d?.rule,
      d?.fix,
      d?.message.endsWith("your --deny ~/project/secrets keeps it out (inferred from the command's output)"),
    ]).toEqual(['flag --deny: none ~/project/secrets', undefined, true]);
  });

  it('never suggests a flag for a protected path', () => {
    const ctx = context('workspace', {}, { [`${CWD}/.git`]: 'dir' });
    const [d] = findDenials(
      `fatal: Unable to create '${CWD}/.git/index.lock': Read-only file system.`,
      ctx,
    ).denials;
    expect(d).toEqual({
      kind: 'denial',
      message:
        "denied: create of ~/project/.git/index.lock (protected (git metadata): read ~/project/.git) — no flag suggested: ~/project/.git: it is inside git metadata or cordon configuration, which stays read-only (inferred from the command's output)",
      operation: 'create',
      path: `${CWD}/.git/index.lock`,
      rule: 'protected (git metadata): read ~/project/.git',
      fix: undefined,
      certainty: 'certain',
    });
  });

  it('never blames the sandbox for a failure the policy allows (a 0400 file in the writable cwd)', () => {
    const ctx = context('workspace', {}, { [`${CWD}/ro.txt`]: 'file' });
    expect(
      findDenials('sh: 1: cannot create ro.txt: Permission denied\nbash: ./ro.txt: Permission denied', ctx),
    ).toEqual({
      denials: [],
      omitted: 0,
    });
  });

  it('ignores the private /tmp and missing paths', () => {
    const ctx = context();
    expect(
      findDenials('cat: /tmp/x: Permission denied\ncat: /nonexistent/file: No such file or directory', ctx)
        .denials,
    ).toEqual([]);
  });

  it('reports a hidden path (ENOENT for something that exists on the host) as possible', () => {
    const ctx = context('strict', {}, { '/home/user/notes.txt': 'file' });
    const [d] = findDenials('cat: /home/user/notes.txt: No such file or directory', ctx).denials;
    expect([d?.operation, d?.certainty, d?.fix]).toEqual(['read', 'possible', '--read ~/notes.txt']);
  });

  it('marks an EACCES without a write word on a read-only path as possible', () => {
    const ctx = context('workspace', {}, { '/srv/data/hosts': 'file', '/etc/hosts': 'file' });
    const [d] = findDenials('bash: /srv/data/hosts: Permission denied', ctx).denials;
    expect([d?.operation, d?.certainty, d?.fix]).toEqual(['write', 'possible', '--write /srv/data/hosts']);
    // A system file is never suggested.
    const [e] = findDenials('bash: /etc/hosts: Permission denied', ctx).denials;
    expect([e?.operation, e?.fix]).toEqual(['write', undefined]);
  });

  it('reports network failures only when the network is off, with --net', () => {
    const lines = [
      'curl: (6) Could not resolve host: example.com',
      'curl: (6) Could not resolve host: example.com',
      'Error: getaddrinfo ENOTFOUND api.github.com',
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      'Network is unreachable',
    ].join('\n');
    const off = findDenials(lines, context());
    expect(off.denials.map((d) => [d.operation, d.path, d.certainty, d.fix, d.rule])).toEqual([
      ['network', 'example.com', 'certain', '--net', 'network off: profile workspace'],
      ['network', 'api.github.com', 'possible', '--net', 'network off: profile workspace'],
    ]);
    expect(off.denials[0]?.message).toBe(
      'denied: network access to example.com (network off: profile workspace) — allow with --net',
    );
    expect(findDenials(lines, context('workspace', { network: 'on' })).denials).toEqual([]);
    const flagged = findDenials('Network is unreachable', context('workspace', { network: 'off' }));
    expect(flagged.denials[0]?.rule).toBe('network off: flag --no-net');
  });

  it('deduplicates and caps', () => {
    const lines = Array.from(
      { length: 30 },
      (_, i) => `touch: cannot touch '/etc/f${i % 25}': Read-only file system`,
    );
    const r = findDenials(lines.join('\n'), context(), 20);
    expect([r.denials.length, r.omitted]).toEqual([20, 5]);
  });

  it('quotes a path a shell would split', () => {
    const ctx = context('workspace', {}, { '/home/user/My Docs': 'dir', '/home/user/My Docs/a.txt': 'file' });
    const [d] = findDenials(
      "cp: cannot create regular file '/home/user/My Docs/a.txt': Read-only file system",
      ctx,
    ).denials;
    expect(d?.fix).toBe("--write '~/My Docs/a.txt'");
  });

  it('reports a create under a directory the sandbox hides as possible', () => {
    const ctx = context('strict', {}, { '/home/user/work': 'dir', '/home/user/.cache': 'dir' });
    const [d] = findDenials(
      "touch: cannot touch '/home/user/work/x': No such file or directory",
      ctx,
    ).denials;
    expect([d?.operation, d?.certainty, d?.fix]).toEqual(['create', 'possible', '--write ~/work']);
    // ~/.cache would expose ~/.cache/huggingface/token, which strict hides: no flag.
    const [e] = findDenials(
      "touch: cannot touch '/home/user/.cache/x': No such file or directory",
      ctx,
    ).denials;
    expect([e?.operation, e?.fix]).toEqual(['create', undefined]);
  });

  it('ignores failures inside a private directory named at run time', () => {
    const ctx = { ...context('strict'), privateDirs: [], privatePrefixes: ['/tmp/cordon-tmp-'] };
    expect(findDenials('cat: /tmp/cordon-tmp-AbC/x: Permission denied', ctx).denials).toEqual([]);
    expect(findDenials('cat: /tmp/other/x: Permission denied', ctx).denials).toHaveLength(1);
  });

  it('takes a bare relative path whose directory exists, and ignores words with a slash', () => {
    const ctx = context('read-only', {}, { [`${CWD}/.git`]: 'dir', [`${CWD}/.git/config`]: 'file' });
    const r = findDenials(
      'error: could not lock config file .git/config: Permission denied\nfatal: and/or: Permission denied',
      ctx,
    );
    expect(r.denials.map((d) => [d.operation, d.path, d.certainty])).toEqual([
      ['write', `${CWD}/.git/config`, 'certain'],
    ]);
  });

  it('with bwrap (writes refused with EROFS) does not blame an EACCES on a readable path', () => {
    const ctx = { ...context('workspace', {}, { '/etc/hosts': 'file' }), writeDenialErrno: 'EROFS' as const };
    expect(
      findDenials(
        "bash: /etc/hosts: Permission denied\ntouch: cannot touch '/etc/x': Permission denied",
        ctx,
      ),
    ).toEqual({ denials: [], omitted: 0 });
    expect(findDenials("touch: cannot touch '/etc/x': Read-only file system", ctx).denials).toHaveLength(1);
  });
});
