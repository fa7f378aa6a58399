// Property tests of the streaming printer over arbitrary bytes, chunkings, interleavings,
// hold-backs and clock readings: per stream, what it writes is toValidUtf8(prefix) [+ the exact
// marker + toValidUtf8(suffix)] within the budget, and output that fits is byte-for-byte the
// whole-result rendering (renderStreams). CORDON_FUZZ_RUNS raises the case count.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamCollector } from '../../src/exec/collector.ts';
import { renderStreams } from '../../src/render/budget.ts';
import { LivePrinter, type LiveWrite, type StreamName } from '../../src/render/live-printer.ts';
import { TerminalFilter } from '../../src/render/terminal-filter.ts';
import { renderedSize, toValidUtf8 } from '../../src/render/utf8.ts';
import { renderOmissionMarker } from '../../src/render/window.ts';
import { offList } from '../helpers/terminal.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 3000);

const byteArb = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(
    0x0a,
    0x1b,
    0x5b,
    0x5d,
    0x07,
    0x6d,
    0x38,
    0xc2,
    0x9b,
    0xc3,
    0xa9,
    0xe2,
    0x82,
    0xac,
    0xf0,
    0x9f,
  ),
);
const bytesArb = fc.oneof(
  fc.array(byteArb, { maxLength: 400 }).map((a) => Buffer.from(a)),
  fc.string({ unit: 'grapheme', maxLength: 120 }).map((s) => Buffer.from(s)),
);

// Escape-heavy text: strings opened in the head and closed in the tail, split sequences.
const escapeTextArb = fc
  .array(
    fc.constantFrom(
      '\x1b]52;c;',
      '\x1bP$q',
      'AAAAAAAAAAAA',
      '\x07',
      '\x1b\\',
      'text\n',
      '\x1b[31m',
      '\x1b[',
      '8m',
      'é',
      '\x1b',
    ),
    { maxLength: 60 },
  )
  .map((parts) => Buffer.from(parts.join('')));

// A string (OSC, DCS) opened early, a long payload, closed late: the cut often falls inside it.
const spanningStringArb = fc
  .tuple(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('\x1b]52;c;', '\x1b]0;', '\x1bP+q'),
    fc.integer({ min: 0, max: 600 }),
    fc.constantFrom('\x07', '\x1b\\'),
    fc.string({ maxLength: 40 }),
  )
  .map(([a, open, n, close, b]) => Buffer.from(`${a}${open}${'A'.repeat(n)}${close}${b}`));

interface Event {
  readonly stream: StreamName;
  readonly size: number;
  readonly holdBack: boolean;
  readonly advanceMs: number;
}
const eventArb = fc.record({
  stream: fc.constantFrom<StreamName>('stdout', 'stderr'),
  size: fc.integer({ min: 0, max: 90 }),
  holdBack: fc.boolean(),
  advanceMs: fc.integer({ min: 0, max: 40_000 }),
});

interface Run {
  writes: LiveWrite[];
  printer: LivePrinter;
  data: Record<StreamName, Buffer>;
}

function drive(
  out: Buffer,
  err: Buffer,
  events: readonly Event[],
  budget: number,
  terminal: boolean,
  allowHoldBack: boolean,
): Run {
  const printer = new LivePrinter({
    budgetBytes: budget,
    terminal: { stdout: terminal, stderr: terminal },
    heartbeatMs: 30_000,
    startedAtMs: 0,
  });
  const writes: LiveWrite[] = [];
  const offset = { stdout: 0, stderr: 0 };
  const data = { stdout: out, stderr: err };
  let now = 0;
  for (const e of [...events, { stream: 'stdout' as const, size: 1e9, holdBack: false, advanceMs: 0 }]) {
    now += e.advanceMs;
    writes.push(...printer.tick(now));
    if (allowHoldBack && e.holdBack) writes.push(...printer.holdBack(now));
    const d = data[e.stream];
    const chunk = d.subarray(offset[e.stream], offset[e.stream] + e.size);
    offset[e.stream] += chunk.length;
    // The runner may read into one reused buffer: nothing written may point into the chunk.
    const reused = Buffer.from(chunk);
    writes.push(...printer.push(e.stream, reused, now));
    reused.fill(0xaa);
  }
  writes.push(...printer.push('stderr', err.subarray(offset.stderr), now));
  writes.push(...printer.end(now));
  return { writes, printer, data };
}

/** The stream's bytes as a reader sees them, with the marker's prefix (ST/CAN/SGR 0) removed. */
function streamText(
  writes: readonly LiveWrite[],
  stream: StreamName,
): { head: Buffer; marker?: string | undefined; tail: Buffer } {
  const head: Buffer[] = [];
  const tail: Buffer[] = [];
  let marker: string | undefined;
  for (const w of writes) {
    if (w.stream !== stream || w.kind === 'line') continue;
    if (w.kind === 'marker') {
      const text = w.bytes.toString('latin1');
      marker = text.slice(text.indexOf('\n[... '));
    } else (marker === undefined ? head : tail).push(w.bytes);
  }
  return { head: Buffer.concat(head), marker, tail: Buffer.concat(tail) };
}

describe('streaming printer (pipes)', () => {
  it('prints prefix + exact marker + suffix within the budget; output that fits is the whole rendering', () => {
    fc.assert(
      fc.property(
        bytesArb,
        bytesArb,
        fc.array(eventArb, { maxLength: 25 }),
        fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 700 })),
        fc.boolean(),
        (out, err, events, budget, allowHoldBack) => {
          const { writes, printer } = drive(out, err, events, budget, false, allowHoldBack);
          const summary = printer.summary();
          let printed = 0;
          for (const stream of ['stdout', 'stderr'] as const) {
            const data = stream === 'stdout' ? out : err;
            const s = summary[stream];
            const t = streamText(writes, stream);
            expect(s.totalBytes).toBe(data.length);
            expect(isUtf8(t.head) && isUtf8(t.tail)).toBe(true);
            if (!s.truncated) {
              expect([t.marker, t.head.equals(toValidUtf8(data))]).toEqual([undefined, true]);
              expect(s.omittedBytes).toBe(0);
            } else {
              expect(s.headBytes + s.tailBytes + s.omittedBytes).toBe(data.length);
              expect(t.head.equals(toValidUtf8(data.subarray(0, s.headBytes)))).toBe(true);
              expect(t.tail.equals(toValidUtf8(data.subarray(data.length - s.tailBytes)))).toBe(true);
              if (t.marker !== undefined) expect(t.marker).toBe(renderOmissionMarker(s.omittedBytes));
            }
            printed += t.head.length + t.tail.length + (t.marker ? Buffer.byteLength(t.marker) : 0);
          }
          if (budget > 0) expect(printed).toBeLessThanOrEqual(budget);
          const fits = budget === 0 || renderedSize(out) + renderedSize(err) <= budget;
          if (fits) {
            // Byte-for-byte what the whole-result rendering prints (today's text mode on a pipe).
            const whole = renderStreams(collect(out, budget), collect(err, budget), budget);
            expect(streamText(writes, 'stdout').head.equals(whole.stdout.text)).toBe(true);
            expect(streamText(writes, 'stderr').head.equals(whole.stderr.text)).toBe(true);
            expect(summary.stdout.truncated || summary.stderr.truncated).toBe(false);
            // cordon's own lines: only heartbeats, never a held-back notice
            for (const w of writes.filter((x) => x.kind === 'line'))
              expect(w.bytes.toString()).toContain('cordon: still running');
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('writes the head of each chunk as it arrives, in arrival order, until the head budget is used', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom<StreamName>('stdout', 'stderr'), fc.string({ maxLength: 30 }))),
        (chunks) => {
          const total = chunks.reduce((n, [, s]) => n + Buffer.byteLength(s), 0);
          const printer = new LivePrinter({
            budgetBytes: 2 * total + 2,
            terminal: { stdout: false, stderr: false },
            heartbeatMs: 30_000,
            startedAtMs: 0,
          });
          for (const [stream, s] of chunks) {
            const w = printer.push(stream, Buffer.from(s), 0);
            expect(w.map((x) => [x.stream, x.bytes.toString()])).toEqual(s === '' ? [] : [[stream, s]]);
          }
          expect(printer.end(0)).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('puts every line of its own after ended strings, reset attributes, on a fresh line', () => {
    fc.assert(
      fc.property(
        bytesArb,
        bytesArb,
        fc.array(eventArb, { maxLength: 25 }),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        (out, err, events, budget, terminal) => {
          const { writes, printer } = drive(out, err, events, budget, terminal, true);
          writes.push(...printer.ownLines(['cordon: exit 1 · 10ms · bwrap, workspace'], 1e9));
          // A viewer of stdout+stderr in one log (or one terminal): its state before each own line.
          const viewer = new TerminalFilter('observe');
          let seen = '';
          for (const w of writes) {
            if (w.kind !== 'output') {
              const at = w.bytes.indexOf(w.kind === 'marker' ? '\n[... ' : 'cordon: ');
              viewer.write(w.bytes.subarray(0, at));
              seen += w.bytes.subarray(0, at).toString('latin1');
              expect([viewer.inString, viewer.inSequence, viewer.attributesDirty]).toEqual([
                false,
                false,
                false,
              ]);
              // Text before the line, without the control sequences: empty or ending in a newline.
              const text = seen.replace(/\x1b\[[0-9;:]*[@-~]|\x1b\\|\x18/g, '');
              if (w.kind === 'line' && text !== '') expect(text.at(-1)).toBe('\n');
              viewer.write(w.bytes.subarray(at));
              seen += w.bytes.subarray(at).toString('latin1');
            } else {
              viewer.write(w.bytes);
              seen += w.bytes.toString('latin1');
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('beats only while holding back, at most once per interval of silence', () => {
    fc.assert(
      fc.property(
        bytesArb,
        fc.array(eventArb, { maxLength: 30 }),
        fc.integer({ min: 1, max: 300 }),
        (out, events, budget) => {
          const { writes } = drive(out, Buffer.alloc(0), events, budget, false, true);
          const beats = writes.filter((w) => w.kind === 'line' && w.bytes.includes('still running'));
          const total = events.reduce((n, e) => n + e.advanceMs, 0);
          expect(beats.length).toBeLessThanOrEqual(Math.floor(total / 30_000));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

describe('streaming printer (terminals)', () => {
  it("filters the tail in the stream's true state across the cut (as if the terminal had seen it all)", () => {
    fc.assert(
      fc.property(
        fc.oneof(bytesArb, escapeTextArb, spanningStringArb),
        fc.array(eventArb, { maxLength: 25 }),
        fc.integer({ min: 1, max: 300 }),
        (out, events, budget) => {
          const only = events.map((e) => ({ ...e, stream: 'stdout' as const }));
          const { writes, printer } = drive(out, Buffer.alloc(0), only, budget, true, true);
          const s = printer.summary().stdout;
          if (!s.truncated || s.tailBytes === 0) return;
          const cut = out.length - s.tailBytes;
          const reference = new TerminalFilter('filter');
          reference.advance(toValidUtf8(out.subarray(0, cut)));
          const expected = reference.write(toValidUtf8(out.subarray(cut)));
          expect(streamText(writes, 'stdout').tail.equals(expected)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('writes the filtered bytes: plain text as on a pipe, never a sequence off the allow-list', () => {
    fc.assert(
      fc.property(
        bytesArb,
        bytesArb,
        fc.array(eventArb, { maxLength: 25 }),
        fc.integer({ min: 0, max: 500 }),
        (out, err, events, budget) => {
          const tty = drive(out, err, events, budget, true, false);
          for (const w of tty.writes) expect(offList(w.bytes)).toEqual([]);
          const plain = (b: Buffer) => Buffer.from([...b].filter((x) => x >= 0x20 && x < 0x7f));
          const pipe = drive(plain(out), plain(err), events, budget, false, false);
          const ttyPlain = drive(plain(out), plain(err), events, budget, true, false);
          const text = (r: Run) => r.writes.filter((w) => w.kind === 'output').map((w) => w.bytes.toString());
          expect(text(ttyPlain)).toEqual(text(pipe));
        },
      ),
      { numRuns: RUNS },
    );
  });
});

function collect(data: Buffer, budget: number) {
  const c = new StreamCollector(budget);
  c.push(data);
  return c.snapshot();
}
