// A read-only or denied path inside a writable root cannot be moved aside by renaming one of the
// directories above it (the adversarial review's E1, E3, E6): every directory between the root
// and the carve-out is pinned. Real bwrap, as root and as uid 65534; host side checked.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATTERY_USERS, isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { chownTo, type Fixture, makeFixture } from '../helpers/sandbox.ts';

const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;

describe.runIf(canBwrap && isRoot).each(BATTERY_USERS)('carve-outs stay put (bwrap) as %s', (_label, uid) => {
  let fx: Fixture;
  const env = (extra: Record<string, string> = {}) => ({
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: fx.home,
    LANG: 'C.UTF-8',
    ...extra,
  });
  beforeAll(() => {
    fx = makeFixture(uid);
  });
  afterAll(() => rmSync(fx.base, { recursive: true, force: true }));

  it('--read a/b/conf: renaming a/ is refused and the file is unchanged', async () => {
    mkdirSync(join(fx.ws, 'a/b'), { recursive: true });
    writeFileSync(join(fx.ws, 'a/b/conf'), 'original\n');
    chownTo(uid, join(fx.ws, 'a'));
    const r = await runCli(
      [
        '-q',
        '--read',
        'a/b/conf',
        '--',
        'sh',
        '-c',
        'mv a a2; mkdir -p a/b; echo EVIL > a/b/conf; echo done',
      ],
      { cwd: fx.ws, asUid: uid, env: env() },
    );
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toMatch(/Device or resource busy/);
    expect(readFileSync(join(fx.ws, 'a/b/conf'), 'utf8')).toBe('original\n');
    expect(existsSync(join(fx.ws, 'a2'))).toBe(false);
  });

  it('a .git pointer to a gitdir two levels deep: its parents cannot be moved aside', async () => {
    const repo = join(fx.base, `pointer-${uid ?? 0}`);
    mkdirSync(join(repo, 'store/repos/p.git'), { recursive: true });
    writeFileSync(join(repo, 'store/repos/p.git/config'), '[core]\n');
    writeFileSync(join(repo, 'store/repos/p.git/HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(repo, '.git'), `gitdir: ${join(repo, 'store/repos/p.git')}\n`);
    chownTo(uid, repo);
    const r = await runCli(
      [
        '-q',
        '--',
        'sh',
        '-c',
        'mv store store-old; mkdir -p store/repos/p.git; echo "[core] fsmonitor = evil" > store/repos/p.git/config; echo done',
      ],
      { cwd: repo, asUid: uid, env: env() },
    );
    expect(r.stdout).toBe('done\n');
    expect(readFileSync(join(repo, 'store/repos/p.git/config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(repo, 'store-old'))).toBe(false);
  });

  it("XDG_CACHE_HOME inside the workspace: cordon's state there cannot be swapped", async () => {
    const xdg = join(fx.ws, 'xdg');
    mkdirSync(xdg, { recursive: true });
    chownTo(uid, xdg);
    const first = await runCli(['-q', '--', 'true'], {
      cwd: fx.ws,
      asUid: uid,
      env: env({ XDG_CACHE_HOME: xdg }),
    });
    expect(first.code).toBe(0);
    const r = await runCli(
      ['-q', '--', 'sh', '-c', 'mv xdg xdg-old; mkdir -p xdg/cordon/planted; echo done'],
      { cwd: fx.ws, asUid: uid, env: env({ XDG_CACHE_HOME: xdg }) },
    );
    expect(r.stdout).toBe('done\n');
    expect(existsSync(join(fx.ws, 'xdg-old'))).toBe(false);
    expect(existsSync(join(xdg, 'cordon/planted'))).toBe(false);
  });
});
