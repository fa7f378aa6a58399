// Golden tests of the bubblewrap argv for a dozen policies on synthetic Linux hosts. The
// snapshot files under __snapshots__/bwrap/ are the reviewed plans; a change shows as a diff.
import { describe, expect, it } from 'vitest';
import { type SyntheticOverrides, syntheticHost } from '../../src/host/synthetic.ts';
import { buildBwrapPlan } from '../../src/plan/linux/bwrap.ts';
import { type PolicyFlags, resolvePolicy } from '../../src/policy/resolve.ts';
import { BUILTIN_PROFILES } from '../../src/profile/builtin-data.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileData } from '../../src/profile/parse.ts';

function profileChain(name: string) {
  const chain = [];
  let current: string | undefined = name;
  while (current) {
    const spec = parseProfileData(BUILTIN_PROFILES[current], `${current}.yaml`, current);
    chain.unshift(spec);
    current = spec.extends;
  }
  return mergeProfiles(chain);
}

function plan(profile: string, flags: Partial<PolicyFlags> = {}, overrides: SyntheticOverrides = {}) {
  const host = syntheticHost('linux', {
    files: {
      '/home/user/project/.git': 'dir',
      '/run': 'dir',
      '/home/user/.ssh': 'dir',
      '/home/user/.npmrc': 'file',
      ...overrides.files,
    },
    ...overrides,
  });
  const policy = resolvePolicy(
    profileChain(profile),
    { read: [], write: [], deny: [], ...flags },
    host,
    host.cwd,
  );
  return buildBwrapPlan({ policy, command: ['npm', 'test'], env: { PATH: '/usr/bin:/bin' }, host });
}

function render(p: ReturnType<typeof plan>): string {
  const lines = [`executable: ${p.executable}`, 'args:'];
  let line = '';
  for (const a of p.args) {
    if (a.startsWith('--') && line) {
      lines.push(`  ${line}`);
      line = '';
    }
    line += (line ? ' ' : '') + JSON.stringify(a);
  }
  if (line) lines.push(`  ${line}`);
  lines.push(
    `env: ${JSON.stringify(p.env)}`,
    `placeholders: ${JSON.stringify(p.placeholders)}`,
    `notEnforced: ${JSON.stringify(p.notEnforced)}`,
    `statusFd: ${p.statusFd ?? 'none'}`,
    `seccompProgram: ${p.seccompProgram === undefined ? 'none' : `${Buffer.from(p.seccompProgram, 'base64').length / 8} instructions (see test/unit/seccomp-bpf.test.ts)`}`,
    `unixSupervisor: ${JSON.stringify(p.unixSupervisor ?? null)}`,
  );
  return `${lines.join('\n')}\n`;
}

const cases: [string, () => ReturnType<typeof plan>][] = [
  ['workspace-default', () => plan('workspace')],
  ['read-only', () => plan('read-only')],
  ['strict', () => plan('strict')],
  ['workspace-net-on', () => plan('workspace', { network: 'on' })],
  [
    'deny-dir-inside-cwd',
    () => plan('workspace', { deny: ['secrets'] }, { files: { '/home/user/project/secrets': 'dir' } }),
  ],
  [
    'deny-file-inside-cwd',
    () => plan('workspace', { deny: ['.env'] }, { files: { '/home/user/project/.env': 'file' } }),
  ],
  ['deny-missing-inside-cwd', () => plan('workspace', { deny: ['not-yet'] })],
  [
    'nested-reopen',
    () =>
      plan(
        'strict',
        { write: ['/data'], deny: ['/data/a'], read: [] },
        { files: { '/data': 'dir', '/data/a': 'dir', '/data/a/b': 'dir' } },
      ),
  ],
  [
    'nested-reopen-write-under-none-under-write',
    () =>
      plan(
        'workspace',
        { deny: ['a'], write: ['a/b'] },
        { files: { '/home/user/project/a': 'dir', '/home/user/project/a/b': 'dir' } },
      ),
  ],
  [
    'git-pointer-file',
    () =>
      plan(
        'workspace',
        { write: ['/home/user/main'] },
        {
          files: {
            '/home/user/project/.git': 'file',
            '/home/user/main': 'dir',
            '/home/user/main/.git': 'dir',
            '/home/user/main/.git/worktrees/project': 'dir',
          },
          texts: { '/home/user/project/.git': 'gitdir: /home/user/main/.git/worktrees/project\n' },
        },
      ),
  ],
  [
    'extra-read-and-write-roots',
    () =>
      plan(
        'strict',
        { read: ['/srv/data'], write: ['/var/cache/build'] },
        { files: { '/srv/data': 'dir', '/var/cache/build': 'dir' } },
      ),
  ],
  ['missing-write-root-skipped', () => plan('strict', { write: ['/does/not/exist'] })],
  ['status-reporter', () => plan('workspace', {}, { statusReporter: '/usr/bin/perl' })],
  [
    'status-reporter-unreadable',
    () => plan('strict', { deny: ['/usr/bin/perl'] }, { statusReporter: '/usr/bin/perl' }),
  ],
  [
    'no-disable-userns-on-old-bwrap',
    () =>
      plan(
        'workspace',
        {},
        {
          bwrap: {
            path: '/usr/bin/bwrap',
            version: '0.6.1',
            usable: true,
            supportsDisableUserns: false,
            supportsOverlay: false,
          },
        },
      ),
  ],
];

describe('bwrap plans', () => {
  it.each(cases)('%s', async (name, make) => {
    await expect(render(make())).toMatchFileSnapshot(`./__snapshots__/bwrap/${name}.txt`);
  });

  it('always drops capabilities, unshares namespaces, and dies with its parent', () => {
    for (const [, make] of cases) {
      const args = make().args;
      for (const flag of [
        '--unshare-user',
        '--unshare-pid',
        '--unshare-ipc',
        '--unshare-uts',
        '--die-with-parent',
        '--new-session',
        '--proc',
        '--dev',
      ]) {
        expect(args).toContain(flag);
      }
      expect(args.join(' ')).toContain('--cap-drop ALL');
    }
  });

  it('refuses a bwrap that lives inside a writable root', () => {
    expect(() =>
      plan(
        'workspace',
        {},
        {
          bwrap: {
            path: '/home/user/project/bin/bwrap',
            version: '0.8.0',
            usable: true,
            supportsDisableUserns: true,
            supportsOverlay: false,
          },
        },
      ),
    ).toThrow(
      /refusing to use bubblewrap at '\/home\/user\/project\/bin\/bwrap': it is inside a writable root/,
    );
  });
});
