// Property (issue 15 item 5): the sanitized ~/.npmrc copy, read back by npm's own parser (the
// `ini` package npm uses), holds no credential, whatever the line endings (LF, CRLF, CR only,
// mixed, runs of them), a byte-order mark, leading Unicode spaces, quoted or commented keys;
// and every plain setting reads back with the value npm read from the original.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NPMRC_SECRET_KEYS, sanitizeNpmrc } from '../../src/cache/npmrc.ts';

const ini = createRequire(import.meta.url)('ini') as { decode(text: string): Record<string, unknown> };
const runs = Number(process.env['CORDON_FUZZ_RUNS'] ?? 300);

const eol = fc.constantFrom('\n', '\r\n', '\r', '\n\r', '\r\r', '\n\n', '\r\n\r\n');
const lead = fc.constantFrom('', ' ', '\t', '\u00a0', '\ufeff', '\u2003');
const scope = fc.constantFrom('', '//registry.example/:', '//h.example:8080/p/:', '@corp:');
const secretName = fc
  .tuple(fc.constantFrom(...NPMRC_SECRET_KEYS), fc.boolean())
  .map(([k, up]) => (up ? k.toUpperCase() : k));
// Ways of writing one key that npm reads as the same key.
const spell = (key: string) =>
  fc.constantFrom(
    key,
    `"${key}"`,
    `'${key}'`,
    `${key} `,
    `${key} ;note`,
    `${key}#x`,
    `"${key.replace('_', '\\u005f')}"`,
  );
const secretValue = fc.stringMatching(/^[A-Za-z0-9+/]{1,16}$/).map((s) => `SECRET${s}`);

interface Entry {
  readonly line: string;
  readonly key: string;
  readonly secret: boolean;
}

const secretEntry = fc
  .tuple(lead, scope, secretName, secretValue, fc.boolean())
  .chain(([l, sc, name, v, spaced]) =>
    spell(sc + name).map(
      (k): Entry => ({ line: `${l}${k}${spaced ? ' = ' : '='}${v}`, key: sc + name, secret: true }),
    ),
  );
const plainEntry = fc
  .tuple(
    lead,
    fc.constantFrom('registry', '@corp:registry', 'strict-ssl', 'cafile', 'fund', 'save-exact'),
    fc.stringMatching(/^[a-z0-9./:-]{1,20}$/),
  )
  .map(([l, k, v]): Entry => ({ line: `${l}${k}=${v}`, key: k, secret: false }));
const commentEntry = fc
  .tuple(fc.constantFrom(';', '#', ' ;', '\t#'), secretName, secretValue)
  .map(([c, k, v]): Entry => ({ line: `${c}${k}=${v}`, key: '', secret: true }));

function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(k, ...allStrings(v));
  return out;
}

describe('sanitizeNpmrc read back by npm (property)', () => {
  it('no credential survives any line ending, and plain settings keep their values', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(secretEntry, plainEntry, commentEntry), { minLength: 1, maxLength: 10 }),
        fc.array(eol, { minLength: 10, maxLength: 10 }),
        fc.boolean(),
        (entries, eols, bom) => {
          const text = (bom ? '\ufeff' : '') + entries.map((e, i) => e.line + eols[i]).join('');
          const original = ini.decode(text);
          const sanitized = sanitizeNpmrc(text).text;
          const back = ini.decode(sanitized);
          expect(allStrings(back).join('\n')).not.toContain('SECRET');
          // Later lines win in ini, so compare what npm saw for each plain key.
          for (const e of entries) if (!e.secret) expect(back[e.key]).toEqual(original[e.key]);
        },
      ),
      { numRuns: runs },
    );
  });

  it('the CR-only file of the report: its token is gone', () => {
    const text = 'registry=https://r.example/\r//r.example/:_authToken=SECRETabc\ralways-auth=true\r';
    expect(ini.decode(text)['//r.example/:_authToken']).toBe('SECRETabc');
    const back = ini.decode(sanitizeNpmrc(text).text);
    expect(back).toEqual({ registry: 'https://r.example/', 'always-auth': true });
  });

  it('a URL credential hidden by JSON escapes in a quoted value is cut too', () => {
    const text = 'proxy="http://bob:SECRETpw\\u0040proxy.example:3128/"\n';
    expect(ini.decode(text)['proxy']).toBe('http://bob:SECRETpw@proxy.example:3128/');
    const out = sanitizeNpmrc(text);
    expect(ini.decode(out.text)['proxy']).toBe('http://proxy.example:3128/');
    expect(out.redacted).toEqual(['proxy']);
  });
});
