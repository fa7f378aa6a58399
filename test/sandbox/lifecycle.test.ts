// The grace period on every Linux backend, as root and as uid 65534: on a timeout, and on a
// SIGTERM or SIGINT sent to cordon, the command's own handler gets TERM (or the forwarded
// signal) and the grace to finish its clean-up — under bubblewrap too, whose pid namespace
// would die at once if bwrap itself got the signal. Checked on the host: the handler's file.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { canBwrap as bwrapWorks, CORDON, isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const landlockWorks = (() => {
  try {
    return isLinux && probeLandlockAbi() > 0;
  } catch {
    return false;
  }
})();

// The handler needs 500 ms; the loop's `sleep` gets the signal too and ends at once.
const HANDLER = (sig: string) =>
  `trap 'sleep 0.5; echo cleaned-$1 > cleaned; exit 9' ${sig}; touch started; while :; do sleep 0.1; done`;

const cases: [string, string[], boolean][] = [
  ['bwrap', ['--backend', 'bwrap'], bwrapWorks],
  ['landlock', ['--backend', 'landlock', '--best-effort'], landlockWorks],
];
const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

for (const [backend, flags, available] of cases) {
  describe.runIf(available && isRoot).each(users)(`grace period under ${backend} as %s`, (_label, uid) => {
    let fx: Fixture;
    beforeAll(() => {
      fx = makeFixture(uid);
    });
    afterAll(() => rmSync(fx.base, { recursive: true, force: true }));
    const env = () => ({ PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' });

    it('a timeout sends TERM to the command and waits out its 500 ms clean-up', async () => {
      rmSync(join(fx.ws, 'cleaned'), { force: true });
      const r = await runCli(
        [...flags, '-q', '--timeout', '1s', '--', 'sh', '-c', HANDLER('TERM'), 'sh', 'timeout'],
        { cwd: fx.ws, env: env(), asUid: uid },
      );
      expect(r.code).toBe(124);
      expect(readFileSync(join(fx.ws, 'cleaned'), 'utf8')).toBe('cleaned-timeout\n');
    });

    it('-s INT sends INT first; -k 100ms cuts a 500 ms clean-up short with KILL', async () => {
      rmSync(join(fx.ws, 'cleaned'), { force: true });
      const r = await runCli(
        [...flags, '-q', '-t', '1', '-s', 'INT', '--', 'sh', '-c', HANDLER('INT'), 'sh', 'int'],
        {
          cwd: fx.ws,
          env: env(),
          asUid: uid,
        },
      );
      expect(r.code).toBe(124);
      expect(readFileSync(join(fx.ws, 'cleaned'), 'utf8')).toBe('cleaned-int\n');
      rmSync(join(fx.ws, 'cleaned'), { force: true });
      const cut = await runCli(
        [...flags, '-q', '-t', '1', '-k', '100ms', '--', 'sh', '-c', HANDLER('TERM'), 'sh', 'cut'],
        { cwd: fx.ws, env: env(), asUid: uid },
      );
      expect(cut.code).toBe(124);
      expect(existsSync(join(fx.ws, 'cleaned'))).toBe(false);
    });

    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`${signal} to cordon reaches the command, whose handler finishes`, async () => {
        rmSync(join(fx.ws, 'cleaned'), { force: true });
        rmSync(join(fx.ws, 'started'), { force: true });
        const argv = [
          process.execPath,
          CORDON,
          ...flags,
          '-q',
          '--',
          'sh',
          '-c',
          HANDLER(signal.slice(3)),
          'sh',
          signal,
        ];
        const full =
          uid === undefined
            ? argv
            : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
        const child = spawn(full[0]!, full.slice(1), { cwd: fx.ws, env: env(), stdio: 'ignore' });
        const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        for (let i = 0; i < 200 && !existsSync(join(fx.ws, 'started')); i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(existsSync(join(fx.ws, 'started'))).toBe(true);
        child.kill(signal);
        const code = await exited;
        expect(code).toBe(signal === 'SIGTERM' ? 143 : 130);
        expect(readFileSync(join(fx.ws, 'cleaned'), 'utf8')).toBe(`cleaned-${signal}\n`);
      });
    }
  });
}
