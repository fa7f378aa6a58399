// Golden files for the Seatbelt plan: the complete profile and argv for each case in
// test/helpers/seatbelt-cases.ts, built from synthetic darwin hosts. Plus the structural
// checker over every golden. Nothing here runs sandbox-exec (see test/sandbox/seatbelt.test.ts).
import { describe, expect, it } from 'vitest';
import { SEATBELT_BASE_PROFILE } from '../../src/plan/macos/seatbelt-base.ts';
import { checkSeatbeltPlan, readSbpl, stringLiterals } from '../helpers/sbpl.ts';
import { renderGolden, resolveCase, SEATBELT_CASES } from '../helpers/seatbelt-cases.ts';

describe('seatbelt golden plans', () => {
  for (const c of SEATBELT_CASES) {
    it(`${c.name}: complete profile and args`, async () => {
      const { policy, plan } = resolveCase(c);
      await expect(renderGolden(c, policy, plan)).toMatchFileSnapshot(
        `./__snapshots__/seatbelt-${c.name}.txt`,
      );
    });
  }
});

describe('seatbelt structure (every golden)', () => {
  for (const c of SEATBELT_CASES) {
    it(`${c.name}: parses, every param defined and used, no raw paths, documented order`, () => {
      const { policy, plan } = resolveCase(c);
      // The builder's own /dev rule is also a literal of the static base; user paths never are.
      const base = new Set(stringLiterals(readSbpl(SEATBELT_BASE_PROFILE)));
      const paths = [...policy.rules.map((r) => r.path), ...Object.values(plan.params)].filter(
        (p) => !base.has(p),
      );
      expect(checkSeatbeltPlan(plan, paths, SEATBELT_BASE_PROFILE.trimEnd())).toEqual([]);
      // -D values are exactly the params, in order, then -- and the command unchanged.
      const sep = plan.args.indexOf('--');
      expect(plan.args.slice(2, sep)).toEqual(Object.entries(plan.params).map(([k, v]) => `-D${k}=${v}`));
      expect(plan.args.slice(sep + 1)).toEqual(c.command ?? ['echo', 'hi']);
    });
  }

  it('the static base parses on its own and names no user path', () => {
    const forms = readSbpl(SEATBELT_BASE_PROFILE);
    expect(forms.length).toBeGreaterThan(10);
    expect(SEATBELT_BASE_PROFILE).not.toMatch(/\/Users|\/home|\/Volumes/);
  });

  it('a path that looks like SBPL stays a parameter value', () => {
    const c = SEATBELT_CASES.find((x) => x.name === 'odd-path-names')!;
    const { plan } = resolveCase(c);
    expect(plan.profile).not.toContain('(allow default');
    expect(Object.values(plan.params)).toContain('/Users/user/my project/secret) (allow default');
    expect(Object.values(plan.params)).toContain('/Users/user/line\nbreak');
  });
});
