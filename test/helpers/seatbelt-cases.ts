// The Seatbelt golden cases: named policies on synthetic darwin hosts, shared by the golden
// files, the structural checker and the model check, so every golden is checked the same way.
import { type SyntheticOverrides, syntheticHost } from '../../src/host/synthetic.ts';
import { buildPlan } from '../../src/plan/build.ts';
import type { SeatbeltPlan } from '../../src/plan/types.ts';
import { type PolicyFlags, resolvePolicy } from '../../src/policy/resolve.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileText } from './profile.ts';

export interface SeatbeltCase {
  readonly name: string;
  /** A built-in profile name, or YAML text of a custom profile. */
  readonly profile: string;
  readonly flags?: Partial<PolicyFlags>;
  readonly host?: SyntheticOverrides;
  readonly command?: readonly string[];
  /** Added to the command's environment (PATH and HOME are always set). */
  readonly env?: Readonly<Record<string, string>>;
}

export const SEATBELT_CASES: readonly SeatbeltCase[] = [
  { name: 'workspace', profile: 'workspace' },
  { name: 'read-only', profile: 'read-only' },
  { name: 'strict', profile: 'strict' },
  {
    name: 'deny-inside-cwd',
    profile: 'workspace',
    flags: { deny: ['secrets', '.env'] },
    host: { files: { '/Users/user/project/secrets': 'dir', '/Users/user/project/.env': 'file' } },
  },
  {
    name: 'nested-reopen',
    profile:
      'privateTmp: false\nfilesystem:\n  - { path: "{system}", access: read }\n  - { path: "{cwd}", access: write }\n  - { path: "{cwd}/a", access: none }\n  - { path: "{cwd}/a/b", access: write }\n',
    host: { files: { '/Users/user/project/a': 'dir', '/Users/user/project/a/b': 'dir' } },
  },
  {
    name: 'git-pointer-file',
    profile: 'workspace',
    host: {
      cwd: '/Users/user/wt/feature',
      files: { '/Users/user/wt/feature/.git': 'file' },
      texts: { '/Users/user/wt/feature/.git': 'gitdir: ../../src/main/.git/worktrees/feature\n' },
    },
  },
  { name: 'network-on', profile: 'workspace', flags: { network: 'on' } },
  { name: 'strict-network-on', profile: 'strict', flags: { network: 'on' } },
  {
    name: 'odd-path-names',
    profile: 'strict',
    flags: {
      write: ['/Users/user/with "quotes" and (parens)', '/Users/user/ünïcødé ✓ 名前'],
      read: ['/Users/user/line\nbreak', "/Users/user/back\\slash 'single'"],
      deny: ['/Users/user/my project/secret) (allow default'],
    },
    host: { cwd: '/Users/user/my project' },
  },
  {
    name: 'tmp-aliasing',
    profile: 'strict',
    flags: { read: ['/var/log', '/etc/hosts'], write: ['/tmp/cache'] },
    host: { cwd: '/tmp/work' },
  },
  {
    name: 'tmpdir-named-explicitly',
    profile: 'workspace',
    flags: { write: ['{tmp}'] },
  },
  {
    name: 'write-home-cache-with-deny',
    profile: 'strict',
    flags: { write: ['~/.cache'], deny: ['~/.cache/secret'], read: ['~/.cache/secret/public'] },
  },
  {
    name: 'symlinked-cwd',
    profile: 'workspace',
    host: { cwd: '/Users/user/link', links: { '/Users/user/link': '/Volumes/Work/project' } },
  },
  {
    // Items 1-2: --write ~ and --write /tmp cover host daemons' sockets; SSH_AUTH_SOCK named.
    name: 'write-home-and-tmp-daemon-sockets',
    profile: 'strict',
    flags: { write: ['~', '/tmp'], allowUnix: ['/private/var/run/docker.sock'] },
    env: { SSH_AUTH_SOCK: '/private/tmp/com.apple.launchd.AbC123/Listeners' },
  },
  {
    // Item 7: the opt-in loopback key, network off.
    name: 'local-binding',
    profile:
      'localBinding: true\nprivateTmp: true\nfilesystem:\n  - { path: /, access: read }\n  - { path: "{cwd}", access: write }\n',
  },
  {
    // Item 10: a denied PATH entry is dropped (execvp stops at EPERM); others stay in order.
    name: 'path-entry-denied',
    profile: 'workspace',
    flags: { deny: ['~/bin'] },
    env: { PATH: '/Users/user/bin:/usr/bin:relative:/bin' },
  },
  {
    name: 'no-private-tmp',
    profile:
      'privateTmp: false\nfilesystem:\n  - { path: /, access: read }\n  - { path: "{cwd}", access: write }\n',
    command: ['npm', 'test', '--', '--watch=false'],
  },
];

export function resolveCase(c: SeatbeltCase): { policy: SandboxPolicy; plan: SeatbeltPlan } {
  const host = syntheticHost('darwin', c.host ?? {});
  const cwd = host.realpath(host.cwd);
  const merged = c.profile.includes('\n')
    ? mergeProfiles([parseProfileText(c.profile, `${c.name}.yaml`, c.name)])
    : loadProfile(c.profile, cwd);
  const policy = resolvePolicy(
    merged,
    {
      read: c.flags?.read ?? [],
      write: c.flags?.write ?? [],
      deny: c.flags?.deny ?? [],
      network: c.flags?.network,
      allowUnix: c.flags?.allowUnix,
    },
    host,
    cwd,
  );
  const plan = buildPlan({
    backend: 'seatbelt',
    policy,
    command: c.command ?? ['echo', 'hi'],
    env: { PATH: '/usr/bin:/bin', HOME: host.home, ...c.env },
    cwd,
    host,
    bestEffort: false,
  });
  if (plan.backend !== 'seatbelt') throw new Error('expected a seatbelt plan');
  return { policy, plan };
}

/** The golden text: everything in the plan, the profile verbatim. */
export function renderGolden(c: SeatbeltCase, policy: SandboxPolicy, plan: SeatbeltPlan): string {
  const lines = [
    `# ${c.name}`,
    '## policy',
    `network: ${policy.network}`,
    `localBinding: ${policy.localBinding ?? false}`,
    `allowUnix: ${JSON.stringify(policy.allowUnix ?? [])}`,
    `privateTmp: ${policy.privateTmp}`,
    ...policy.rules.map((r) => `${r.access.padEnd(5)} ${JSON.stringify(r.path)}`),
    '## plan',
    `executable: ${plan.executable}`,
    `cwd: ${JSON.stringify(plan.cwd)}`,
    `env.TMPDIR: ${JSON.stringify(plan.env['TMPDIR'] ?? null)}`,
    `env.PATH: ${JSON.stringify(plan.env['PATH'] ?? null)}`,
    `privateTmp: ${JSON.stringify(plan.privateTmp ?? null)}`,
    `notEnforced: ${JSON.stringify(plan.notEnforced)}`,
    'args after the profile:',
    ...plan.args.slice(2).map((a) => `  ${JSON.stringify(a)}`),
    '## profile (-p)',
    plan.profile,
  ];
  return `${lines.join('\n')}\n`;
}
