// Property: whatever an .npmrc holds, no value of a credential key survives sanitizing, and
// every non-credential key=value line survives unchanged (unless it carried URL userinfo).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NPMRC_SECRET_KEYS, sanitizeNpmrc } from '../../src/cache/npmrc.ts';

const runs = Number(process.env['CORDON_FUZZ_RUNS'] ?? 300);
const secretValue = fc
  .string({ minLength: 1, maxLength: 20 })
  .map((s) => `SECRET${s.replace(/[\r\n]/g, '')}`);
const secretKey = fc
  .tuple(
    fc.constantFrom(...NPMRC_SECRET_KEYS),
    fc.constantFrom('', '//registry.example/:', '//h.example:8080/p/:'),
    fc.boolean(),
  )
  .map(([key, prefix, upper]) => prefix + (upper ? key.toUpperCase() : key));
const plainKey = fc.constantFrom('registry', '@corp:registry', 'strict-ssl', 'cafile', 'fund', 'save-exact');
const plainValue = fc.stringMatching(/^[a-z0-9./:-]{0,20}$/);

describe('sanitizeNpmrc (property)', () => {
  it('drops every credential value and keeps every plain setting', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              secret: fc.constant(true),
              key: secretKey,
              value: secretValue,
              spaced: fc.boolean(),
            }),
            fc.record({ secret: fc.constant(false), key: plainKey, value: plainValue, spaced: fc.boolean() }),
          ),
          { maxLength: 12 },
        ),
        (entries) => {
          const lines = entries.map((e) => (e.spaced ? `${e.key} = ${e.value}` : `${e.key}=${e.value}`));
          const out = sanitizeNpmrc(lines.join('\n'));
          expect(out.text).not.toContain('SECRET');
          const outLines = out.text.split('\n');
          for (const [i, e] of entries.entries()) {
            if (!e.secret && !/:\/\/[^/]*@/.test(e.value)) expect(outLines).toContain(lines[i]);
          }
          expect(out.removed).toHaveLength(entries.filter((e) => e.secret).length);
        },
      ),
      { numRuns: runs },
    );
  });
});
