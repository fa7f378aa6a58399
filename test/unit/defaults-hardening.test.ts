// Issue 15 at the policy level (synthetic hosts, every OS): broad writable roots are refused
// unless named, submodule gitlinks and gitdirs are protected (and their directories pinned),
// and a .git symlink refusal says how to recover.
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { broadRootReason } from '../../src/policy/broad-roots.ts';
import { configValue, parseGitConfig, subsections } from '../../src/policy/git-config.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileText } from '../helpers/profile.ts';

const workspace = loadProfile('workspace', '/');
const strict = loadProfile('strict', '/');
const noFlags = { read: [], write: [], deny: [] };

function refusal(fn: () => unknown): CordonError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CordonError) return error;
    throw error;
  }
  throw new Error('expected a CordonError');
}

describe('broad writable roots', () => {
  it.each([
    ['linux', '/home/user'],
    ['linux', '/home'],
    ['linux', '/'],
    ['linux', '/etc'],
    ['linux', '/usr'],
    ['linux', '/usr/local'],
    ['darwin', '/Users/user'],
    ['darwin', '/Users'],
    ['darwin', '/private/etc'],
    ['win32', 'C:/Users/user'],
    ['win32', 'C:/'],
    ['win32', 'C:/Windows'],
  ] as const)('%s: the default and strict profiles refuse cwd %s (125)', (platform, cwd) => {
    const host = syntheticHost(platform, { cwd });
    for (const p of [workspace, strict]) {
      const e = refusal(() => resolvePolicy(p, noFlags, host, cwd));
      expect(e.code).toBe('broad-root');
      expect(e.exitCode).toBe(125);
      expect(e.message).toContain(`refusing to make the working directory '${cwd}' writable`);
      expect(e.message).toMatch(/--write (~|\S+)$/);
    }
  });

  it('names the home directory ~ in the fix, and the reason', () => {
    const host = syntheticHost('linux', { cwd: '/home/user' });
    const e = refusal(() => resolvePolicy(workspace, noFlags, host, '/home/user'));
    expect(e.message).toContain('it is your home directory');
    expect(e.message).toContain('name it explicitly if you mean it: --write ~');
  });

  it('--write naming the same path is explicit: accepted, and the root is writable', () => {
    const host = syntheticHost('linux', { cwd: '/home/user' });
    for (const w of ['~', '/home/user', '.']) {
      const policy = resolvePolicy(workspace, { ...noFlags, write: [w] }, host, '/home/user');
      expect(policy.rules.some((r) => r.path === '/home/user' && r.access === 'write')).toBe(true);
    }
    // A flag for another path does not make the cwd explicit.
    expect(() => resolvePolicy(workspace, { ...noFlags, write: ['~/out'] }, host, '/home/user')).toThrow(
      /refusing/,
    );
  });

  it('a literal path in a profile is explicit; {cwd} and relative paths are not', () => {
    const host = syntheticHost('linux');
    const lit = mergeProfiles([
      parseProfileText('filesystem:\n  - { path: "~", access: write }\n', 't.yaml', 't'),
    ]);
    expect(() => resolvePolicy(lit, noFlags, host, host.cwd)).not.toThrow();
    const rel = mergeProfiles([
      parseProfileText('filesystem:\n  - { path: "..", access: write }\n', 't.yaml', 't'),
    ]);
    expect(() => resolvePolicy(rel, noFlags, host, host.cwd)).toThrow(/an ancestor of|your home directory/);
  });

  it('ordinary project directories are not broad (CI checkouts, /var/tmp, /opt/x, ~/project)', () => {
    const host = syntheticHost('linux', { home: '/root' });
    for (const p of ['/tmp/x', '/work/repo', '/var/tmp/build', '/opt/project', '/root/project', '/srv/x/y'])
      expect(broadRootReason(p, host)).toBeUndefined();
    for (const p of ['/root', '/', '/var', '/var/lib', '/usr/local/bin', '/opt'])
      expect(broadRootReason(p, host)).toBeDefined();
  });

  it('read-only profile from home is fine: nothing becomes writable there', () => {
    const host = syntheticHost('linux', { cwd: '/home/user' });
    expect(() => resolvePolicy(loadProfile('read-only', '/'), noFlags, host, '/home/user')).not.toThrow();
  });
});

describe('git config reader', () => {
  it('reads sections, subsections, quoted values, comments and continuations as git does', () => {
    const e = parseGitConfig(
      '[core]\n\tWorkTree = "../../a b" ; comment\n[submodule "x/y"]\n\tpath = vendor/\\\nlib # c\n[Sub.Name]\nk\n',
    );
    expect(configValue(e, 'core', undefined, 'worktree')).toBe('../../a b');
    expect(subsections(e, 'submodule')).toEqual(['x/y']);
    expect(configValue(e, 'submodule', 'x/y', 'path')).toBe('vendor/lib');
    expect(configValue(e, 'sub', 'name', 'k')).toBe('true');
  });
});

describe('submodules', () => {
  const cwd = '/home/user/project';
  const files = {
    [`${cwd}/.git`]: 'dir',
    [`${cwd}/.git/modules/lib`]: 'dir',
    [`${cwd}/vendor`]: 'dir',
    [`${cwd}/vendor/lib`]: 'dir',
    [`${cwd}/vendor/lib/.git`]: 'file',
    [`${cwd}/ext`]: 'dir',
  } as const;
  const texts = {
    [`${cwd}/.git/config`]:
      '[core]\n\tbare = false\n[submodule "lib"]\n\tactive = true\n[submodule "ext"]\n\turl = x\n',
    [`${cwd}/.gitmodules`]: '[submodule "lib"]\n\tpath = vendor/lib\n[submodule "ext"]\n\tpath = ext\n',
    [`${cwd}/.git/modules/lib/config`]: '[core]\n\tworktree = ../../../vendor/lib\n',
    [`${cwd}/vendor/lib/.git`]: 'gitdir: ../../.git/modules/lib\n',
  };

  it('gitlink read-only, its directories pinned, a not-checked-out submodule read-only', () => {
    const host = syntheticHost('linux', { files, texts });
    const policy = resolvePolicy(workspace, noFlags, host, cwd);
    const at = (p: string) => policy.rules.find((r) => r.path === p);
    expect(at(`${cwd}/vendor/lib/.git`)).toMatchObject({ access: 'read', source: { kind: 'protected' } });
    expect(at(`${cwd}/vendor/lib`)).toMatchObject({ access: 'write', source: { kind: 'protected' } });
    expect(at(`${cwd}/vendor`)).toMatchObject({ access: 'write', source: { kind: 'protected' } });
    expect(at(`${cwd}/ext`)).toMatchObject({ access: 'read', source: { kind: 'protected' } });
  });

  it('a gitdir outside .git named by a gitlink is protected too', () => {
    const host = syntheticHost('linux', {
      files: { ...files, [`${cwd}/store`]: 'dir', [`${cwd}/store/lib`]: 'dir' },
      texts: { ...texts, [`${cwd}/vendor/lib/.git`]: 'gitdir: ../../store/lib\n' },
    });
    const policy = resolvePolicy(workspace, noFlags, host, cwd);
    expect(policy.rules.find((r) => r.path === `${cwd}/store/lib`)?.access).toBe('read');
  });

  it('a submodule path that is a symlink is refused with the way out', () => {
    const { [`${cwd}/vendor`]: _dir, ...rest } = files;
    const host = syntheticHost('linux', { files: rest, texts, links: { [`${cwd}/vendor`]: '/elsewhere' } });
    expect(() => resolvePolicy(workspace, noFlags, host, cwd)).toThrow(/submodule path .*vendor'.*rm /);
  });
});

describe('.git symlink refusal', () => {
  it('a live link: says to replace it with a pointer file naming the same directory', () => {
    const host = syntheticHost('linux', {
      files: { '/srv/repo.git': 'dir' },
      links: { '/home/user/project/.git': '/srv/repo.git' },
    });
    const e = refusal(() => resolvePolicy(workspace, noFlags, host, '/home/user/project'));
    expect(e.message).toContain("it is a symlink to '/srv/repo.git' inside");
    expect(e.message).toContain(
      "rm /home/user/project/.git && echo 'gitdir: /srv/repo.git' > /home/user/project/.git",
    );
  });
});

describe('credential deny list', () => {
  it('holds the entries the review asked for, for every built-in profile that reads home', () => {
    const host = syntheticHost('linux');
    for (const name of ['workspace', 'read-only']) {
      const policy = resolvePolicy(loadProfile(name, '/'), noFlags, host, host.cwd);
      const none = new Set(policy.rules.filter((r) => r.access === 'none').map((r) => r.path));
      for (const p of [
        '.bash_history',
        '.zsh_history',
        '.pgpass',
        '.my.cnf',
        '.config/containers/auth.json',
        '.cache/huggingface/token',
        '.config/rclone',
        '.codex',
        '.claude',
        '.oci',
        '.config/doctl',
      ])
        expect(none.has(`/home/user/${p}`)).toBe(true);
    }
  });
});
