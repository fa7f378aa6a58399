// Colour hints only when the output is shown on a terminal, never over the user's own choice.
import { describe, expect, it } from 'vitest';
import { colorHints } from '../../src/cli/color-env.ts';

describe('colour hints', () => {
  it('on a terminal: FORCE_COLOR and CLICOLOR_FORCE', () => {
    expect(colorHints({ terminal: true, document: false, env: {} })).toEqual({
      FORCE_COLOR: '1',
      CLICOLOR_FORCE: '1',
    });
  });
  it('none on a pipe, into a JSON document, or with NO_COLOR', () => {
    expect(colorHints({ terminal: false, document: false, env: {} })).toEqual({});
    expect(colorHints({ terminal: true, document: true, env: {} })).toEqual({});
    expect(colorHints({ terminal: true, document: false, env: { NO_COLOR: '1' } })).toEqual({});
  });
  it('a variable the user set, even empty, is theirs', () => {
    expect(
      colorHints({ terminal: true, document: false, env: { FORCE_COLOR: '0', CLICOLOR_FORCE: '' } }),
    ).toEqual({});
    expect(colorHints({ terminal: true, document: false, env: { NO_COLOR: '' } })).toEqual({
      FORCE_COLOR: '1',
      CLICOLOR_FORCE: '1',
    });
  });
});
