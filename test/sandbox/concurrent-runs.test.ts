// Issue 13, "concurrent runs in one workspace": run A's command keeps swapping a directory of
// the workspace with a symlink (renameat2 RENAME_EXCHANGE, as fast as it can) while run B,
// in the same workspace, asks for that directory read-only. bubblewrap resolves paths when it
// mounts, after cordon planned: B must either refuse (125) or have the real directory
// read-only — never write into it. Real bwrap, as root and as uid 65534; host side checked.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CORDON, isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const canRun =
  isLinux &&
  process.arch === 'x64' &&
  spawnSync('/usr/bin/perl', ['-e', '1']).status === 0 &&
  spawnSync('/usr/bin/bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' })
    .status === 0;

// Swaps vendor <-> vlink (a symlink to decoy/) until the stop file appears.
const SWAPPER =
  'my ($a, $b, $stop) = @ARGV; while (!-e $stop) { for (1..200) { syscall(316, -100, $a, -100, $b, 2); } }';
const RUNS = 12;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

describe.runIf(canRun && isRoot).each(users)('two runs in one workspace, as %s', (_l, uid) => {
  let fx: Fixture;
  beforeEach(() => {
    fx = makeFixture(uid);
    mkdirSync(join(fx.ws, 'vendor'));
    writeFileSync(join(fx.ws, 'vendor/REAL'), 'the real vendor dir\n');
    mkdirSync(join(fx.ws, 'decoy'));
    symlinkSync('decoy', join(fx.ws, 'vlink'));
    if (uid !== undefined) spawnSync('chown', ['-R', '-h', `${uid}:${uid}`, fx.ws]);
  });
  afterEach(() => rmSync(fx.base, { recursive: true, force: true }));

  it('run B keeps --read ./vendor read-only (or refuses) while run A swaps it for a symlink', async () => {
    const stop = join(fx.outside, 'stop');
    const env = { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' };
    const argvA = [
      process.execPath,
      CORDON,
      '--backend',
      'bwrap',
      '-q',
      '--',
      '/usr/bin/perl',
      '-e',
      SWAPPER,
      join(fx.ws, 'vendor'),
      join(fx.ws, 'vlink'),
      stop,
    ];
    const fullA =
      uid === undefined
        ? argvA
        : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argvA];
    const a = spawn(fullA[0]!, fullA.slice(1), { cwd: fx.ws, env, stdio: 'ignore' });
    const outcomes: number[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        const b = await runCli(
          [
            '--backend',
            'bwrap',
            '-q',
            '--read',
            './vendor',
            '--',
            'sh',
            '-c',
            `echo pwned > vendor/w${i} 2>/dev/null; true`,
          ],
          { cwd: fx.ws, asUid: uid, env },
        );
        outcomes.push(b.code ?? -1);
        // 0: ran with vendor read-only; 125: the gate refused; 1: bwrap's own set-up failed
        // (a mount source vanished under it) before the command ran.
        if (b.code === 1) expect(b.stderr).toMatch(/^bwrap: /m);
        else expect([0, 125]).toContain(b.code);
      }
    } finally {
      writeFileSync(stop, '');
      await new Promise((r) => a.once('exit', r));
    }
    // Wherever the real directory is now (vendor or vlink), it holds only its own file.
    const realDir = existsSync(join(fx.ws, 'vendor/REAL')) ? join(fx.ws, 'vendor') : join(fx.ws, 'vlink');
    expect(readdirSync(realDir)).toEqual(['REAL']);
    expect(outcomes.length).toBe(RUNS);
  });
});
