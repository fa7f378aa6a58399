// Golden Landlock plans and refusals for a dozen policies on synthetic hosts (Landlock ABI
// 0..9, bwrap usable or not), through the real pipeline (profile → policy → choice → plan).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCordonError } from '../../src/errors.ts';
import { type SyntheticOverrides, syntheticHost } from '../../src/host/synthetic.ts';
import type { RunOptions } from '../../src/options/types.ts';
import { FS, NET, SCOPE } from '../../src/plan/linux/landlock.ts';
import { preparePlan } from '../../src/prepare.ts';

const profileDir = mkdtempSync(join(tmpdir(), 'cordon-golden-ll-'));
function profile(name: string, yaml: string): string {
  const file = join(profileDir, `${name}.yaml`);
  writeFileSync(file, yaml);
  return file;
}
const SYSTEM_READ = profile(
  'system-read',
  'network: off\nprivateTmp: true\nfilesystem:\n  - { path: "{system}", access: read }\n  - { path: "{cwd}", access: read }\n',
);
const BUILD_OUT = profile(
  'build-out',
  [
    'network: on',
    'privateTmp: false',
    'filesystem:',
    '  - { path: "{system}", access: read }',
    '  - { path: "{cwd}", access: write }',
    '  - { path: "{cwd}/.git", access: write }',
    '  - { path: "{cwd}/.cordon", access: write }',
    '',
  ].join('\n'),
);

const bitNames = (mask: number, table: Record<string, number>) =>
  Object.entries(table)
    .filter(([, bit]) => (mask & bit) !== 0)
    .map(([name]) => name)
    .join('|') || '-';

function render(options: RunOptions, overrides: SyntheticOverrides & { arch?: string }): string {
  const base = syntheticHost('linux', overrides);
  const host = overrides.arch ? { ...base, arch: overrides.arch } : base;
  try {
    const prepared = preparePlan(['make', 'test'], options, {
      probe: () => host,
      platform: 'linux',
      cwdOverride: base.cwd,
    });
    const { plan, choice } = prepared;
    const lines = [`backend: ${choice.backend}`];
    for (const v of choice.verdicts)
      lines.push(`  ${v.backend}: ${v.usable ? 'usable' : 'not usable'}: ${v.reason}`);
    if (plan.backend !== 'landlock') return `${lines.join('\n')}\n`;
    lines.push(
      `abi: ${plan.abi}`,
      `handled fs: ${bitNames(plan.handledFs, FS)}`,
      `handled net: ${bitNames(plan.handledNet, NET)}`,
      `scoped: ${bitNames(plan.scoped, SCOPE)}`,
      `seccomp: ${plan.seccomp ? JSON.stringify(plan.seccomp) : 'none'}`,
      `private tmp: ${plan.privateTmp ? JSON.stringify(plan.privateTmp) : 'no'}`,
      'rules:',
      ...plan.rules.map((r) => `  ${r.access} ${r.kind} ${r.path} [${r.origin}] ${bitNames(r.rights, FS)}`),
      'not enforced:',
      ...plan.notEnforced.map((n) => `  ${n.access} ${n.path}: ${n.reason}`),
    );
    return `${lines.join('\n')}\n`;
  } catch (error) {
    if (!isCordonError(error)) throw error;
    return `refused (${error.code}, exit ${error.exitCode}): ${error.message}\n`;
  }
}

const noBwrap = { bwrap: null } as const;
const bwrapBroken = {
  bwrap: {
    path: '/usr/bin/bwrap',
    version: '0.9.0',
    usable: false,
    unusableReason: 'bubblewrap cannot create user namespaces here (setting up uid map: Permission denied)',
    supportsDisableUserns: true,
    supportsOverlay: false,
  },
};

const cases: [string, RunOptions, SyntheticOverrides & { arch?: string }][] = [
  [
    '01 workspace, forced landlock, ABI 7, no .git: enforced exactly',
    { backend: 'landlock' },
    { landlockAbi: 7 },
  ],
  ['02 workspace, ABI 7, --best-effort', { backend: 'landlock', bestEffort: true }, { landlockAbi: 7 }],
  [
    '03 strict, ABI 7: protected .git refused',
    { backend: 'landlock', profile: 'strict' },
    { landlockAbi: 7, files: { '/home/user/project/.git': 'dir' } },
  ],
  [
    '04 strict, ABI 7, --best-effort',
    { backend: 'landlock', profile: 'strict', bestEffort: true },
    { landlockAbi: 7, files: { '/home/user/project/.git': 'dir' } },
  ],
  [
    '05 system+cwd read, net off, ABI 7: exact',
    { backend: 'landlock', profile: SYSTEM_READ },
    { landlockAbi: 7 },
  ],
  [
    '06 .git and .cordon named writable (no longer protected: nothing inside them is refused)',
    { backend: 'landlock', profile: BUILD_OUT },
    { landlockAbi: 7 },
  ],
  [
    '07 exact policy on ABI 1: truncate and signals refused',
    { backend: 'landlock', profile: SYSTEM_READ },
    { landlockAbi: 1 },
  ],
  [
    '08 exact policy on ABI 3: signals refused',
    { backend: 'landlock', profile: SYSTEM_READ },
    { landlockAbi: 3 },
  ],
  [
    '09 ABI 4 --best-effort: TCP handled, no scoping',
    { backend: 'landlock', profile: SYSTEM_READ, bestEffort: true },
    { landlockAbi: 4 },
  ],
  [
    '10 ABI 5 --best-effort: IOCTL_DEV',
    { backend: 'landlock', profile: BUILD_OUT, bestEffort: true },
    { landlockAbi: 5 },
  ],
  ['11 ABI 6: exact, scoped', { backend: 'landlock', profile: SYSTEM_READ }, { landlockAbi: 6 }],
  [
    '12 ABI 9, net off: RESOLVE_UNIX, connect left to Landlock',
    { backend: 'landlock', profile: SYSTEM_READ },
    { landlockAbi: 9 },
  ],
  ['13 no Landlock in the kernel', { backend: 'landlock', profile: SYSTEM_READ }, { landlockAbi: 0 }],
  [
    '14 --deny inside a readable cwd: refused naming it',
    { backend: 'landlock', profile: SYSTEM_READ, deny: ['secrets'] },
    { landlockAbi: 7, files: { '/home/user/project/secrets': 'dir' } },
  ],
  [
    '15 --deny of a missing path under read: exact',
    { backend: 'landlock', profile: SYSTEM_READ, deny: ['secrets'] },
    { landlockAbi: 7 },
  ],
  [
    '16 --write a file inside a read cwd: file rights only',
    { backend: 'landlock', profile: SYSTEM_READ, write: ['out.log'] },
    { landlockAbi: 7, files: { '/home/user/project/out.log': 'file' } },
  ],
  ['17 auto: bwrap usable wins', { profile: SYSTEM_READ }, { landlockAbi: 7 }],
  [
    '18 auto: bwrap broken, policy fits Landlock',
    { profile: SYSTEM_READ },
    { landlockAbi: 7, ...bwrapBroken },
  ],
  ['19 auto: no bwrap, workspace does not fit: one sentence per reason', {}, { landlockAbi: 7, ...noBwrap }],
  ['20 auto: no bwrap, ABI 0', { profile: SYSTEM_READ }, { landlockAbi: 0, ...noBwrap }],
  [
    '21 net off on an arch without a seccomp filter',
    { backend: 'landlock', profile: SYSTEM_READ },
    { landlockAbi: 7, arch: 'ia32' },
  ],
  [
    '22 implicit /proc and devices; a --deny /dev/tty keeps it out',
    { backend: 'landlock', profile: SYSTEM_READ, deny: ['/dev/tty'] },
    {
      landlockAbi: 7,
      files: {
        '/proc': 'dir',
        '/dev/null': 'other',
        '/dev/zero': 'other',
        '/dev/tty': 'other',
        '/dev/shm': 'dir',
      },
    },
  ],
];

describe('Landlock plans (golden)', () => {
  it('renders every case', async () => {
    const text = cases.map(([name, options, host]) => `## ${name}\n${render(options, host)}`).join('\n');
    await expect(text).toMatchFileSnapshot('./__snapshots__/landlock-plan.txt');
  });

  it('refuses with exit 125 and names the rule and the ways out', () => {
    const text = render(
      { backend: 'landlock', profile: 'strict' },
      { landlockAbi: 7, files: { '/home/user/project/.git': 'dir' } },
    );
    expect(text).toMatch(/^refused \(backend-unavailable, exit 125\)/);
    expect(text).toContain('/home/user/project/.git');
    expect(text).toContain('bubblewrap');
    expect(text).toContain('--best-effort');
  });
});
