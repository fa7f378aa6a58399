// Property (issue 15 item 6): a --changes line never carries a character a terminal acts on or
// that reorders the text (C0, DEL, C1, bidi marks/embeddings/overrides/isolates, U+2028/9),
// whatever bytes a file name has; and the escaping is reversible, so two names never print alike.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeBytes, escapePath, renderChangeLines } from '../../src/changes/report.ts';

const runs = Number(process.env['CORDON_FUZZ_RUNS'] ?? 500);
const DANGEROUS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;
const special = fc.constantFrom(
  ...[
    0x85, 0x9b, 0x80, 0x9f, 0x61c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067,
    0x2068, 0x2069, 0x2028, 0x2029, 0x1b, 0x0a, 0x0d, 0x7f,
  ].map((c) => String.fromCodePoint(c)),
);
const nameText = fc
  .array(fc.oneof(special, fc.string({ maxLength: 3 }), fc.constantFrom('é', '日本', '\\', 'x')), {
    maxLength: 12,
  })
  .map((parts) => parts.join(''));
const nameBytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));

/** Inverse of escapeBytes, for the reversibility check. */
function unescapeShown(text: string): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < text.length; ) {
    if (text[i] === '\\') {
      const next = text[i + 1];
      if (next === '\\') out.push(Buffer.from('\\'));
      else if (next === 'n') out.push(Buffer.from('\n'));
      else if (next === 't') out.push(Buffer.from('\t'));
      else if (next === 'x') {
        out.push(Buffer.from([Number.parseInt(text.slice(i + 2, i + 4), 16)]));
        i += 4;
        continue;
      } else if (next === 'u') {
        const end = text.indexOf('}', i);
        out.push(Buffer.from(String.fromCodePoint(Number.parseInt(text.slice(i + 3, end), 16)), 'utf8'));
        i = end + 1;
        continue;
      }
      i += 2;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    out.push(Buffer.from(ch, 'utf8'));
    i += ch.length;
  }
  return Buffer.concat(out);
}

describe('--changes escaping (property)', () => {
  it('no dangerous character survives, for text names and raw byte names', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          nameText.map((t) => Buffer.from(t, 'utf8')),
          nameBytes,
        ),
        (bytes) => {
          const shown = escapeBytes(bytes);
          expect(shown).not.toMatch(DANGEROUS);
          expect(unescapeShown(shown).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: runs },
    );
  });

  it('a rendered report line holds exactly one change, with the names escaped', () => {
    fc.assert(
      fc.property(nameText, (name) => {
        const lines = renderChangeLines(
          {
            roots: ['/w'],
            created: 1,
            modified: 0,
            deleted: 0,
            entries: [{ change: 'created', path: `/w/${name}`, type: 'file' }],
            scanMs: { before: 0, after: 0 },
          },
          '/w',
        );
        expect(lines).toHaveLength(2);
        expect(lines[1]).not.toMatch(DANGEROUS);
      }),
      { numRuns: runs },
    );
  });

  it('examples: a right-to-left override and a C1 CSI are shown, not obeyed', () => {
    expect(escapePath('invoice\u202etxt.exe')).toBe('invoice\\u{202e}txt.exe');
    expect(escapePath('a\u009b31mb')).toBe('a\\u{9b}31mb');
    expect(escapePath('line\u2028two')).toBe('line\\u{2028}two');
  });
});
