// The generated Seatbelt rules agree with the policy for every path: random rule sets over a
// small tree, evaluated with Seatbelt's documented semantics (last matching rule wins, default
// deny) by the model in test/helpers/sbpl.ts, compared with policy/access.ts. This checks the
// generator's logic by construction; whether macOS evaluates the same way is for the darwin lane.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildSeatbeltPlan } from '../../src/plan/macos/seatbelt.ts';
import { isWithin, normalizeRules, resolveAccess } from '../../src/policy/access.ts';
import type { Access, PolicyRule, SandboxPolicy } from '../../src/policy/types.ts';
import { isAllowed } from '../helpers/sbpl.ts';
import { resolveCase, SEATBELT_CASES } from '../helpers/seatbelt-cases.ts';

const NAMES = ['a', 'b', 'c'];
const UNIVERSE: string[] = ['/', '/r'];
for (const x of NAMES) {
  UNIVERSE.push(`/r/${x}`);
  for (const y of NAMES) {
    UNIVERSE.push(`/r/${x}/${y}`);
    for (const z of NAMES) UNIVERSE.push(`/r/${x}/${y}/${z}`);
  }
}
const PROBES = [...UNIVERSE, ...UNIVERSE.filter((p) => p !== '/').map((p) => `${p}/new`), '/elsewhere'];
const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 150);

const ruleArb = fc.record({
  path: fc.constantFrom(...UNIVERSE),
  access: fc.constantFrom<Access>('read', 'write', 'none'),
});

function policyOf(raw: readonly { path: string; access: Access }[], privateTmp: boolean): SandboxPolicy {
  const rules: PolicyRule[] = raw.map((r) => ({ ...r, source: { kind: 'flag', flag: '--read' } }));
  return {
    platform: 'darwin',
    rules: normalizeRules(rules),
    network: 'off',
    privateTmp,
    cwd: '/r',
    profile: 'model',
  };
}

/** Writable directories that hold a read-only or denied path: rename/remove must be denied. */
function guarded(rules: readonly PolicyRule[], path: string): boolean {
  return rules.some(
    (c) =>
      c.access !== 'write' &&
      c.path !== path &&
      isWithin(c.path, path) &&
      resolveAccess(rules, path) === 'write',
  );
}

function expectAgreement(policy: SandboxPolicy, privateTmp: boolean) {
  const host = syntheticHost('darwin');
  const plan = buildSeatbeltPlan({ policy, command: ['true'], env: {}, host });
  const rules = policy.rules;
  for (const p of PROBES) {
    const access = resolveAccess(rules, p);
    const got = {
      path: p,
      read: isAllowed(plan, 'file-read-data', p),
      exec: isAllowed(plan, 'process-exec', p),
      map: isAllowed(plan, 'file-map-executable', p),
      create: isAllowed(plan, 'file-write-create', p),
      link: isAllowed(plan, 'file-link', p),
      clone: isAllowed(plan, 'file-clone', p),
      bind: isAllowed(plan, 'network-bind', `${p}/s.sock`),
      connect: isAllowed(plan, 'network-outbound', `${p}/s.sock`),
      data: isAllowed(plan, 'file-write-data', p),
      unlink: isAllowed(plan, 'file-write-unlink', p),
      stat: isAllowed(plan, 'file-read-metadata', p) || access === 'none',
    };
    const want = {
      path: p,
      read: access !== 'none',
      exec: access !== 'none',
      map: access !== 'none',
      create: access === 'write',
      link: access === 'write',
      clone: access !== 'none',
      bind: resolveAccess(rules, `${p}/s.sock`) === 'write',
      connect: resolveAccess(rules, `${p}/s.sock`) === 'write',
      data: access === 'write',
      // With a private temp dir the shared /private/tmp and $TMPDIR are hidden, so their
      // writable ancestors are rename/unlink-guarded like any folder holding a denied path.
      // The builder hides /dev (seatbelt-rules.ts), so a writable `/` holds a denied path too.
      unlink:
        access === 'write' &&
        !guarded(rules, p) &&
        p !== '/' &&
        !(
          privateTmp &&
          ['/private/tmp', host.tmpdir].some((t) => t === p || t.startsWith(p === '/' ? '/' : `${p}/`))
        ),
      stat: true,
    };
    expect(got).toEqual(want);
  }
  if (privateTmp) {
    const dir = plan.privateTmp!.path;
    expect(isAllowed(plan, 'file-write-create', `${dir}/x`)).toBe(true);
    expect(isAllowed(plan, 'file-read-data', `${dir}/x`)).toBe(true);
    expect(isAllowed(plan, 'file-read-data', `${host.tmpdir}/other-app.sock`)).toBe(false);
    expect(isAllowed(plan, 'file-read-data', '/private/tmp/x')).toBe(false);
  }
}

describe('seatbelt rules agree with the policy (model check)', () => {
  it('random rule sets, no private tmp', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 7 }), (raw) => expectAgreement(policyOf(raw, false), false)),
      { numRuns: RUNS },
    );
  });

  it('random rule sets with a private temp dir', () => {
    fc.assert(
      fc.property(fc.array(ruleArb, { maxLength: 7 }), (raw) => expectAgreement(policyOf(raw, true), true)),
      { numRuns: Math.ceil(RUNS / 3) },
    );
  });

  it('nested reopen W=write W/a=none W/a/b=write', () => {
    const policy = policyOf(
      [
        { path: '/r', access: 'write' },
        { path: '/r/a', access: 'none' },
        { path: '/r/a/b', access: 'write' },
      ],
      false,
    );
    expectAgreement(policy, false);
  });

  it('every golden case: protected paths cannot be created, denied paths cannot be read', () => {
    for (const c of SEATBELT_CASES) {
      const { policy, plan } = resolveCase(c);
      for (const rule of policy.rules) {
        // The protected `.cordon` is dropped (nothing reads it): creatable like its root.
        const dropped = rule.source.kind === 'protected' && rule.path.endsWith('/.cordon');
        const canWrite = isAllowed(plan, 'file-write-create', rule.path);
        const canRead = isAllowed(plan, 'file-read-data', `${rule.path}/x`);
        expect({ case: c.name, path: rule.path, canWrite, canRead }).toEqual({
          case: c.name,
          path: rule.path,
          canWrite: rule.access === 'write' || dropped,
          canRead: rule.access !== 'none' || dropped,
        });
      }
    }
  });
});
