// Nothing left behind under Landlock: a fork–setsid–exit hopper (each generation forks, the
// parent exits, the child starts a new session) must not outlive the run — through the library
// (helper mode, not a subreaper) and the CLI. As root cordon puts the run in its own cgroup and
// kills it with cgroup.kill; as uid 65534 no cgroup can be created here, and doctor says that
// leftovers then depend on the CLI's subreaper sweep. Checked on the host: no process carrying
// the run's marker is alive afterwards.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { run } from '../../src/run.ts';
import { isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();

// Hops while the keep-alive file given as argv[2] exists (the test removes it afterwards, so a
// failing run does not leave a process spinning; 20 s at most); the parent waits until the
// first generation has started hopping.
const HOPPER = `
import os, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    os.write(w, b"x")
    end = time.monotonic() + 20
    while os.path.exists(sys.argv[2]) and time.monotonic() < end:
        if os.fork():
            os._exit(0)
        os.setsid()
        time.sleep(0.001)
    os._exit(0)
os.read(r, 1)
print("started")
`;

function aliveWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) continue;
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && state !== 'X') pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe.runIf(isRoot && abi > 0)('nothing left behind under Landlock', () => {
  let fx: Fixture;
  beforeAll(() => {
    fx = makeFixture(undefined);
  });
  afterAll(() => rmSync(fx.base, { recursive: true, force: true }));

  it('the library run() (helper, no subreaper): a setsid hopper is gone when run() returns', async () => {
    const marker = `cordon-hopper-lib-${process.pid}`;
    const keep = join(fx.ws, marker);
    writeFileSync(keep, '');
    try {
      const result = await run(['/usr/bin/python3', '-c', HOPPER, marker, keep], {
        backend: 'landlock',
        bestEffort: true,
        cwd: fx.ws,
        env: { PATH: '/usr/bin:/bin' },
      });
      expect(result.stdout.text).toBe('started\n');
      expect(aliveWith(marker)).toEqual([]);
    } finally {
      rmSync(keep, { force: true });
    }
  });

  it('the CLI: a setsid hopper is gone when cordon exits', async () => {
    const marker = `cordon-hopper-cli-${process.pid}`;
    const keep = join(fx.ws, marker);
    writeFileSync(keep, '');
    try {
      const r = await runCli(
        [
          '--backend',
          'landlock',
          '--best-effort',
          '-q',
          '--',
          '/usr/bin/python3',
          '-c',
          HOPPER,
          marker,
          keep,
        ],
        { cwd: fx.ws },
      );
      expect(r.stdout).toBe('started\n');
      expect(aliveWith(marker)).toEqual([]);
    } finally {
      rmSync(keep, { force: true });
    }
  });

  it('where no cgroup can be created (uid 65534 here), doctor says what leftovers depend on', async () => {
    const root = await runCli(['doctor', '--json']);
    const nobody = await runCli(['doctor', '--json'], { asUid: 65534 });
    const check = (out: string) =>
      (JSON.parse(out) as { checks: { name: string; ok: boolean; detail: string }[] }).checks.find(
        (c) => c.name === 'leftover processes',
      );
    expect(check(root.stdout)).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^Landlock runs get their own cgroup/),
    });
    expect(check(nobody.stdout)).toMatchObject({
      ok: false,
      detail: expect.stringMatching(
        /cannot create a cgroup .* a double-forked process can outlive a library run\(\)/,
      ),
    });
  });
});
