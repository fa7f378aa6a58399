// The escape battery every Linux backend must hold, defined once and run once per backend
// (bubblewrap, and Landlock with --best-effort, whose refusals of what it cannot express are
// pinned in landlock-battery.test.ts), as root and as uid 65534. Every test attempts the escape
// for real and checks the HOST side: the file outside is unchanged, nothing was left. What only
// one backend does (bwrap's profiles, masks and placeholders; Landlock's refusals) stays in
// bwrap.test.ts and landlock-battery.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import {
  BATTERY_USERS,
  type CliResult,
  CORDON,
  isLinux,
  isRoot,
  runCli,
  skippedNobodyLane,
} from '../helpers/cli.ts';
import { chownTo, type Fixture, makeFixture, snapshotTree } from '../helpers/sandbox.ts';

const NODE = process.execPath;
const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();

interface Backend {
  readonly name: string;
  readonly flags: readonly string[];
  readonly available: boolean;
  /** Other processes are out of reach: bwrap's pid namespace; Landlock's signal scope (ABI ≥ 6). */
  readonly isolatesProcesses: boolean;
}

const BACKENDS: readonly Backend[] = [
  { name: 'bwrap', flags: ['--backend', 'bwrap'], available: canBwrap, isolatesProcesses: true },
  {
    name: 'landlock',
    flags: ['--backend', 'landlock', '--best-effort'],
    available: abi > 0,
    isolatesProcesses: abi >= 6,
  },
];

for (const backend of BACKENDS) {
  skippedNobodyLane(`${backend.name} shared escape battery as uid 65534`, backend.available);

  describe.runIf(backend.available && isRoot).each(BATTERY_USERS)(
    `${backend.name}: shared escape battery as %s`,
    (_label, uid) => {
      let fx: Fixture;
      const env = (extra: Record<string, string> = {}) => ({
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: fx.home,
        LANG: 'C.UTF-8',
        ...extra,
      });
      const cordon = (args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> =>
        runCli([...backend.flags, '-q', ...args], { cwd: fx.ws, asUid: uid, env: env(extraEnv) });
      const sh = (script: string, args: string[] = []) => cordon([...args, '--', 'sh', '-c', script]);

      beforeAll(() => {
        fx = makeFixture(uid);
      });
      afterAll(() => {
        rmSync(fx.base, { recursive: true, force: true });
      });

      it('writes inside the workspace are allowed and land on the host', async () => {
        const r = await sh('echo made > new.txt && mkdir -p d/e && echo deep > d/e/f');
        expect(r.code).toBe(0);
        expect(readFileSync(join(fx.ws, 'new.txt'), 'utf8')).toBe('made\n');
        expect(readFileSync(join(fx.ws, 'd/e/f'), 'utf8')).toBe('deep\n');
      });

      it('writes outside the workspace are denied', async () => {
        const before = snapshotTree(fx.outside);
        const r = await sh(
          `echo pwned > ${fx.victim}; echo pwned > ${fx.outside}/new; mkdir ${fx.outside}/d; rm -f ${fx.victim}; echo done`,
        );
        expect(r.stdout).toBe('done\n');
        expect(r.stderr).toMatch(/Read-only file system|Permission denied/);
        expect(snapshotTree(fx.outside)).toEqual(before);
      });

      it('a symlink or a hardlink in the workspace cannot be used to write outside', async () => {
        symlinkSync(fx.victim, join(fx.ws, 'link-to-victim'));
        chownTo(uid);
        const r = await sh(
          `echo pwned > link-to-victim; ln ${fx.victim} hard; echo pwned >> hard; ln -s ${fx.victim} link2; echo pwned > link2; echo done`,
        );
        expect(r.stdout).toBe('done\n');
        expect(readFileSync(fx.victim, 'utf8')).toBe('original\n');
      });

      it('environment variables cordon drops are not readable anywhere, cordon and its helpers included', async () => {
        const r = await cordon(
          [
            '--',
            'sh',
            '-c',
            'cat /proc/[0-9]*/environ 2>/dev/null | tr "\\0" "\\n" | grep -c sekrit-value; true',
          ],
          { GITHUB_TOKEN: 'sekrit-value' },
        );
        expect(r.stdout.trim()).toBe('0');
      });

      it('/proc/sys is read-only and remounting / read-write fails', async () => {
        const before = snapshotTree(fx.outside);
        const domain = readFileSync('/proc/sys/kernel/domainname', 'utf8');
        const r = await sh(
          `echo cordon-test > /proc/sys/kernel/domainname; echo 1 > /proc/sys/kernel/sysrq; mount -o remount,rw /; mount -o remount,bind,rw /; echo pwned > ${fx.victim}; echo done`,
        );
        expect(r.stdout).toBe('done\n');
        expect(readFileSync('/proc/sys/kernel/domainname', 'utf8')).toBe(domain);
        expect(snapshotTree(fx.outside)).toEqual(before);
      });

      it.runIf(backend.isolatesProcesses)('a host process cannot be signalled or inspected', async () => {
        const victim = spawn('sleep', ['60'], { stdio: 'ignore' });
        try {
          const r = await sh(`kill -9 ${victim.pid}; cat /proc/${victim.pid}/environ; echo done`);
          expect(r.stdout).toBe('done\n');
          expect(victim.exitCode).toBeNull();
          expect(victim.signalCode).toBeNull();
          expect(existsSync(`/proc/${victim.pid}`)).toBe(true);
        } finally {
          victim.kill('SIGKILL');
        }
      });

      it('an inherited directory descriptor does not reach the command', async () => {
        const dirFd = openSync(fx.outside, 'r');
        const out = await new Promise<string>((resolve) => {
          const args = [
            ...backend.flags,
            '-q',
            '--',
            'sh',
            '-c',
            'echo pwned > /proc/self/fd/3/planted; echo done',
          ];
          const full =
            uid === undefined
              ? [NODE, CORDON, ...args]
              : [
                  'setpriv',
                  `--reuid=${uid}`,
                  `--regid=${uid}`,
                  '--clear-groups',
                  '--',
                  NODE,
                  CORDON,
                  ...args,
                ];
          const child = spawn(full[0]!, full.slice(1), {
            cwd: fx.ws,
            stdio: ['ignore', 'pipe', 'pipe', dirFd],
            env: env(),
          });
          let text = '';
          child.stdout!.on('data', (c) => {
            text += c;
          });
          child.on('close', () => resolve(text));
        });
        expect(out.endsWith('done\n')).toBe(true);
        expect(existsSync(join(fx.outside, 'planted'))).toBe(false);
      });

      it('a missing or non-executable command gives 127 or 126, with and without --report', async () => {
        writeFileSync(join(fx.ws, 'plain.sh'), 'echo hi\n', { mode: 0o644 });
        chownTo(uid, join(fx.ws, 'plain.sh'));
        const report = ['--report', join(fx.outside, `r-${backend.name}-${uid ?? 0}.json`)];
        for (const extra of [[], report]) {
          expect((await cordon([...extra, '--', 'cordon-missing-command'])).code).toBe(127);
          expect((await cordon([...extra, '--', './plain.sh'])).code).toBe(126);
        }
      });

      it('leaves no placeholder, mount point or temp dir behind', async () => {
        const r = await sh('echo x > "$TMPDIR/f"; echo "$TMPDIR"', ['--deny', 'missing-secret']);
        const tmp = r.stdout.trim();
        // Landlock's private temp dir is a host directory removed after the run; bwrap's /tmp is a
        // tmpfs that ends with the sandbox.
        if (tmp !== '/tmp') expect(existsSync(tmp)).toBe(false);
        expect(existsSync(join(fx.ws, '.cordon'))).toBe(false);
        expect(existsSync(join(fx.ws, 'missing-secret'))).toBe(false);
      });
    },
  );
}
