// When auto falls from bubblewrap to Landlock, one line says so and names what is lost — in the
// run's annotations (text and JSON) and in explain; forced with --backend landlock, nothing.
import { describe, expect, it } from 'vitest';
import { toExitStatus } from '../../src/exec/exit-status.ts';
import type { SpawnOutcome } from '../../src/exec/spawn.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { describeLandlockFallback } from '../../src/plan/linux/fallback.ts';
import { preparePlan } from '../../src/prepare.ts';
import { buildResult } from '../../src/result/build.ts';

const host = syntheticHost('linux', { bwrap: null, landlockAbi: 7 });
const seams = { probe: () => host, platform: 'linux' as const, cwdOverride: host.cwd };
const empty = { head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 0 };
const outcome: SpawnOutcome = {
  started: true,
  exitCode: 0,
  signal: null,
  timedOut: false,
  cancelled: false,
  durationMs: 1,
  stdout: empty,
  stderr: empty,
};
const LINE =
  /^bubblewrap is not usable here \(bubblewrap is not installed[^\n]*\), so Landlock runs the command without a pid, IPC or network namespace: /;

describe('the Landlock fallback line', () => {
  it('auto: one annotation, and explain has it', () => {
    const prepared = preparePlan(['true'], { bestEffort: true, env: { PATH: '/usr/bin' } }, seams);
    expect(prepared.plan.backend).toBe('landlock');
    const result = buildResult({
      prepared,
      launch: { outcome, annotations: [] },
      budget: 65536,
      requestedBackend: 'auto',
      networkFromFlag: false,
      exitStatusOf: toExitStatus,
    });
    expect(result.annotations.filter((a) => LINE.test(a.message))).toHaveLength(1);
    expect(result.stderr.text.match(new RegExp(`cordon: ${LINE.source.slice(1)}`, 'gm'))).toHaveLength(1);
    expect(describeLandlockFallback('auto', prepared.choice)).toMatch(LINE);
  });

  it('forced with --backend landlock: no line', () => {
    const prepared = preparePlan(
      ['true'],
      { backend: 'landlock', bestEffort: true, env: { PATH: '/usr/bin' } },
      seams,
    );
    expect(describeLandlockFallback('landlock', prepared.choice)).toBeUndefined();
  });
});
