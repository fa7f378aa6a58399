// The fast paths of fitPrefix / fitSuffix (valid text: cut, then back off to a boundary) give
// exactly what a unit-by-unit scan gives, for arbitrary bytes (mostly-valid text with invalid
// and truncated sequences mixed in) and budgets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitPrefix, fitSuffix, scanUnit, tailStart } from '../../src/render/utf8.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 5000);

function scanPrefix(bytes: Uint8Array, budget: number, dropIncompleteEnd: boolean) {
  let raw = 0;
  let rendered = 0;
  while (raw < bytes.length) {
    const u = scanUnit(bytes, raw);
    if (!u.complete && dropIncompleteEnd) break;
    const size = u.valid ? u.length : 3;
    if (rendered + size > budget) break;
    rendered += size;
    raw += u.length;
  }
  return { rawBytes: raw, renderedBytes: rendered };
}

function scanSuffix(bytes: Uint8Array, start: number, budget: number) {
  const units: [number, number][] = [];
  for (let i = start; i < bytes.length; ) {
    const u = scanUnit(bytes, i);
    units.push([i, u.valid ? u.length : 3]);
    i += u.length;
  }
  let rendered = 0;
  let k = units.length;
  while (k > 0 && rendered + units[k - 1]![1] <= budget) rendered += units[--k]![1];
  const from = k < units.length ? units[k]![0] : bytes.length;
  return { rawBytes: bytes.length - from, renderedBytes: rendered };
}

const text = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }).map((s) => Buffer.from(s)) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)) },
    ),
    { maxLength: 20 },
  )
  .map((parts) => Buffer.concat(parts));

describe('UTF-8 fitting: fast path = scan', () => {
  it('fitPrefix', () => {
    fc.assert(
      fc.property(text, fc.nat(200), fc.boolean(), (bytes, budget, drop) => {
        expect(fitPrefix(bytes, budget, drop)).toEqual(scanPrefix(bytes, budget, drop));
      }),
      { numRuns: RUNS },
    );
  });

  it('fitSuffix from a unit boundary', () => {
    fc.assert(
      fc.property(text, fc.nat(200), fc.nat(40), (bytes, budget, at) => {
        const start = Math.min(
          bytes.length,
          tailStart(bytes.subarray(Math.min(at, bytes.length))) + Math.min(at, bytes.length),
        );
        const aligned = start === 0 ? tailStart(bytes) : start;
        expect(fitSuffix(bytes, aligned, budget)).toEqual(scanSuffix(bytes, aligned, budget));
      }),
      { numRuns: RUNS },
    );
  });
});
