// --env-file: the dotenv format as the common loaders read it; errors name the file and line.
import { describe, expect, it } from 'vitest';
import { parseEnvFile } from '../../src/cli/env-file.ts';

describe('--env-file parsing', () => {
  it('reads names, quotes, comments, export and line endings', () => {
    const text = [
      '# a comment',
      '',
      'PLAIN=value',
      'SPACED = padded value   # trailing comment',
      'export EXPORTED=yes',
      "SINGLE='literal \\n $HOME # not a comment'",
      'DOUBLE="two\\nlines \\"quoted\\""',
      'MULTI="first',
      'second"',
      'EMPTY=',
      'URL=https://x.example/#frag',
    ].join('\r\n');
    expect(parseEnvFile(text, '.env')).toEqual({
      PLAIN: 'value',
      SPACED: 'padded value',
      EXPORTED: 'yes',
      SINGLE: 'literal \\n $HOME # not a comment',
      DOUBLE: 'two\nlines "quoted"',
      MULTI: 'first\r\nsecond'.replace('\r', ''),
      EMPTY: '',
      URL: 'https://x.example/#frag',
    });
  });

  it.each([
    ['NOEQUALS', /invalid line in --env-file \.env:1: 'NOEQUALS' — use NAME=VALUE/],
    ['1BAD=x', /invalid line in --env-file \.env:1: '1BAD=x'/],
    ['A="open', /unterminated " quote in --env-file \.env:1 — close the value of A/],
    ["A='x' trailing", /unexpected text after the quoted value of A in --env-file \.env:1/],
  ])('%j is refused', (text, message) => {
    expect(() => parseEnvFile(text, '.env')).toThrow(message);
  });
});
