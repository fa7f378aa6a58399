import { describe, expect, it } from 'vitest';
import {
  allowedSeeds,
  applyCacheEnv,
  cacheRules,
  planCache,
  resolveCacheRoot,
  workspaceKey,
} from '../../src/cache/layout.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildBwrapPlan } from '../../src/plan/linux/bwrap.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileText } from '../helpers/profile.ts';

const linux = syntheticHost('linux', { files: { '/home/user/.npmrc': 'file' } });
const ENTRY = `/home/user/.cache/cordon/sandbox-cache/${workspaceKey('/home/user/project')}`;

describe('planCache', () => {
  it('off plans nothing', () => {
    expect(planCache('off', linux, linux.cwd, {})).toBeUndefined();
  });

  it('workspace: one entry per canonical cwd, tools writable, sanitized npmrc', () => {
    const layout = planCache('workspace', linux, linux.cwd, {})!;
    expect(workspaceKey('/home/user/project')).toMatch(/^ws-project-[0-9a-f]{16}$/);
    expect(workspaceKey('/home/user/project')).not.toBe(workspaceKey('/home/other/project'));
    expect(layout).toEqual({
      mode: 'workspace',
      root: '/home/user/.cache/cordon/sandbox-cache',
      entry: ENTRY,
      toolsDir: `${ENTRY}/tools`,
      configDir: `${ENTRY}/config`,
      redirects: [
        { name: 'npm_config_cache', value: `${ENTRY}/tools/npm`, tool: 'npm (cache and _logs)' },
        { name: 'GOCACHE', value: `${ENTRY}/tools/go-build`, tool: 'go (build cache)' },
        { name: 'PIP_CACHE_DIR', value: `${ENTRY}/tools/pip`, tool: 'pip' },
        { name: 'YARN_CACHE_FOLDER', value: `${ENTRY}/tools/yarn`, tool: 'yarn (package cache)' },
        {
          name: 'YARN_GLOBAL_FOLDER',
          value: `${ENTRY}/tools/yarn-global`,
          tool: 'yarn berry (global cache and metadata)',
        },
        {
          name: 'GRADLE_USER_HOME',
          value: `${ENTRY}/tools/gradle`,
          tool: 'gradle (caches, wrapper, daemon)',
        },
        { name: 'DENO_DIR', value: `${ENTRY}/tools/deno`, tool: 'deno' },
        { name: 'BUN_INSTALL_CACHE_DIR', value: `${ENTRY}/tools/bun`, tool: 'bun' },
        { name: 'CCACHE_DIR', value: `${ENTRY}/tools/ccache`, tool: 'ccache' },
        { name: 'GOMODCACHE', value: `${ENTRY}/tools/go-mod`, tool: 'go (module cache)' },
        { name: 'npm_config_userconfig', value: `${ENTRY}/config/npmrc`, tool: 'npm (sanitized ~/.npmrc)' },
      ],
      copies: [{ kind: 'npmrc', source: '/home/user/.npmrc', target: `${ENTRY}/config/npmrc` }],
      seeds: [],
    });
  });

  it("seeds npm's cache from the host's _cacache when it exists (Linux), $npm_config_cache first", () => {
    const host = syntheticHost('linux', {
      files: {
        '/home/user/.npm/_cacache': 'dir',
        '/data/npm/_cacache': 'dir',
        '/home/user/project/package.json': 'file',
      },
    });
    const seed = {
      tool: 'npm',
      source: '/home/user/.npm/_cacache',
      target: `${ENTRY}/tools/npm/_cacache`,
      targetBelowTools: ['npm', '_cacache'],
      parts: ['content-v2', 'index-v5'],
      state: `${ENTRY}/seed-npm.json`,
    };
    expect(planCache('workspace', host, host.cwd, {})!.seeds).toEqual([seed]);
    expect(planCache('workspace', host, host.cwd, { NPM_CONFIG_CACHE: '/data/npm' })!.seeds).toEqual([
      { ...seed, source: '/data/npm/_cacache' },
    ]);
    // No host cache: nothing to copy. macOS and Windows: not seeded (the copy walks /proc/self/fd).
    expect(planCache('workspace', linux, linux.cwd, {})!.seeds).toEqual([]);
    const mac = syntheticHost('darwin', { files: { '/Users/user/.npm/_cacache': 'dir' } });
    expect(planCache('workspace', mac, mac.cwd, {})!.seeds).toEqual([]);
    // Only where npm is likely to run: a package.json in cwd or above (a monorepo package).
    expect(planCache('workspace', host, '/home/user/project/packages/a', {})!.seeds).toHaveLength(1);
    const bare = syntheticHost('linux', { files: { '/home/user/.npm/_cacache': 'dir' } });
    expect(planCache('workspace', bare, bare.cwd, {})!.seeds).toEqual([]);
  });

  it('allowedSeeds: only a host cache the policy lets the command read, nothing below it denied', () => {
    const host = syntheticHost('linux', {
      files: { '/home/user/.npm/_cacache': 'dir', '/home/user/project/package.json': 'file' },
    });
    const layout = planCache('workspace', host, host.cwd, {})!;
    const policyWith = (deny: string[]) =>
      resolvePolicy(loadProfile('workspace', host.cwd), { read: [], write: [], deny }, host, host.cwd);
    expect(layout.seeds).toHaveLength(1);
    expect(allowedSeeds(layout, policyWith([]).rules)).toEqual(layout.seeds);
    expect(allowedSeeds(layout, policyWith(['/home/user/.npm']).rules)).toEqual([]);
    expect(allowedSeeds(layout, policyWith(['/home/user/.npm/_cacache/index-v5']).rules)).toEqual([]);
    const strict = resolvePolicy(
      loadProfile('strict', host.cwd),
      { read: [], write: [], deny: [] },
      host,
      host.cwd,
    );
    expect(allowedSeeds(layout, strict.rules)).toEqual([]);
  });

  it('shared: one entry for every workspace; XDG_CACHE_HOME moves the root', () => {
    const layout = planCache('shared', linux, linux.cwd, { XDG_CACHE_HOME: '/data/cache/' })!;
    expect(layout.entry).toBe('/data/cache/cordon/sandbox-cache/shared');
    expect(resolveCacheRoot(linux, { XDG_CACHE_HOME: 'relative/ignored' })).toBe(
      '/home/user/.cache/cordon/sandbox-cache',
    );
  });

  it('per-platform roots', () => {
    expect(resolveCacheRoot(syntheticHost('darwin'), {})).toBe(
      '/Users/user/Library/Caches/cordon/sandbox-cache',
    );
    expect(resolveCacheRoot(syntheticHost('win32'), {})).toBe(
      'C:/Users/user/AppData/Local/cordon/sandbox-cache',
    );
    expect(resolveCacheRoot(syntheticHost('win32'), { LOCALAPPDATA: 'D:\\Local' })).toBe(
      'D:/Local/cordon/sandbox-cache',
    );
    const win = planCache('workspace', syntheticHost('win32'), 'C:/Users/user/project', {})!;
    expect(win.redirects.map((r) => r.name)).not.toContain('XDG_CACHE_HOME');
    expect(planCache('workspace', linux, linux.cwd, {})!.redirects.map((r) => r.name)).not.toContain(
      'XDG_CACHE_HOME',
    );
  });

  it("Go: the host module cache becomes a read-only file proxy in front of the user's GOPROXY", () => {
    const host = syntheticHost('linux', { files: { '/home/user/go/pkg/mod/cache/download': 'dir' } });
    const goproxy = (env: Record<string, string>) =>
      planCache('workspace', host, host.cwd, env)!.redirects.find((r) => r.name === 'GOPROXY')?.value;
    expect(goproxy({})).toBe('file:///home/user/go/pkg/mod/cache/download,https://proxy.golang.org,direct');
    expect(goproxy({ GOPROXY: 'https://goproxy.corp' })).toBe(
      'file:///home/user/go/pkg/mod/cache/download,https://goproxy.corp',
    );
    expect(goproxy({ GOMODCACHE: '/elsewhere' })).toBeUndefined();
  });
});

describe('applyCacheEnv', () => {
  const layout = planCache('workspace', linux, linux.cwd, {})!;
  it('replaces inherited values of any case; explicit settings win', () => {
    const env = applyCacheEnv(
      {
        PATH: '/usr/bin',
        NPM_CONFIG_CACHE: '/home/user/.npm',
        GOCACHE: '/home/user/.cache/go-build',
        PIP_CACHE_DIR: 'x',
      },
      layout,
      { PIP_CACHE_DIR: 'x' },
    );
    expect(env['NPM_CONFIG_CACHE']).toBeUndefined();
    expect(env['npm_config_cache']).toBe(`${ENTRY}/tools/npm`);
    expect(env['GOCACHE']).toBe(`${ENTRY}/tools/go-build`);
    expect(env['PIP_CACHE_DIR']).toBe('x');
    expect(env['PATH']).toBe('/usr/bin');
  });
});

describe('profile key cache', () => {
  it('parses shared, workspace, off (and false); rejects anything else', () => {
    expect(parseProfileText('cache: shared', 'p.yaml', 'p').cache).toBe('shared');
    expect(parseProfileText('cache: off', 'p.yaml', 'p').cache).toBe('off');
    expect(parseProfileText('cache: false', 'p.yaml', 'p').cache).toBe('off');
    expect(parseProfileText('{"cache":"workspace"}', 'p.json', 'p').cache).toBe('workspace');
    expect(() => parseProfileText('cache: yes-please', 'p.yaml', 'p')).toThrow(
      "invalid profile p.yaml: cache: 'yes-please' is not allowed — use workspace, shared, off",
    );
  });

  it('defaults to off, a child overrides its parent; built-ins: workspace on, read-only and strict off', () => {
    expect(mergeProfiles([parseProfileText('network: off', 'a.yaml', 'a')]).cache).toBe('off');
    expect(
      mergeProfiles([
        parseProfileText('cache: shared', 'a.yaml', 'a'),
        parseProfileText('network: on', 'b.yaml', 'b'),
      ]).cache,
    ).toBe('shared');
    expect(loadProfile('workspace', '/').cache).toBe('workspace');
    expect(loadProfile('read-only', '/').cache).toBe('off');
    expect(loadProfile('strict', '/').cache).toBe('off');
  });
});

describe('policy and bwrap plan with the sandbox cache', () => {
  it('the tools dir is a write rule with source cache, the config dir read-only, explained by source', () => {
    const layout = planCache('workspace', linux, linux.cwd, {})!;
    const strict = mergeProfiles([
      parseProfileText(
        'privateTmp: true\nfilesystem:\n  - { path: "{system}", access: read }\n  - { path: "{cwd}", access: write }\n',
        'strict.yaml',
        'strict',
      ),
    ]);
    const policy = resolvePolicy(
      strict,
      { read: [], write: [], deny: [] },
      linux,
      linux.cwd,
      cacheRules(layout),
    );
    expect(policy.rules.filter((r) => r.source.kind === 'cache')).toEqual([
      { path: `${ENTRY}/config`, access: 'read', source: { kind: 'cache', part: 'config' } },
      { path: `${ENTRY}/tools`, access: 'write', source: { kind: 'cache', part: 'tools' } },
    ]);
    const made = syntheticHost('linux', {
      files: { [`${ENTRY}/tools`]: 'dir', [`${ENTRY}/config`]: 'dir' },
    });
    const plan = buildBwrapPlan({ policy, command: ['true'], env: {}, host: made });
    const args = plan.args.join(' ');
    expect(args).toContain(`--bind ${ENTRY}/tools ${ENTRY}/tools`);
    expect(args).toContain(`--ro-bind ${ENTRY}/config ${ENTRY}/config`);
    // no protected .git/.cordon placeholders inside the sandbox cache
    expect(args).not.toContain(`${ENTRY}/tools/.`);
    // nothing of the host's own caches is writable
    expect(args).not.toMatch(/--bind \/home\/user\/\.(npm|cache) /);
  });
});
