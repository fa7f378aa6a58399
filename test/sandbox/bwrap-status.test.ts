// Exact status under bubblewrap, as root and as uid 65534: a signal death is `signaled` with
// the signal's name and an exit of 137 is an exit, as with --backend none; the reporter's
// pipe is not among the command's descriptors (it cannot forge the line).
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canBwrap as bwrapWorks, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

describe.runIf(bwrapWorks && isRoot).each(users)('exact status under bwrap as %s', (_label, uid) => {
  let fx: Fixture;
  beforeAll(() => {
    fx = makeFixture(uid);
  });
  afterAll(() => rmSync(fx.base, { recursive: true, force: true }));
  const json = async (script: string, backend = 'bwrap') => {
    const r = await runCli(['--json', '--backend', backend, '--', 'sh', '-c', script], {
      cwd: fx.ws,
      env: { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
      asUid: uid,
    });
    const doc = JSON.parse(r.stdout);
    return {
      code: r.code,
      status: doc.status,
      exitCode: doc.exitCode,
      signal: doc.signal,
      notes: doc.annotations,
    };
  };

  it('kill -9 $$ is signaled SIGKILL, exit 137 is an exit — the same as unsandboxed', async () => {
    for (const backend of ['bwrap', 'none']) {
      expect(await json('kill -9 $$', backend)).toEqual({
        code: 137,
        status: 'signaled',
        exitCode: null,
        signal: 'SIGKILL',
        notes: [],
      });
      expect(await json('exit 137', backend)).toEqual({
        code: 137,
        status: 'exited',
        exitCode: 137,
        signal: null,
        notes: [],
      });
    }
    expect((await json('kill -TERM $$')).signal).toBe('SIGTERM');
    expect((await json('exit 0')).status).toBe('exited');
  });

  it('the command can neither stop nor kill its reporter, nor forge its line through /proc', async () => {
    // A stopped reporter would hang the run for ever (no timeout here); a killed one would leave
    // the status ambiguous; a forged line would misreport the exit.
    const r = await runCli(
      [
        '--json',
        '--timeout',
        '60s',
        '--',
        'sh',
        '-c',
        'kill -STOP $PPID; kill -9 $PPID; printf "exit 0\\n" > /proc/$PPID/fd/10; exit 5',
      ],
      { cwd: fx.ws, env: { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' }, asUid: uid },
    );
    const doc = JSON.parse(r.stdout);
    expect([doc.status, doc.exitCode, doc.timedOut]).toEqual(['exited', 5, false]);
  });

  it("the command holds no descriptor of the reporter's pipe", async () => {
    // `ls` alone (no pipeline, whose pipes the shell would hold for a moment) lists the shell's fds.
    const r = await runCli(['-q', '--', 'sh', '-c', 'ls /proc/$$/fd'], {
      cwd: fx.ws,
      env: { PATH: '/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
      asUid: uid,
    });
    expect(r.stdout).toBe('0\n1\n2\n');
  });
});
