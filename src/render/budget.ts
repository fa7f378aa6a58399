// Splits one combined budget (rendered bytes) between stdout and stderr: a stream that fits
// in half keeps what it needs and donates the rest; two noisy streams split evenly, the odd
// byte going to stderr. 0 means unlimited.
import type { CollectedStream } from '../exec/collector.ts';
import { measureWhole, type RenderedStream, renderWindow } from './window.ts';

export interface RenderedPair {
  readonly stdout: RenderedStream;
  readonly stderr: RenderedStream;
}

export function splitBudget(
  stdoutNeed: number | undefined,
  stderrNeed: number | undefined,
  budgetBytes: number,
): [number, number] {
  const outNeed = stdoutNeed ?? Number.POSITIVE_INFINITY;
  const errNeed = stderrNeed ?? Number.POSITIVE_INFINITY;
  if (outNeed + errNeed <= budgetBytes) return [outNeed, errNeed];
  const outHalf = Math.floor(budgetBytes / 2);
  const errHalf = budgetBytes - outHalf;
  if (outNeed <= outHalf) return [outNeed, budgetBytes - outNeed];
  if (errNeed <= errHalf) return [budgetBytes - errNeed, errNeed];
  return [outHalf, errHalf];
}

export function renderStreams(
  stdout: CollectedStream,
  stderr: CollectedStream,
  budgetBytes: number,
): RenderedPair {
  if (budgetBytes === 0) {
    return {
      stdout: renderWindow(stdout, Number.POSITIVE_INFINITY),
      stderr: renderWindow(stderr, Number.POSITIVE_INFINITY),
    };
  }
  const [outBudget, errBudget] = splitBudget(measureWhole(stdout), measureWhole(stderr), budgetBytes);
  return { stdout: renderWindow(stdout, outBudget), stderr: renderWindow(stderr, errBudget) };
}
