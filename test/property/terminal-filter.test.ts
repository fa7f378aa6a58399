// The terminal allow-list filter and the incremental UTF-8 sanitizer: chunk-independent over
// arbitrary bytes, nothing off the list ever written, and the named attacks (forged verdict,
// OSC 52, terminal queries) dropped while colours and cursor movement pass.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TerminalFilter } from '../../src/render/terminal-filter.ts';
import { toValidUtf8 } from '../../src/render/utf8.ts';
import { Utf8Sanitizer } from '../../src/render/utf8-stream.ts';
import { offList } from '../helpers/terminal.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 3000);
const byteArb = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(
    0x1b,
    0x5b,
    0x5d,
    0x50,
    0x5f,
    0x5c,
    0x07,
    0x18,
    0x3f,
    0x3b,
    0x6d,
    0x31,
    0xc2,
    0x9b,
    0x9d,
    0x0a,
  ),
);
const bytesArb = fc.array(byteArb, { maxLength: 500 }).map((a) => Buffer.from(a));

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

const filter = (s: string | Buffer) => new TerminalFilter('filter').write(Buffer.from(s)).toString('latin1');

describe('terminal filter', () => {
  it('gives the same bytes and state whatever the chunking, and writes nothing off the list', () => {
    fc.assert(
      fc.property(bytesArb, fc.array(fc.nat(), { maxLength: 30 }), (data, cuts) => {
        const whole = new TerminalFilter('filter');
        const expected = whole.write(data);
        const parts = new TerminalFilter('filter');
        const got = Buffer.concat(chunked(data, cuts).map((c) => parts.write(c)));
        expect(got.equals(expected)).toBe(true);
        expect(offList(got)).toEqual([]);
        const a = new TerminalFilter('observe');
        const b = new TerminalFilter('observe');
        expect(a.write(data).equals(data)).toBe(true);
        for (const c of chunked(data, cuts)) b.write(c);
        expect([b.inString, b.inSequence, b.attributesDirty]).toEqual([
          a.inString,
          a.inSequence,
          a.attributesDirty,
        ]);
        expect([parts.inString, parts.inSequence]).toEqual([a.inString, a.inSequence]);
      }),
      { numRuns: RUNS },
    );
  });

  it('passes text, CR/LF/TAB/BS, SGR and cursor/erase CSI unchanged', () => {
    const ok = 'plain é € 😀\r\n\tx\b\x1b[1;31mred\x1b[0m \x1b[2K\x1b[1G\x1b[3A\x1b[10;5H\x1b[J\x1b[38:5:1m';
    expect(filter(ok)).toBe(Buffer.from(ok).toString('latin1'));
  });

  it.each([
    ['OSC 52 clipboard', 'a\x1b]52;c;ZWNobyBwd25lZA==\x07b', 'ab'],
    ['OSC 52 with ST', 'a\x1b]52;c;ZWNobw==\x1b\\b', 'ab'],
    ['unterminated OSC swallows', 'a\x1b]0;cordon: exit 0', 'a'],
    ['DSR cursor query', 'a\x1b[6nb', 'ab'],
    ['DA query', 'a\x1b[cb\x1b[>cc', 'abc'],
    ['DECRQSS', 'a\x1bP$qm\x1b\\b', 'ab'],
    ['XTGETTCAP', 'a\x1bP+q544e\x1b\\b', 'ab'],
    ['OSC 4/10/11 colour queries', 'a\x1b]4;1;?\x07\x1b]10;?\x07\x1b]11;?\x1b\\b', 'ab'],
    ['mode changes', 'a\x1b[?1049h\x1b[?25l\x1b[4hb', 'ab'],
    ['DECRQM', 'a\x1b[?2026$pb', 'ab'],
    ['window ops and title report', 'a\x1b[21tb\x1b[8;1;1tc', 'abc'],
    ['APC/PM/SOS', 'a\x1b_x\x1b\\\x1b^y\x1b\\\x1bXz\x1b\\b', 'ab'],
    ['charset switch and RIS', 'a\x1b(0\x0e\x1bc\x1b7\x1b8b', 'ab'],
    ['C1 controls in UTF-8', 'a\u009b6n\u009d52;c;x\u0007b', 'a6n52;c;xb'],
    ['scroll region', 'a\x1b[1;2rb', 'ab'],
    ['BEL and other C0', 'a\x07\x00\x0b\x0cb', 'ab'],
  ])('drops %s', (_name, input, expected) => {
    expect(filter(input)).toBe(expected);
  });

  it('keeps the string state across chunks: a split OSC is still dropped', () => {
    const f = new TerminalFilter('filter');
    const got = ['a\x1b', ']52;c;', 'ZWNobw', '==\x1b', '\\b']
      .map((c) => f.write(Buffer.from(c)).toString())
      .join('');
    expect(got).toBe('ab');
  });

  it('tracks what a log viewer is inside of', () => {
    const f = new TerminalFilter('observe');
    f.write(Buffer.from('x\x1b]0;title'));
    expect([f.inString, f.inSequence]).toEqual([true, false]);
    f.write(Buffer.from('\x07\x1b[8m'));
    expect([f.inString, f.attributesDirty]).toEqual([false, true]);
    f.write(Buffer.from('\x1b[0m\x1b['));
    expect([f.inSequence, f.attributesDirty]).toEqual([true, false]);
  });
});

describe('incremental UTF-8 sanitizer', () => {
  it('equals toValidUtf8 of the whole, whatever the chunking', () => {
    const utf8Arb = fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80),
      ),
      { maxLength: 300 },
    );
    fc.assert(
      fc.property(utf8Arb, fc.array(fc.nat(), { maxLength: 30 }), (bytes, cuts) => {
        const data = Buffer.from(bytes);
        const s = new Utf8Sanitizer();
        const got = Buffer.concat([...chunked(data, cuts).map((c) => s.push(c)), s.flush()]);
        expect(got.equals(toValidUtf8(data))).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });
});
