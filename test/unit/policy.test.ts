// Policy model: precedence (deepest component-wise prefix wins; tie none > write > read;
// nothing matches = none), token expansion, protected paths, symlink refusals, profiles.
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { resolveAccess } from '../../src/policy/access.ts';
import { isCredentialName, resolveEnv } from '../../src/policy/env.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import type { Access, PolicyRule } from '../../src/policy/types.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileText } from '../helpers/profile.ts';

const rule = (path: string, access: Access): PolicyRule => ({
  path,
  access,
  source: { kind: 'flag', flag: '--read' },
});

describe('access precedence', () => {
  const rules = [
    rule('/w', 'write'),
    rule('/w/a', 'none'),
    rule('/w/a/b', 'write'),
    rule('/r', 'read'),
    rule('/r/x', 'none'),
    rule('/r/x/y', 'read'),
  ];
  it.each([
    ['/w', 'write'],
    ['/w/file', 'write'],
    ['/w/a', 'none'],
    ['/w/a/c', 'none'],
    ['/w/a/b', 'write'],
    ['/w/a/b/deep/er', 'write'],
    ['/w/ab', 'write'], // component-wise, not string prefix
    ['/r/x/y/z', 'read'],
    ['/r/x/z', 'none'],
    ['/elsewhere', 'none'],
    ['/', 'none'],
  ])('%s → %s', (path, access) => {
    expect(resolveAccess(rules, path)).toBe(access);
  });

  it('breaks ties none > write > read', () => {
    expect(resolveAccess([rule('/p', 'read'), rule('/p', 'write')], '/p/f')).toBe('write');
    expect(resolveAccess([rule('/p', 'write'), rule('/p', 'none')], '/p/f')).toBe('none');
    expect(resolveAccess([rule('/p', 'none'), rule('/p', 'read')], '/p')).toBe('none');
  });

  it('/ covers everything', () => {
    expect(resolveAccess([rule('/', 'read')], '/etc/passwd')).toBe('read');
  });
});

const profile = (yaml: string) => mergeProfiles([parseProfileText(yaml, 'test.yaml', 'test')]);

describe('resolvePolicy', () => {
  const host = syntheticHost('linux', {
    files: { '/home/user/project/.git': 'dir' },
  });
  it('expands tokens, relative paths, and adds protected paths inside writable roots', () => {
    const p = resolvePolicy(
      profile(
        'filesystem:\n  - { path: "{system}", access: read }\n  - { path: "{cwd}", access: write }\n  - { path: ~/.ssh, access: none }\n  - { path: sub/dir, access: read }\n  - { path: "{tmp}/x", access: write }\n',
      ),
      { read: [], write: [], deny: [] },
      host,
      host.cwd,
    );
    expect(p.rules.map((r) => [r.access, r.path, r.source.kind])).toEqual([
      ['read', '/bin', 'profile'],
      ['read', '/etc', 'profile'],
      ['read', '/lib', 'profile'],
      ['read', '/lib64', 'profile'],
      ['read', '/opt', 'profile'],
      ['read', '/sbin', 'profile'],
      ['read', '/usr', 'profile'],
      ['write', '/tmp/x', 'profile'],
      ['none', '/home/user/.ssh', 'profile'],
      ['write', '/home/user/project', 'profile'],
      ['read', '/home/user/project/.git', 'protected'],
      ['read', '/home/user/project/sub/dir', 'profile'],
    ]);
  });

  it('a rule naming the exact protected path overrides the protection', () => {
    const p = resolvePolicy(
      profile('filesystem:\n  - { path: "{cwd}", access: write }\n'),
      { read: [], write: ['.git'], deny: [] },
      host,
      host.cwd,
    );
    expect(resolveAccess(p.rules, '/home/user/project/.git/config')).toBe('write');
    // .cordon is not protected (nothing reads it): it is as writable as its root.
    expect(resolveAccess(p.rules, '/home/user/project/.cordon/x')).toBe('write');
  });

  it('protects a .git pointer file and the gitdir target it names', () => {
    const h = syntheticHost('linux', {
      files: { '/home/user/project/.git': 'file' },
      texts: { '/home/user/project/.git': 'gitdir: ../main/.git/worktrees/project\n' },
    });
    const p = resolvePolicy(
      profile('filesystem:\n  - { path: /home/user, access: write }\n'),
      { read: [], write: [], deny: [] },
      h,
      h.cwd,
    );
    // Only the top level of a writable root is protected (a nested repo's .git is not; documented).
    expect(resolveAccess(p.rules, '/home/user/project/.git')).toBe('write');
    // A missing .git is not covered (git must keep working in subdirectories); .cordon never is.
    expect(resolveAccess(p.rules, '/home/user/.git')).toBe('write');
    expect(resolveAccess(p.rules, '/home/user/.cordon')).toBe('write');
    const p2 = resolvePolicy(
      profile(
        'filesystem:\n  - { path: "{cwd}", access: write }\n  - { path: /home/user/main, access: write }\n',
      ),
      { read: [], write: [], deny: [] },
      h,
      h.cwd,
    );
    expect(resolveAccess(p2.rules, '/home/user/project/.git')).toBe('read');
    expect(resolveAccess(p2.rules, '/home/user/main/.git/worktrees/project/HEAD')).toBe('read');
  });

  it('refuses a protected path that is a symlink inside a writable root', () => {
    const h = syntheticHost('linux', { links: { '/home/user/project/.git': '/elsewhere/repo.git' } });
    expect(() =>
      resolvePolicy(
        profile('filesystem:\n  - { path: "{cwd}", access: write }\n'),
        { read: [], write: [], deny: [] },
        h,
        h.cwd,
      ),
    ).toThrow(
      /cannot protect '\/home\/user\/project\/\.git': it is a symlink to '\/elsewhere\/repo\.git' that points nowhere \(dangling\) inside the writable root/,
    );
  });

  it('refuses a carve-out reached through a symlink in a writable directory', () => {
    const h = syntheticHost('linux', { links: { '/home/user/project/secrets': '/srv/secrets' } });
    try {
      resolvePolicy(
        profile('filesystem:\n  - { path: "{cwd}", access: write }\n'),
        { read: [], write: [], deny: ['secrets/key'] },
        h,
        h.cwd,
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CordonError);
      expect((error as CordonError).code).toBe('unsafe-symlink');
      expect((error as CordonError).message).toMatch(/through the symlink '\/home\/user\/project\/secrets'/);
    }
  });

  it('flags add rules on top of the profile and --net/--no-net override it', () => {
    const p = resolvePolicy(
      profile('network: off\nfilesystem:\n  - { path: /, access: read }\n'),
      { read: [], write: ['/data'], deny: ['/data/private'], network: 'on' },
      host,
      host.cwd,
    );
    expect(p.network).toBe('on');
    expect(resolveAccess(p.rules, '/data/x')).toBe('write');
    expect(resolveAccess(p.rules, '/data/private/x')).toBe('none');
  });

  it('rejects unknown tokens', () => {
    expect(() =>
      resolvePolicy(
        profile('filesystem:\n  - { path: "{home}/x", access: read }\n'),
        { read: [], write: [], deny: [] },
        host,
        host.cwd,
      ),
    ).toThrow(
      "unknown path token in profile test filesystem[0].path: '{home}/x' — use ~, {cwd}, {tmp}, {system}, {node}, / or a plain path",
    );
  });
});

describe('profile parsing errors name the file, key path and what is allowed', () => {
  it.each([
    [
      'filesystem:\n  - { path: /x, access: rw }\n',
      "invalid profile p.yaml: filesystem[0].access: 'rw' is not an access — allowed: read, write, none",
    ],
    ['network: maybe\n', "invalid profile p.yaml: network: 'maybe' is not allowed — use on or off"],
    [
      'netwrk: off\n',
      "invalid profile p.yaml: netwrk: unknown key 'netwrk' — allowed keys: extends, network, localBinding, allowNet, privateTmp, cache, limits, filesystem, env",
    ],
    [
      'filesystem:\n  - { path: /x, access: read, mode: 1 }\n',
      "invalid profile p.yaml: filesystem[0].mode: unknown key 'mode' — allowed keys: path, access",
    ],
    ['filesystem: /x\n', 'invalid profile p.yaml: filesystem: must be a list of { path, access } rules'],
    [
      'env:\n  keep: [1X]\n',
      "invalid profile p.yaml: env.keep[0]: '1X' is not an environment variable name (letters, digits, _)",
    ],
    ['a: [\n', /invalid profile p.yaml: not valid YAML/],
  ])('%j', (text, message) => {
    expect(() => parseProfileText(text, 'p.yaml', 'p')).toThrow(message);
  });

  it('JSON profiles use the same parser', () => {
    expect(() => parseProfileText('{"filesystem":[{"path":"/x","access":"all"}]}', 'p.json', 'p')).toThrow(
      "p.json: filesystem[0].access: 'all' is not an access",
    );
    expect(parseProfileText('{"network":"on"}', 'p.json', 'p').network).toBe('on');
  });
});

describe('environment filtering', () => {
  it.each([
    ['GITHUB_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['NPM_CONFIG__AUTH', true],
    ['SSH_AUTH_SOCK', true],
    ['DATABASE_URL', true],
    ['PGPASSWORD', true],
    ['GH_PAT', true],
    ['GIT_AUTHOR_NAME', false],
    ['PATH', false],
    ['PWD', false],
    ['OAUTHLIB_X', false],
    ['HOME', false],
  ])('%s credential=%s', (name, expected) => {
    expect(isCredentialName(name)).toBe(expected);
  });

  it('compares names case-insensitively on Windows', () => {
    const base = { Path: 'C:\\Windows', ComSpec: 'cmd.exe', Api_Token: 'x' };
    expect(
      resolveEnv(base, { keep: [], set: { PATH: 'D:\\bin' }, drop: [], clear: true }, ['PATH'], true),
    ).toEqual({
      env: { PATH: 'D:\\bin' },
      dropped: ['Api_Token', 'ComSpec'],
    });
    expect(resolveEnv(base, { keep: [], set: {}, drop: [], clear: true }, ['PATH'], true).env).toEqual({
      Path: 'C:\\Windows',
    });
  });

  it('lists dropped names only, honours keep/set/clear', () => {
    const base = { PATH: '/bin', HOME: '/h', API_TOKEN: 'x', FOO: 'y', TERM: 'xterm' };
    expect(resolveEnv(base, { keep: [], set: {}, drop: [], clear: false }, ['PATH', 'HOME'])).toEqual({
      env: { PATH: '/bin', HOME: '/h', FOO: 'y', TERM: 'xterm' },
      dropped: ['API_TOKEN'],
    });
    expect(
      resolveEnv(base, { keep: ['API_TOKEN'], set: { Z: '1' }, drop: ['FOO'], clear: false }, []),
    ).toEqual({
      env: { PATH: '/bin', HOME: '/h', API_TOKEN: 'x', TERM: 'xterm', Z: '1' },
      dropped: ['FOO'],
    });
    expect(resolveEnv(base, { keep: [], set: {}, drop: [], clear: true }, ['PATH', 'HOME', 'TERM'])).toEqual({
      env: { PATH: '/bin', HOME: '/h', TERM: 'xterm' },
      dropped: ['API_TOKEN', 'FOO'],
    });
  });
});
