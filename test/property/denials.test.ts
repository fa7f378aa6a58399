// Property: a denial is only ever reported where the policy refuses that access, and the
// fix it names, added as a flag, makes the policy allow it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDenials } from '../../src/denials/explain.ts';
import { withFlagRule } from '../../src/denials/fix.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { resolveAccess } from '../../src/policy/access.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 300);
const CWD = '/home/user/project';
const host = syntheticHost('linux');

const segment = fc.constantFrom(
  'a',
  'b',
  '.ssh',
  '.git',
  'etc',
  'tmp',
  'usr',
  'x y',
  'home',
  'user',
  'project',
  '..',
);
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);
const template = fc.constantFrom(
  (p: string) => `touch: cannot touch '${p}': Read-only file system`,
  (p: string) => `cat: ${p}: Permission denied`,
  (p: string) => `Error: EACCES: permission denied, open '${p}'`,
  (p: string) => `mkdir: cannot create directory ‘${p}’: Operation not permitted`,
  (p: string) => `ls: cannot access '${p}': No such file or directory`,
  (p: string) => `rm: cannot remove '${p}': Read-only file system`,
);
const profile = fc.constantFrom('workspace', 'strict', 'read-only');

describe('findDenials (property)', () => {
  it('reports only what the policy refuses, with a fix the policy then allows', () => {
    fc.assert(
      fc.property(profile, fc.array(fc.tuple(template, path), { maxLength: 6 }), (name, lines) => {
        const policy = resolvePolicy(loadProfile(name, CWD), { read: [], write: [], deny: [] }, host, CWD);
        const ctx = {
          policy,
          home: host.home,
          networkFromFlag: false,
          privateDirs: ['/tmp'],
          kindOf: host.kind,
        };
        const text = lines.map(([t, p]) => t(p)).join('\n');
        for (const d of findDenials(text, ctx).denials) {
          const access = resolveAccess(policy.rules, d.path!);
          const need = d.operation === 'read' ? 'read' : 'write';
          // A read is refused only by none; a write or create by anything but write.
          if (need === 'read') expect(access).toBe('none');
          else expect(access).not.toBe('write');
          if (d.fix !== undefined) {
            const target = d.fix
              .replace(/^--(read|write) /, '')
              .replace(/^'(.*)'$/, '$1')
              .replace(/^~/, host.home);
            const after = resolveAccess(withFlagRule(policy.rules, target, need), d.path!);
            expect(need === 'read' ? after !== 'none' : after === 'write').toBe(true);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
