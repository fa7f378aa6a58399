// Property (issue 15 item 8, issue 18): a denial hint is built from text the command printed,
// so a hostile command can claim any denial. Whatever it claims, the suggested flag — added
// the way resolvePolicy adds it — never makes home, a persistence point, a system directory,
// git metadata or cordon configuration writable, never changes the access to a credential
// store, and the message always says it was inferred from the command's output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findDenials } from '../../src/denials/explain.ts';
import { withFlagRule } from '../../src/denials/fix.ts';
import { credentialPaths, PERSISTENCE_POINTS } from '../../src/denials/safe-fix.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { isWithin, resolveAccess } from '../../src/policy/access.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const RUNS = Number(process.env['CORDON_FUZZ_RUNS'] ?? 400);
const HOME = '/home/user';
const CWD = `${HOME}/project`;
const POINTS = PERSISTENCE_POINTS.map((p) => `${HOME}/${p}`);
const CREDS = credentialPaths(HOME);
const DANGEROUS = [
  HOME,
  '/home',
  '/',
  '/etc',
  '/etc/cron.d/job',
  '/usr/local/bin/tool',
  `${CWD}/.git`,
  `${CWD}/.git/hooks/pre-commit`,
  `${CWD}/.cordon/profile.yaml`,
  '/srv/other/.git/hooks/post-checkout',
  `${HOME}/.config`,
  `${HOME}/.cache`,
  ...POINTS,
  ...POINTS.map((p) => `${p}/x`),
  ...CREDS,
  ...CREDS.map((p) => `${p}/x`),
];
// Every one of them "exists" on the host, so the hint would name the path itself.
const files = Object.fromEntries(
  DANGEROUS.flatMap((p) => [p, ...ancestors(p)]).map(
    (p) => [p, p.endsWith('/x') || /\.\w+$/.test(p) ? 'file' : 'dir'] as const,
  ),
);
function ancestors(p: string): string[] {
  const out: string[] = [];
  for (let q = p.slice(0, p.lastIndexOf('/')); q.length > 0; q = q.slice(0, q.lastIndexOf('/'))) out.push(q);
  return out;
}
const host = syntheticHost('linux', { files: { ...files, [`${CWD}/.git`]: 'dir' } });

const tildeOrNot = (p: string) =>
  fc.constantFrom(p, p.startsWith(`${HOME}/`) ? `~${p.slice(HOME.length)}` : p);
const template = fc.constantFrom(
  (p: string) => `touch: cannot touch '${p}': Read-only file system`,
  (p: string) => `sh: 1: cannot create ${p}: Permission denied`,
  (p: string) => `cat: ${p}: Permission denied`,
  (p: string) => `Error: EACCES: permission denied, open '${p}'`,
  (p: string) => `Error: EROFS: read-only file system, mkdir '${p}/new'`,
  (p: string) => `mkdir: cannot create directory ‘${p}/d’: Operation not permitted`,
  (p: string) => `ls: cannot access '${p}': No such file or directory`,
);

function unsafeAfter(fix: string, policyRules: Parameters<typeof withFlagRule>[0]): string | undefined {
  const [flag, rawValue] = fix.split(' ') as [string, string];
  const value = rawValue.replace(/^'|'$/g, '');
  const target = value === '~' ? HOME : value.startsWith('~/') ? HOME + value.slice(1) : value;
  const need = flag === '--read' ? 'read' : 'write';
  const after = withFlagRule(policyRules, target, need);
  const writable = (p: string) => resolveAccess(after, p) === 'write';
  if (writable(HOME)) return 'home writable';
  for (const p of POINTS) if (writable(p) || writable(`${p}/x`)) return `persistence point ${p} writable`;
  for (const p of ['/etc', '/etc/cron.d/job', '/usr/local/bin', '/usr/bin/x'])
    if (writable(p)) return `${p} writable`;
  // (.cordon is not protected: nothing reads it — docs/security.md.)
  for (const p of [`${CWD}/.git`, `${CWD}/.git/hooks/x`]) if (writable(p)) return `${p} writable`;
  if (target.split('/').includes('.git')) return 'names a .git';
  for (const c of [...CREDS, ...CREDS.map((p) => `${p}/x`)])
    if (resolveAccess(after, c) !== resolveAccess(policyRules, c)) return `credential ${c} changed`;
  if (isWithin(HOME, target)) return 'covers home';
  return undefined;
}

describe('denial hints never weaken a protection (property)', () => {
  it('whatever the command claims, the suggested flag is safe and the message says it was inferred', () => {
    let seen = 0;
    fc.assert(
      fc.property(
        fc.constantFrom('workspace', 'strict', 'read-only'),
        fc.constantFrom(...DANGEROUS).chain(tildeOrNot),
        template,
        (profileName, claimed, line) => {
          const policy = resolvePolicy(
            loadProfile(profileName, CWD),
            { read: [], write: [], deny: [] },
            host,
            CWD,
          );
          const ctx = {
            policy,
            home: HOME,
            networkFromFlag: false,
            privateDirs: ['/tmp'],
            kindOf: (p: string) => host.kind(p),
          };
          for (const d of findDenials(line(claimed), ctx).denials) {
            seen++;
            expect(d.message).toContain("(inferred from the command's output)");
            if (d.fix !== undefined) expect(unsafeAfter(d.fix, policy.rules)).toBeUndefined();
            expect(d.message).not.toMatch(
              /--write ~(\s|$)|--write \/(\s|$)|--write \/etc|drop --deny|--profile FILE/,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The claims were recognized as denials (the property is not vacuous).
    expect(seen).toBeGreaterThan(RUNS / 4);
  });

  it('the report: a fake EACCES on ~/.bashrc gets no flag, and ordinary hints stay', () => {
    const policy = resolvePolicy(loadProfile('workspace', CWD), { read: [], write: [], deny: [] }, host, CWD);
    const ctx = {
      policy,
      home: HOME,
      networkFromFlag: false,
      privateDirs: ['/tmp'],
      kindOf: (p: string) => host.kind(p),
    };
    const [d] = findDenials(`sh: 1: cannot create ${HOME}/.bashrc: Permission denied`, ctx).denials;
    expect(d?.fix).toBeUndefined();
    expect(d?.message).toContain(
      'no flag suggested: ~/.bashrc: ~/.bashrc holds files that run outside the sandbox later',
    );
    const [e] = findDenials(
      "Error: EROFS: read-only file system, mkdir '/home/user/.cache/npm/_cacache'",
      ctx,
    ).denials;
    expect(e?.fix).toBe('--write ~/.cache');
  });
});
