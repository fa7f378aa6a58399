// Issue 13, item 6: cordon's unconfined clean-up of the Landlock private TMPDIR (and
// `cordon cache clear`) must never delete outside the tree. The command leaves behind a
// process that forks, setsid()s and exits in a loop (so no sweep is sure to catch it) and that
// swaps directories in the tree with symlinks to a victim directory, atomically
// (renameat2 RENAME_EXCHANGE), while cordon walks the tree. The victim is checked on the host.
// A racing attack: the old path-based removal lost files in about a third of the rounds here,
// so each test runs several rounds; none may lose one.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLinux, isRoot, ROOT, runCli } from '../helpers/cli.ts';
import { chownTo, type Fixture, makeFixture } from '../helpers/sandbox.ts';

const landlockOk = isLinux && existsPerl() && process.arch === 'x64';
function existsPerl(): boolean {
  return spawnSync('/usr/bin/perl', ['-e', '1']).status === 0;
}

// One generation swaps each dK with sK (RENAME_EXCHANGE, syscall 316 on x86_64) 100 times,
// then forks a successor in a new session and exits; it stops when the stop file appears.
const SWAPPER = `use POSIX qw(setsid);
my ($tmp, $victim, $stop, $pairs) = @ARGV;
for my $k (1..$pairs) { symlink($victim, "$tmp/s$k"); }
while (!-e $stop) {
  for (1..100) { for my $k (1..$pairs) { syscall(316, -100, "$tmp/d$k", -100, "$tmp/s$k", 2); } }
  my $pid = fork();
  exit 0 if $pid;
  setsid();
}
`;
const PAIRS = 10;
const ROUNDS = 4;
const VICTIMS = 50;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

describe.runIf(landlockOk && isRoot).each(users)(
  'Landlock clean-up under a live swapper as %s',
  (_l, uid) => {
    let fx: Fixture;
    let victim: string;
    let stop: string;
    beforeEach(() => {
      fx = makeFixture(uid);
      writeFileSync(join(fx.ws, 'swap.pl'), SWAPPER);
      chownTo(uid, join(fx.ws, 'swap.pl'));
      victim = join(fx.outside, 'victim-dir');
      stop = join(fx.outside, 'stop');
      mkdirSync(victim);
      chmodSync(victim, 0o777);
    });
    afterEach(async () => {
      writeFileSync(stop, '');
      await new Promise((r) => setTimeout(r, 100));
      rmSync(fx.base, { recursive: true, force: true });
    });
    const refill = () => {
      for (let i = 1; i <= VICTIMS; i++) {
        writeFileSync(join(victim, `v${i}`), 'v');
        chmodSync(join(victim, `v${i}`), 0o666);
      }
    };
    const attack = (dir: string) =>
      `for k in $(seq 1 ${PAIRS}); do mkdir -p ${dir}/d$k; for i in $(seq 1 ${VICTIMS}); do : > ${dir}/d$k/v$i; done; done; ` +
      `setsid perl ./swap.pl ${dir} ${victim} ${stop} ${PAIRS} </dev/null >/dev/null 2>&1 & sleep 0.3; echo started`;

    it('the library (no subreaper: the swapper outlives the run) removes TMPDIR without following a link', async () => {
      const script = `const { run } = await import(${JSON.stringify(join(ROOT, 'dist/index.js'))});
const r = await run(['sh', '-c', ${JSON.stringify(attack('$TMPDIR'))}], { backend: 'landlock', bestEffort: true });
process.stdout.write(r.stdout.text);`;
      for (let round = 0; round < ROUNDS; round++) {
        refill();
        rmSync(stop, { force: true });
        const argv = [process.execPath, '--input-type=module', '-e', script];
        const full =
          uid === undefined
            ? argv
            : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
        const r = spawnSync(full[0]!, full.slice(1), {
          cwd: fx.ws,
          env: { PATH: '/usr/bin:/bin', HOME: fx.home },
          encoding: 'utf8',
        });
        expect(r.stdout).toBe('started\n');
        writeFileSync(stop, '');
        expect(readdirSync(victim).length).toBe(VICTIMS);
      }
    });

    it('the CLI removes TMPDIR without following a link', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        refill();
        rmSync(stop, { force: true });
        const r = await runCli(
          ['--backend', 'landlock', '--best-effort', '-q', '--', 'sh', '-c', attack('$TMPDIR')],
          {
            cwd: fx.ws,
            asUid: uid,
            env: { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
          },
        );
        expect(r.stdout).toBe('started\n');
        writeFileSync(stop, '');
        expect(readdirSync(victim).length).toBe(VICTIMS);
      }
    });

    it('cordon cache clear, with a swapper still running in a cache entry, deletes nothing outside', async () => {
      const env = { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' };
      const shown = await runCli(['cache', '--json'], { cwd: fx.ws, asUid: uid, env });
      const root = JSON.parse(shown.stdout).root as string;
      for (let round = 0; round < ROUNDS; round++) {
        refill();
        rmSync(stop, { force: true });
        const entry = join(root, `attack-${round}`);
        mkdirSync(entry, { recursive: true });
        spawnSync('chown', ['-R', `${uid ?? 0}:${uid ?? 0}`, join(fx.home, '.cache')]);
        // The swapper runs as the user, as a sandboxed run's leftover would.
        const asUser = (argv: string[]) =>
          uid === undefined
            ? argv
            : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
        const prep = asUser(['sh', '-c', attack(entry).replace(' & sleep 0.3; echo started', '')]);
        const swapper = spawn(prep[0]!, prep.slice(1), { cwd: fx.ws, stdio: 'ignore' });
        await new Promise((r) => setTimeout(r, 300));
        const r = await runCli(['cache', 'clear'], { cwd: fx.ws, asUid: uid, env });
        writeFileSync(stop, '');
        swapper.kill('SIGKILL');
        expect(readdirSync(victim).length).toBe(VICTIMS);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
    });
  },
);
