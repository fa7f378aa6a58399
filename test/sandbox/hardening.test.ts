// Issue 13: cordon's own unconfined code must never trust what the command can change. Each
// test plants what an earlier (or the current) sandboxed run could plant, runs the real CLI
// with real bubblewrap as root and as uid 65534, and checks the host side.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, CORDON, isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { chownTo, type Fixture, makeFixture } from '../helpers/sandbox.ts';

const canBwrap =
  isLinux &&
  spawnSync('/usr/bin/bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' })
    .status === 0;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

describe.runIf(canBwrap && isRoot).each(users)('hardening (bwrap) as %s', (_label, uid) => {
  let fx: Fixture;
  const env = (extra: Record<string, string> = {}) => ({
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: fx.home,
    LANG: 'C.UTF-8',
    ...extra,
  });
  const cordon = (args: string[], extra: Record<string, string> = {}): Promise<CliResult> =>
    runCli(['--backend', 'bwrap', ...args], { cwd: fx.ws, asUid: uid, env: env(extra) });

  beforeEach(() => {
    fx = makeFixture(uid);
  });
  afterEach(() => rmSync(fx.base, { recursive: true, force: true }));

  /** A fake bwrap that leaves a marker outside, then behaves like the real one. */
  const plantBwrap = (dir: string, marker: string) => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'bwrap');
    writeFileSync(file, `#!/bin/sh\necho ran >> ${marker}\nexec /usr/bin/bwrap "$@"\n`);
    chmodSync(file, 0o755);
    chownTo(uid, dir, file);
  };

  it('1: a bwrap planted in node_modules/.bin (first on PATH) is never executed', async () => {
    const marker = join(fx.outside, 'planted-ran');
    const bin = join(fx.ws, 'node_modules/.bin');
    plantBwrap(bin, marker);
    chownTo(uid, join(fx.ws, 'node_modules'));
    const r = await cordon(['--json', '--', 'sh', '-c', 'echo hi'], { PATH: `${bin}:/usr/bin:/bin` });
    expect(existsSync(marker)).toBe(false);
    expect(JSON.parse(r.stdout)).toMatchObject({ backend: 'bwrap', exitCode: 0, stdout: { text: 'hi\n' } });
  });

  it('1: a fake bwrap elsewhere on PATH is not used as the sandbox; doctor says why', async () => {
    const marker = join(fx.outside, 'fake-ran');
    const bin = join(fx.base, 'bin');
    plantBwrap(bin, marker);
    const r = await cordon(['--json', '--', 'sh', '-c', 'echo hi'], { PATH: `${bin}:/usr/bin:/bin` });
    expect(existsSync(marker)).toBe(false);
    expect(JSON.parse(r.stdout)).toMatchObject({ backend: 'bwrap', exitCode: 0 });
    const d = await runCli(['doctor'], {
      cwd: fx.ws,
      asUid: uid,
      env: env({ PATH: `${bin}:/usr/bin:/bin` }),
    });
    expect(existsSync(marker)).toBe(false);
    expect(d.stdout).toContain('at /usr/bin/bwrap (chosen: a fixed system location, root-owned)');
    expect(d.stdout).toContain(`not used: ${bin}/bwrap`);
  });

  it('3: --write through a symlink an earlier run planted is refused (125), nothing written outside', async () => {
    const r1 = await cordon(['-q', '--', 'ln', '-s', fx.outside, 'build']);
    expect(r1.code).toBe(0);
    const before = readdirSync(fx.outside).sort();
    const r2 = await cordon(['-q', '--write', './build', '--', 'sh', '-c', 'echo pwned > build/owned']);
    expect(r2.code).toBe(125);
    expect(r2.stderr).toContain("it goes through the symlink '");
    expect(r2.stderr).toContain(`--write ${fx.outside}`);
    expect(existsSync(join(fx.outside, 'owned'))).toBe(false);
    expect(readdirSync(fx.outside).sort()).toEqual(before);
  });

  it('5: --report whose directory the command swaps for a symlink still lands in the pinned directory', async () => {
    mkdirSync(join(fx.ws, 'out'));
    chownTo(uid, join(fx.ws, 'out'));
    const r = await cordon([
      '-q',
      '--report',
      'out/report.json',
      '--',
      'sh',
      '-c',
      `mv out out.old && ln -s ${fx.outside} out && echo swapped`,
    ]);
    expect(r.stdout).toBe('swapped\n');
    expect(existsSync(join(fx.outside, 'report.json'))).toBe(false);
    expect(readdirSync(fx.outside)).toEqual(['victim.txt']);
    const report = JSON.parse(readFileSync(join(fx.ws, 'out.old/report.json'), 'utf8'));
    expect(report).toMatchObject({ status: 'exited', exitCode: 0 });
  });

  it('5: --report through a symlink an earlier run planted is refused before anything runs', async () => {
    const r1 = await cordon(['-q', '--', 'ln', '-s', fx.outside, 'out']);
    expect(r1.code).toBe(0);
    const r2 = await cordon([
      '-q',
      '--report',
      'out/report.json',
      '--',
      'sh',
      '-c',
      `echo ran > ${fx.ws}/ran`,
    ]);
    expect(r2.code).toBe(125);
    expect(r2.stderr).toContain(`its directory goes through the symlink '${fx.ws}/out'`);
    expect(existsSync(join(fx.ws, 'ran'))).toBe(false);
    expect(readdirSync(fx.outside)).toEqual(['victim.txt']);
  });

  it('4: placeholder clean-up with the parent swapped for a symlink deletes nothing outside', async () => {
    mkdirSync(join(fx.ws, 'conf'));
    chownTo(uid, join(fx.ws, 'conf'));
    const other = join(fx.outside, 'conf2');
    mkdirSync(other);
    writeFileSync(join(other, 'prod.env'), ''); // empty, like the placeholder
    const r = await cordon([
      '-q',
      '--deny',
      './conf/prod.env',
      '--',
      'sh',
      '-c',
      `test -e conf/prod.env && echo covered; mv conf conf.old && ln -s ${other} conf && echo swapped`,
    ]);
    // The parent of a covered path is pinned (bound onto itself), so the swap itself fails now;
    // if it ever succeeded, the clean-up must still delete nothing outside.
    expect(r.stdout).toBe('covered\n');
    expect(r.stderr).toMatch(/Device or resource busy/);
    expect(existsSync(join(other, 'prod.env'))).toBe(true);
    // Our own placeholder is gone; nothing else was created.
    expect(readdirSync(join(fx.ws, 'conf'))).toEqual([]);
    expect(existsSync(join(fx.ws, 'conf.old'))).toBe(false);
  });

  it('4 (issue 16): no .cordon placeholder: git status is clean during a run and nothing is left after SIGKILL', async () => {
    spawnSync('git', ['init', '-q', fx.ws]);
    chownTo(uid, fx.ws);
    spawnSync('chown', ['-R', `${uid ?? 0}:${uid ?? 0}`, join(fx.ws, '.git')]);
    writeFileSync(join(fx.ws, '.gitignore'), '.git\nsecret/\na/\n');
    chownTo(uid, join(fx.ws, '.gitignore'));
    const gitEnv = { GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: fx.base };
    const r = await cordon(
      ['-q', '--', 'sh', '-c', 'git -c safe.directory=* status --porcelain --untracked-files=all'],
      gitEnv,
    );
    expect(r.stdout).toBe('?? .gitignore\n');
    expect(existsSync(join(fx.ws, '.cordon'))).toBe(false);
    // SIGKILL cordon mid-run: nothing of cordon's is left in the workspace.
    const argv = [
      process.execPath,
      CORDON,
      '--backend',
      'bwrap',
      '-q',
      '--',
      'sh',
      '-c',
      'echo up > started; sleep 30',
    ];
    const full =
      uid === undefined
        ? argv
        : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
    const child = spawn(full[0]!, full.slice(1), { cwd: fx.ws, env: env(), stdio: 'ignore' });
    while (!existsSync(join(fx.ws, 'started'))) await new Promise((res) => setTimeout(res, 20));
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    expect(readdirSync(fx.ws).sort()).toEqual(['.git', '.gitignore', 'a', 'secret', 'started']);
  });
});
