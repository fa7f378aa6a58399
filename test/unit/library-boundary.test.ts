// The library boundary: every option is checked once, before anything runs; the public surface
// is pinned (names and types).
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as cordon from '../../src/index.ts';
import { CordonError, explain, type RunOptions, type RunResult, run } from '../../src/index.ts';

const rejects = async (call: () => Promise<unknown>, code: string, message: RegExp) => {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CordonError);
  expect((error as CordonError).code).toBe(code);
  expect((error as CordonError).message).toMatch(message);
};

describe('library boundary', () => {
  it('a string command is refused with the argv form to use', async () => {
    await rejects(
      () => run('echo hi' as unknown as string[]),
      'bad-command',
      /must be an argv array, not a string: got 'echo hi' — pass \["echo","hi"\], or \['sh', '-c', "echo hi"\]/,
    );
    await rejects(() => run(null as unknown as string[]), 'bad-command', /array of strings/);
    await rejects(() => run([]), 'missing-command', /no command given/);
    await rejects(() => run(['a\0b']), 'bad-command', /NUL/);
  });

  it.each([
    [{ timeoutMs: -1 }, /invalid value for option timeoutMs: -1 — use an integer number of milliseconds/],
    [{ timeoutMs: '10s' }, /invalid value for option timeoutMs: '10s'/],
    [{ timeoutMs: 1e12 }, /invalid value for option timeoutMs: 1000000000000/],
    [{ maxOutputBytes: -5 }, /invalid value for option maxOutputBytes: -5/],
    [{ backend: 'docker' }, /invalid value for option backend: 'docker' — use one of auto, none, bwrap/],
    [{ tiemoutMs: 5 }, /unknown option 'tiemoutMs' — did you mean 'timeoutMs'\?/],
    [{ read: 'src' }, /invalid value for option read: 'src' — use an array of non-empty strings/],
    [{ signal: {} }, /invalid value for option signal: \{\} — use an AbortSignal/],
    [{ changes: { maxFiles: -1 } }, /invalid value for option changes/],
  ])('%j is refused before anything runs', async (options, message) => {
    await rejects(() => run(['true'], options as RunOptions), 'bad-option', message);
    expect(() => explain(['true'], options as RunOptions)).toThrow(message);
  });

  it('timeoutMs: 0 means no timeout, as the CLI', async () => {
    const r = await run(['true'], { backend: 'none', timeoutMs: 0 });
    expect([r.status, r.timedOut, r.exitStatus]).toEqual(['exited', false, 0]);
  });

  it('exports exactly the documented names', () => {
    expect(Object.keys(cordon).sort()).toEqual(['CordonError', 'explain', 'isCordonError', 'run']);
  });

  it('types of the public surface', () => {
    expectTypeOf(run).parameter(0).toEqualTypeOf<readonly string[]>();
    expectTypeOf(run).parameter(1).toEqualTypeOf<RunOptions | undefined>();
    expectTypeOf(run).returns.toEqualTypeOf<Promise<RunResult>>();
    expectTypeOf<RunResult['status']>().toEqualTypeOf<cordon.RunStatus>();
    expectTypeOf<RunOptions['timeoutMs']>().toEqualTypeOf<number | undefined>();
  });
});
