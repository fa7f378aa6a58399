// The pure result builder: an outcome + a prepared run (synthetic host, no processes) → the
// whole RunResult, compared as one object, in the manner of execa's lib/return tests.
import { describe, expect, it } from 'vitest';
import type { LaunchResult } from '../../src/backends/types.ts';
import type { CollectedStream } from '../../src/exec/collector.ts';
import { toExitStatus } from '../../src/exec/exit-status.ts';
import type { SpawnOutcome } from '../../src/exec/spawn.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { preparePlan } from '../../src/prepare.ts';
import { buildResult, withAnnotations } from '../../src/result/build.ts';
import { classifyOutcome } from '../../src/result/classify.ts';

const host = syntheticHost('linux');
const seams = { probe: () => host, platform: 'linux' as const, cwdOverride: host.cwd };
const stream = (text: string): CollectedStream => ({
  head: Buffer.from(text),
  tail: Buffer.alloc(0),
  totalBytes: Buffer.byteLength(text),
});
const outcome = (fields: Partial<SpawnOutcome>): SpawnOutcome => ({
  started: true,
  pid: 42,
  exitCode: 0,
  signal: null,
  timedOut: false,
  cancelled: false,
  durationMs: 12.4,
  stdout: stream(''),
  stderr: stream(''),
  ...fields,
});
const launched = (o: SpawnOutcome, extra: Partial<LaunchResult> = {}): LaunchResult => ({
  outcome: o,
  annotations: [],
  ...extra,
});
const build = (backend: 'none' | 'bwrap', l: LaunchResult, budget = 64 * 1024) =>
  buildResult({
    prepared: preparePlan(['make', 'test'], { backend, env: { PATH: '/usr/bin' } }, seams),
    launch: l,
    budget,
    requestedBackend: backend,
    networkFromFlag: false,
    exitStatusOf: toExitStatus,
  });

const common = {
  version: 1,
  command: ['make', 'test'],
  cwd: '/home/user/project',
  durationMs: 12,
  droppedEnv: [],
  cache: null,
  notEnforced: [],
  limits: [],
  limit: null,
};

describe('result builder', () => {
  it('a clean exit under --backend none', () => {
    expect(
      build('none', launched(outcome({ exitCode: 3, stdout: stream('out\n'), stderr: stream('err\n') }))),
    ).toEqual({
      ...common,
      backend: 'none',
      profile: 'none',
      started: true,
      status: 'exited',
      exitCode: 3,
      signal: null,
      timedOut: false,
      cancelled: false,
      exitStatus: 3,
      stdout: { text: 'out\n', totalBytes: 4, omittedBytes: 0, truncated: false },
      stderr: { text: 'err\n', totalBytes: 4, omittedBytes: 0, truncated: false },
      annotations: [],
    });
  });

  it("a wrapper's exec failure is not-found, with a note joined to stderr inside the budget", () => {
    const l = launched(
      outcome({ exitCode: 1, stderr: stream('bwrap: execvp make: No such file or directory\n') }),
      {
        execFailure: 'not-found',
      },
    );
    const r = build('bwrap', l);
    expect(r).toEqual({
      ...common,
      cache: {
        mode: 'unavailable',
        dir: null,
        env: [],
        reason: 'not set up: workspace (a synthetic host has no directories to create)',
      },
      backend: 'bwrap',
      profile: 'workspace',
      started: false,
      status: 'not-found',
      exitCode: null,
      signal: null,
      timedOut: false,
      cancelled: false,
      exitStatus: 127,
      stdout: { text: '', totalBytes: 0, omittedBytes: 0, truncated: false },
      stderr: {
        text: 'bwrap: execvp make: No such file or directory\ncordon: command not found: make\n',
        totalBytes: 46,
        omittedBytes: 0,
        truncated: false,
      },
      annotations: [{ kind: 'note', message: 'command not found: make' }],
    });
  });

  it('a timeout wins over the exit code; the signal is kept', () => {
    const r = build('none', launched(outcome({ exitCode: null, signal: 'SIGTERM', timedOut: true })));
    expect({ status: r.status, exitCode: r.exitCode, signal: r.signal, exitStatus: r.exitStatus }).toEqual({
      status: 'timed-out',
      exitCode: null,
      signal: 'SIGTERM',
      exitStatus: 124,
    });
  });

  it('a spawn failure says why and exits 125; the backend annotations come before denials', () => {
    const r = build(
      'none',
      launched(
        outcome({ started: false, failure: 'spawn-failed', failureMessage: 'EMFILE', exitCode: null }),
        {
          annotations: [{ kind: 'warning', message: 'from the backend' }],
        },
      ),
    );
    expect(r.annotations).toEqual([
      { kind: 'warning', message: 'could not start the command: EMFILE' },
      { kind: 'warning', message: 'from the backend' },
    ]);
    expect([r.status, r.started, r.exitStatus]).toEqual(['spawn-failed', false, 125]);
  });

  it('classifies in order: never started, stopped by cordon, signal, wrapper failure, exit', () => {
    expect(classifyOutcome(outcome({ started: false, cancelled: true }), undefined)).toBe('cancelled');
    expect(classifyOutcome(outcome({ started: false, failure: 'not-found' }), undefined)).toBe('not-found');
    expect(classifyOutcome(outcome({ timedOut: true, cancelled: true }), undefined)).toBe('timed-out');
    expect(classifyOutcome(outcome({ cancelled: true, signal: 'SIGINT' }), undefined)).toBe('cancelled');
    expect(classifyOutcome(outcome({ signal: 'SIGKILL', exitCode: null }), 'not-found')).toBe('signaled');
    expect(classifyOutcome(outcome({ exitCode: 126 }), 'not-executable')).toBe('not-executable');
    expect(classifyOutcome(outcome({ exitCode: 1 }), undefined)).toBe('exited');
  });

  it('annotations join the tail of stderr and count in its total', () => {
    const s = withAnnotations(stream('x'), [{ kind: 'note', message: 'n' }]);
    expect({ head: s.head.toString(), tail: s.tail.toString(), totalBytes: s.totalBytes }).toEqual({
      head: 'x',
      tail: 'cordon: n\n',
      totalBytes: 11,
    });
  });
});
