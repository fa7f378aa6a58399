// Property tests of the output engine (collector + budget split + rendering) over arbitrary
// bytes and chunkings. CORDON_FUZZ_RUNS raises the case count (npm run fuzz: 50,000).
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamCollector } from '../../src/exec/collector.ts';
import { renderStreams, splitBudget } from '../../src/render/budget.ts';
import { renderedSize, toValidUtf8 } from '../../src/render/utf8.ts';
import { renderWindow } from '../../src/render/window.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 5000);

// Bytes biased towards UTF-8 edge cases: multi-byte characters, lone continuation bytes.
const byteArb = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(0x0a, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0xfe, 0x80),
);
const bytesArb = fc.oneof(
  fc.array(byteArb, { maxLength: 600 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'grapheme', maxLength: 200 }).map((s) => Buffer.from(s)),
);

function chunked(data: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(data.subarray(prev, p));
    prev = p;
  }
  out.push(data.subarray(prev));
  return out;
}

function collect(data: Buffer, cuts: number[], capacity: number) {
  const c = new StreamCollector(capacity);
  for (const chunk of chunked(data, cuts)) c.push(chunk);
  return c;
}

const MARKER = /\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/;

describe('collector', () => {
  it('keeps an exact head prefix and tail suffix, never more than twice the capacity', () => {
    fc.assert(
      fc.property(
        bytesArb,
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.integer({ min: 1, max: 300 }),
        (data, cuts, cap) => {
          const c = collect(data, cuts, cap);
          const snap = c.snapshot();
          expect(snap.totalBytes).toBe(data.length);
          expect(c.retainedBytes).toBeLessThanOrEqual(2 * cap);
          expect(snap.head.equals(data.subarray(0, snap.head.length))).toBe(true);
          expect(snap.tail.equals(data.subarray(data.length - snap.tail.length))).toBe(true);
          expect(snap.head.length + snap.tail.length).toBeLessThanOrEqual(data.length);
          expect(snap.head.length).toBe(Math.min(cap, data.length));
          expect(snap.tail.length).toBe(Math.min(cap, data.length - snap.head.length));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('holds no reference to the pushed chunks', () => {
    const chunk = Buffer.from('abcdef');
    const c = new StreamCollector(4);
    c.push(chunk);
    chunk.fill(0x7a);
    const snap = c.snapshot();
    expect(snap.head.toString()).toBe('abcd');
    expect(snap.tail.toString()).toBe('ef');
  });
});

describe('rendering', () => {
  it('fits the budget, is valid UTF-8, keeps a prefix and a suffix, and counts omitted bytes exactly', () => {
    fc.assert(
      fc.property(
        bytesArb,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.integer({ min: 0, max: 400 }),
        (data, cuts, budget) => {
          const cap = Math.max(budget, 1);
          const snap = collect(data, cuts, cap).snapshot();
          const r = renderWindow(snap, budget);
          expect(r.text.length).toBeLessThanOrEqual(budget);
          expect(isUtf8(r.text)).toBe(true);
          expect(r.totalBytes).toBe(data.length);
          const whole = toValidUtf8(data);
          if (!r.truncated) {
            expect(r.text.equals(whole)).toBe(true);
            expect(r.omittedBytes).toBe(0);
            return;
          }
          const text = r.text.toString('utf8');
          const m = MARKER.exec(text);
          if (!m) {
            // budget too small for a marker: nothing shown, everything omitted, flag set
            expect(r.text.length).toBe(0);
            return;
          }
          expect(Number(m[1])).toBe(r.omittedBytes);
          const head = Buffer.from(text.slice(0, m.index));
          const tail = Buffer.from(text.slice(m.index + m[0].length));
          // the head is a rendered prefix of the data, the tail a rendered suffix
          expect(
            whole.subarray(0, head.length).equals(head) ||
              toValidUtf8(data.subarray(0, data.length - r.omittedBytes))
                .subarray(0, head.length)
                .equals(head),
          ).toBe(true);
          expect(text.endsWith(tail.toString('utf8'))).toBe(true);
          const tailRaw = findRawSuffix(data, tail);
          const headRaw = findRawPrefix(data, head);
          expect(headRaw).not.toBeUndefined();
          expect(tailRaw).not.toBeUndefined();
          // kept + omitted = total
          expect(headRaw! + tailRaw! + r.omittedBytes).toBe(data.length);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('returns output that fits byte-for-byte unchanged (valid UTF-8)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat({ max: 100 }),
        (s, cuts, extra) => {
          const data = Buffer.from(s);
          const budget = data.length + extra;
          const snap = collect(data, cuts, Math.max(budget, 1)).snapshot();
          const r = renderWindow(snap, budget);
          expect(r.truncated).toBe(false);
          expect(r.text.equals(data)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('exact fit is identity and one byte less truncates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }), (s) => {
        const data = Buffer.from(s);
        const exact = renderWindow(collect(data, [], data.length).snapshot(), data.length);
        expect(exact.truncated).toBe(false);
        expect(exact.text.equals(data)).toBe(true);
        const less = renderWindow(collect(data, [], data.length).snapshot(), data.length - 1);
        expect(less.truncated).toBe(true);
        expect(less.text.length).toBeLessThanOrEqual(data.length - 1);
      }),
      { numRuns: RUNS },
    );
  });

  it('never splits a multi-byte character at a cut', () => {
    const data = Buffer.from('€'.repeat(1000));
    const r = renderWindow(collect(data, [1, 5, 3001], 101).snapshot(), 101);
    const text = r.text.toString('utf8');
    expect(text).not.toContain('\uFFFD');
    expect(r.truncated).toBe(true);
    const m = MARKER.exec(text)!;
    expect(Number(m[1]) % 3).toBe(0);
  });

  it('counts invalid UTF-8 as rendered U+FFFD bytes', () => {
    const data = Buffer.from([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x20, 0x65, 0x6e, 0x64]);
    expect(renderedSize(data)).toBe(data.length + 4);
    const r = renderWindow(collect(data, [], 100).snapshot(), 100);
    expect(r.text.toString('utf8')).toBe('ok \uFFFD\uFFFD end');
  });
});

describe('budget split', () => {
  it('a quiet stream donates what it does not use; two noisy streams split, odd byte to stderr', () => {
    expect(splitBudget(10, 1000, 101)).toEqual([10, 91]);
    expect(splitBudget(1000, 10, 101)).toEqual([91, 10]);
    expect(splitBudget(1000, 1000, 101)).toEqual([50, 51]);
    expect(splitBudget(undefined, undefined, 100)).toEqual([50, 50]);
    expect(splitBudget(40, 60, 100)).toEqual([40, 60]);
  });

  it('the two rendered streams together fit the combined budget', () => {
    fc.assert(
      fc.property(bytesArb, bytesArb, fc.integer({ min: 1, max: 500 }), (out, err, budget) => {
        const r = renderStreams(
          collect(out, [], budget).snapshot(),
          collect(err, [], budget).snapshot(),
          budget,
        );
        expect(r.stdout.text.length + r.stderr.text.length).toBeLessThanOrEqual(budget);
        if (renderedSize(out) + renderedSize(err) <= budget) {
          expect(r.stdout.truncated || r.stderr.truncated).toBe(false);
        }
        if (renderedSize(out) <= Math.floor(budget / 2)) expect(r.stdout.truncated).toBe(false);
        if (renderedSize(err) <= budget - Math.floor(budget / 2)) expect(r.stderr.truncated).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });
});

function findRawPrefix(data: Buffer, renderedHead: Buffer): number | undefined {
  for (let n = 0; n <= data.length; n++) {
    const r = toValidUtf8(data.subarray(0, n));
    if (r.equals(renderedHead)) return n;
  }
  return undefined;
}

function findRawSuffix(data: Buffer, renderedTail: Buffer): number | undefined {
  for (let n = 0; n <= data.length; n++) {
    const r = toValidUtf8(data.subarray(data.length - n));
    if (r.equals(renderedTail)) return n;
  }
  return undefined;
}
