// The private /tmp explained: "no such file" on a host /tmp path that the sandbox's fresh /tmp
// hides gets an annotation naming the narrowest safe directory to share, never /tmp itself.
import { describe, expect, it } from 'vitest';
import { findDenials } from '../../src/denials/explain.ts';
import { recognizeFailures } from '../../src/denials/recognize.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import type { PathKind } from '../../src/host/types.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const CWD = '/home/user/project';
const HOST_FILES: Record<string, PathKind> = {
  '/tmp/x': 'dir',
  '/tmp/x/data.txt': 'file',
  '/tmp/ssh-abc': 'dir',
};

function context(flags: { read?: string[]; write?: string[]; deny?: string[] } = {}, privateTmp = '/tmp') {
  const host = syntheticHost('linux', { files: HOST_FILES });
  const policy = resolvePolicy(
    loadProfile('workspace', CWD),
    { read: flags.read ?? [], write: flags.write ?? [], deny: flags.deny ?? [], network: undefined },
    host,
    CWD,
  );
  return {
    policy,
    home: host.home,
    networkFromFlag: false,
    privateDirs: ['/tmp'],
    privateTmp: privateTmp === '' ? undefined : privateTmp,
    kindOf: (p: string) => host.kind(p),
  };
}

const CREATE = 'sh: 1: cannot create /tmp/x/file: Directory nonexistent';

describe('the private /tmp explained', () => {
  it("recognizes dash's 'Directory nonexistent' as a missing path to create", () => {
    expect(recognizeFailures(CREATE)).toEqual([
      { kind: 'fs', errno: 'ENOENT', paths: ['/tmp/x/file'], hint: 'create', line: CREATE },
    ]);
  });

  it('a create below a host /tmp directory: share that directory with --write', () => {
    expect(findDenials(CREATE, context())).toEqual({
      omitted: 0,
      denials: [
        {
          kind: 'denial',
          message:
            "possibly hidden: create of /tmp/x/file — /tmp is private to the sandbox (empty at the start of every run), so the host's directory /tmp/x is not visible inside; share it with the command: --write /tmp/x (inferred from the command's output)",
          operation: 'create',
          path: '/tmp/x/file',
          rule: 'private /tmp of the sandbox',
          fix: '--write /tmp/x',
          certainty: 'possible',
        },
      ],
    });
  });

  it('a read of a host /tmp file: --read that file; deeper missing parts: the deepest host directory', () => {
    const read = findDenials('cat: /tmp/x/data.txt: No such file or directory', context()).denials;
    expect(read.map((d) => [d.operation, d.fix])).toEqual([['read', '--read /tmp/x/data.txt']]);
    const deep = findDenials(
      'mkdir: cannot create directory ‘/tmp/x/a/b’: No such file or directory',
      context(),
    );
    expect(deep.denials.map((d) => [d.operation, d.fix])).toEqual([['create', '--write /tmp/x']]);
  });

  it('never suggests /tmp itself, and says nothing when the host has no such path either', () => {
    expect(
      findDenials('sh: 1: cannot create /tmp/nothere/f: Directory nonexistent', context()).denials,
    ).toEqual([]);
    expect(findDenials('cat: /tmp/file: No such file or directory', context()).denials).toEqual([]);
  });

  it('a path already shared by a rule is not "hidden"; --deny keeps its own hint', () => {
    expect(
      findDenials('cat: /tmp/x/gone: No such file or directory', context({ write: ['/tmp/x'] })).denials,
    ).toEqual([]);
    const denied = findDenials(
      'cat: /tmp/x/data.txt: No such file or directory',
      context({ deny: ['/tmp/x'] }),
    );
    expect(denied.denials.map((d) => d.message)).toEqual([
      "possibly denied: read of /tmp/x/data.txt (flag --deny: none /tmp/x) — your --deny /tmp/x keeps it out (inferred from the command's output)",
    ]);
  });

  it('no annotation where /tmp is not private (Landlock, Seatbelt: the host /tmp is visible)', () => {
    expect(findDenials(CREATE, context({}, '')).denials).toEqual([]);
  });

  it('escapes terminal bytes the command put in the path', () => {
    const host: Record<string, PathKind> = { '/tmp/e\x1b[31m': 'dir' };
    const ctx = { ...context(), kindOf: (p: string) => host[p] ?? 'missing' };
    const [d] = findDenials('sh: 1: cannot create /tmp/e\x1b[31m/f: Directory nonexistent', ctx).denials;
    expect(d?.message).not.toContain('\x1b');
    expect(d?.fix).toBe("--write '/tmp/e\x1b[31m'");
  });
});
