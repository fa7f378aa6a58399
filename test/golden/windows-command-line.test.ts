// Windows command-line quoting: a table of exact lines, and a property test that the line
// cordon builds splits back into the same argv under the CommandLineToArgvW / MSVCRT rules,
// implemented here independently of the quoter (parseCommandLine below).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors.ts';
import {
  buildBatchCommandLine,
  buildCommandLine,
  isBatchFile,
  MAX_COMMAND_LINE,
  quoteWindowsArg,
} from '../../src/plan/windows/command-line.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 2000);

/**
 * CommandLineToArgvW as Microsoft documents it ("Parsing C++ command-line arguments"):
 *   argv[0]: up to the next blank, or from an opening quote to the next quote; no escapes.
 *   then, per argument: blanks outside quotes separate; 2n backslashes + " → n backslashes and
 *   the quote toggles quoted mode; 2n+1 backslashes + " → n backslashes and a literal quote;
 *   backslashes not before a quote are literal; inside quotes, "" is a literal quote.
 */
function parseCommandLine(line: string): string[] {
  const argv: string[] = [];
  let i = 0;
  let first = '';
  if (line[0] === '"') {
    i = 1;
    while (i < line.length && line[i] !== '"') first += line[i++];
    if (i < line.length) i++;
  } else {
    while (i < line.length && line[i] !== ' ' && line[i] !== '\t') first += line[i++];
  }
  argv.push(first);
  for (;;) {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
    if (i >= line.length) break;
    let arg = '';
    let quoted = false;
    while (i < line.length) {
      const ch = line[i]!;
      if (!quoted && (ch === ' ' || ch === '\t')) break;
      if (ch === '\\') {
        let n = 0;
        while (line[i] === '\\') {
          n++;
          i++;
        }
        if (line[i] === '"') {
          arg += '\\'.repeat(Math.floor(n / 2));
          if (n % 2 === 1) {
            arg += '"';
            i++;
          }
        } else {
          arg += '\\'.repeat(n);
        }
        continue;
      }
      if (ch === '"') {
        if (quoted && line[i + 1] === '"') {
          arg += '"';
          i += 2;
          continue;
        }
        quoted = !quoted;
        i++;
        continue;
      }
      arg += ch;
      i++;
    }
    argv.push(arg);
  }
  return argv;
}

describe('quoteWindowsArg (table)', () => {
  const table: [string, string][] = [
    ['plain', 'plain'],
    ['a b', '"a b"'],
    ['', '""'],
    ['tab\there', '"tab\there"'],
    ['new\nline', '"new\nline"'],
    ['a"b', '"a\\"b"'],
    ['"', '"\\""'],
    ['a\\b', 'a\\b'],
    ['C:\\dir\\', 'C:\\dir\\'],
    ['C:\\my dir\\', '"C:\\my dir\\\\"'],
    ['a\\"b', '"a\\\\\\"b"'],
    ['a\\\\"b', '"a\\\\\\\\\\"b"'],
    ['\\\\server\\share', '\\\\server\\share'],
    ['%PATH%', '%PATH%'],
    ['a&b|c', 'a&b|c'],
    ['é😀', 'é😀'],
  ];
  it.each(table)('%j → %s', (arg, quoted) => {
    expect(quoteWindowsArg(arg)).toBe(quoted);
    expect(parseCommandLine(`p ${quoted}`)).toEqual(['p', arg]);
  });

  it('refuses NUL', () => {
    expect(() => quoteWindowsArg('a\0b')).toThrow(CordonError);
  });
});

describe('buildCommandLine', () => {
  it('quotes a program name with blanks without escaping', () => {
    expect(buildCommandLine(['C:\\Program Files\\x\\', 'a'])).toBe('"C:\\Program Files\\x\\" a');
  });
  it('refuses a quote in the program name', () => {
    expect(() => buildCommandLine(['a"b', 'x'])).toThrow(/cannot pass it as the first token/);
  });
  it('refuses a line longer than Windows allows', () => {
    expect(() => buildCommandLine(['p', 'x'.repeat(MAX_COMMAND_LINE)])).toThrow(/Windows allows 32766/);
  });
});

describe('round trip (property)', () => {
  const tricky = fc.constantFrom(' ', '\t', '"', '\\', 'a', 'Z', '\n', '\v', '%', '^', '&', 'é', '😀', '=');
  const trickyString = fc.string({ unit: tricky, maxLength: 24 });
  const anyString = fc.string({ unit: 'grapheme', maxLength: 24 }).filter((s) => !s.includes('\0'));
  const program = fc.oneof(trickyString, anyString).filter((s) => !s.includes('"'));

  it('parse(build(argv)) = argv for quote/backslash/blank-heavy argv', () => {
    fc.assert(
      fc.property(program, fc.array(trickyString, { maxLength: 8 }), (p, args) => {
        expect(parseCommandLine(buildCommandLine([p, ...args]))).toEqual([p, ...args]);
      }),
      { numRuns: RUNS },
    );
  });

  it('parse(build(argv)) = argv for arbitrary Unicode argv', () => {
    fc.assert(
      fc.property(program, fc.array(anyString, { maxLength: 8 }), (p, args) => {
        expect(parseCommandLine(buildCommandLine([p, ...args]))).toEqual([p, ...args]);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('batch files', () => {
  it('recognises .bat and .cmd in any case, and the trailing-dot spelling', () => {
    expect([
      isBatchFile('x.BAT'),
      isBatchFile('C:/a/b.Cmd'),
      isBatchFile('x.cmd.'),
      isBatchFile('x.exe'),
    ]).toEqual([true, true, true, false]);
  });
  it('builds cmd /d /s /c with the script quoted and blank or separator arguments quoted', () => {
    expect(
      buildBatchCommandLine('C:\\Windows\\System32\\cmd.exe', 'C:\\t\\b.cmd', ['x', 'a b', 'k=v', 'c;d', '']),
    ).toBe('C:\\Windows\\System32\\cmd.exe /d /e:ON /v:OFF /s /c ""C:\\t\\b.cmd" x "a b" "k=v" "c;d" """');
  });
  it.each(['"', '%PATH%', '!x!', 'a^b', 'a&b', 'a|b', '<in', 'out>', '(x)', 'a\nb', 'a\rb'])(
    'refuses the cmd metacharacter in %j',
    (arg) => {
      expect(() => buildBatchCommandLine('cmd.exe', 'b.bat', [arg])).toThrow(/cmd\.exe interprets/);
    },
  );
});
