// The sandbox cache plan (docs/caches.md): where this run's private cache lives, the rules
// that open it, the environment variables that point tools at it and the sanitized config
// copies that go in it. Pure: machine facts come through HostInfo, the environment is passed
// in. prepare.ts creates and checks the directories and writes the copies.
import { createHash } from 'node:crypto';
import type { HostInfo } from '../host/types.ts';
import { canRead } from '../policy/access.ts';
import type { ExtraRule } from '../policy/resolve.ts';
import type { PolicyRule } from '../policy/types.ts';
import type { CacheMode } from '../profile/types.ts';

export interface CacheRedirect {
  /** Environment variable set for the command. */
  readonly name: string;
  readonly value: string;
  /** Which tool reads it, for explain and the docs. */
  readonly tool: string;
}

export interface SanitizedCopy {
  readonly kind: 'npmrc';
  /** The host file read (with cordon's own rights, outside the sandbox). */
  readonly source: string;
  /** Where the filtered copy is written (inside the read-only config dir). */
  readonly target: string;
}

/** A host cache whose content-addressed entries are copied into the sandbox cache (seed.ts). */
export interface CacheSeed {
  readonly tool: string;
  /** The host cache directory (canonical), read with cordon's rights, never written. */
  readonly source: string;
  /** The same tree inside the sandbox cache (toolsDir + targetBelowTools). */
  readonly target: string;
  readonly targetBelowTools: readonly string[];
  /** The sub-trees copied (content-addressed: a name always means the same bytes). */
  readonly parts: readonly string[];
  /** What the last complete copy saw (in the entry, not writable inside the sandbox). */
  readonly state: string;
}

export interface CacheLayout {
  readonly mode: 'shared' | 'workspace';
  /** The per-user sandbox cache root: every entry lives below it. */
  readonly root: string;
  /** This run's entry: <root>/shared or <root>/ws-<name>-<hash of the cwd>. */
  readonly entry: string;
  /** Writable inside the sandbox: the tools' caches. */
  readonly toolsDir: string;
  /** Read-only inside the sandbox: sanitized copies of credential-bearing config files. */
  readonly configDir: string;
  readonly redirects: readonly CacheRedirect[];
  readonly copies: readonly SanitizedCopy[];
  /** Host caches copied in before each run (Linux only); empty when there is none to copy. */
  readonly seeds: readonly CacheSeed[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** Tool cache variables set on every platform: name, sub-directory of toolsDir, tool. */
const TOOL_DIRS: readonly (readonly [string, string, string])[] = [
  ['npm_config_cache', 'npm', 'npm (cache and _logs)'],
  ['GOCACHE', 'go-build', 'go (build cache)'],
  ['PIP_CACHE_DIR', 'pip', 'pip'],
  ['YARN_CACHE_FOLDER', 'yarn', 'yarn (package cache)'],
  ['YARN_GLOBAL_FOLDER', 'yarn-global', 'yarn berry (global cache and metadata)'],
  ['GRADLE_USER_HOME', 'gradle', 'gradle (caches, wrapper, daemon)'],
  ['DENO_DIR', 'deno', 'deno'],
  ['BUN_INSTALL_CACHE_DIR', 'bun', 'bun'],
  ['CCACHE_DIR', 'ccache', 'ccache'],
];

function isAbsoluteFor(host: HostInfo, path: string): boolean {
  return host.platform === 'win32' ? /^[A-Za-z]:[\\/]/.test(path) : path.startsWith('/');
}

function slash(path: string): string {
  return path.replace(/\\/g, '/').replace(/(.)\/+$/, '$1');
}

/** The per-user root: $XDG_CACHE_HOME (Linux, macOS) or the platform's cache dir, + cordon/sandbox-cache. */
export function resolveCacheRoot(host: HostInfo, env: Env): string {
  const xdg = env['XDG_CACHE_HOME'];
  const local = env['LOCALAPPDATA'];
  let base: string;
  if (host.platform !== 'win32' && xdg && isAbsoluteFor(host, xdg)) base = slash(xdg);
  else if (host.platform === 'linux') base = `${host.home}/.cache`;
  else if (host.platform === 'darwin') base = `${host.home}/Library/Caches`;
  else base = local && isAbsoluteFor(host, local) ? slash(local) : `${host.home}/AppData/Local`;
  return host.realpath(`${base}/cordon/sandbox-cache`);
}

/** Entry name for a workspace: readable prefix + a hash of the canonical cwd (no collisions by name). */
export function workspaceKey(cwd: string): string {
  const base = cwd.split('/').filter(Boolean).pop() ?? 'root';
  const name = base.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 32) || 'root';
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 16);
  return `ws-${name}-${hash}`;
}

/** The npm user config npm would read: $npm_config_userconfig when absolute, else ~/.npmrc. */
function npmUserconfig(host: HostInfo, env: Env): string {
  for (const name of ['npm_config_userconfig', 'NPM_CONFIG_USERCONFIG']) {
    const value = env[name];
    if (value && isAbsoluteFor(host, value)) return slash(value);
  }
  return `${host.home}/.npmrc`;
}

/** The host npm cache npm would use: $npm_config_cache when absolute, else ~/.npm. */
function hostNpmCache(host: HostInfo, env: Env): string {
  for (const name of ['npm_config_cache', 'NPM_CONFIG_CACHE']) {
    const value = env[name];
    if (value && isAbsoluteFor(host, value)) return slash(value);
  }
  return `${host.home}/.npm`;
}

/**
 * Whether cwd or a directory above it has a package.json. The first copy of a host cache
 * costs its size in disk and about 1 s of CPU per 100 MiB per workspace entry, so it is paid
 * only where npm is likely to run: not in every scratch directory a script runs cordon in.
 */
function inNodeProject(host: HostInfo, cwd: string): boolean {
  for (let dir = cwd; ; dir = dir.slice(0, Math.max(dir.lastIndexOf('/'), 1))) {
    const kind = host.kind(`${dir === '/' ? '' : dir}/package.json`);
    if (kind === 'file' || kind === 'symlink') return true;
    if (dir === '/' || dir === '') return false;
  }
}

/**
 * npm's cacache (content-v2: tarballs and packuments by integrity hash; index-v5: keys to
 * hashes, both verified on read) copied from the host so a first offline install works.
 * Linux only: the copy walks descriptors through /proc/self/fd (seed.ts).
 */
function planSeeds(host: HostInfo, env: Env, cwd: string, entry: string, toolsDir: string): CacheSeed[] {
  if (host.platform !== 'linux' || !inNodeProject(host, cwd)) return [];
  const source = host.realpath(`${hostNpmCache(host, env)}/_cacache`);
  if (host.kind(source) !== 'dir') return [];
  const below = ['npm', '_cacache'];
  return [
    {
      tool: 'npm',
      source,
      target: `${toolsDir}/${below.join('/')}`,
      targetBelowTools: below,
      parts: ['content-v2', 'index-v5'],
      state: `${entry}/seed-npm.json`,
    },
  ];
}

/** The host's Go module cache: $GOMODCACHE, else the first $GOPATH entry's pkg/mod, else ~/go/pkg/mod. */
function hostGoModCache(host: HostInfo, env: Env): string {
  const modcache = env['GOMODCACHE'];
  if (modcache && isAbsoluteFor(host, modcache)) return slash(modcache);
  const gopath = env['GOPATH']?.split(host.platform === 'win32' ? ';' : ':')[0];
  if (gopath && isAbsoluteFor(host, gopath)) return `${slash(gopath)}/pkg/mod`;
  return `${host.home}/go/pkg/mod`;
}

/**
 * Go: a module cache of the sandbox's own, filled first from the host's module cache read
 * as a file proxy (no network needed, the host copy is never written), then from the
 * proxy the user had (default proxy.golang.org,direct) when the network is on.
 */
function goModuleRedirects(host: HostInfo, env: Env, toolsDir: string): CacheRedirect[] {
  const out: CacheRedirect[] = [
    { name: 'GOMODCACHE', value: `${toolsDir}/go-mod`, tool: 'go (module cache)' },
  ];
  const download = host.realpath(`${hostGoModCache(host, env)}/cache/download`);
  if (host.kind(download) === 'dir') {
    const url = `file://${host.platform === 'win32' ? '/' : ''}${download}`;
    const upstream = env['GOPROXY'] || 'https://proxy.golang.org,direct';
    out.push({ name: 'GOPROXY', value: `${url},${upstream}`, tool: "go (host's module cache, read-only)" });
  }
  return out;
}

export function planCache(mode: CacheMode, host: HostInfo, cwd: string, env: Env): CacheLayout | undefined {
  if (mode === 'off') return undefined;
  const root = resolveCacheRoot(host, env);
  const entry = `${root}/${mode === 'shared' ? 'shared' : workspaceKey(cwd)}`;
  const toolsDir = `${entry}/tools`;
  const configDir = `${entry}/config`;
  // XDG_CACHE_HOME is deliberately left alone (docs/caches.md): moving it would hide the
  // host's downloaded browsers, binaries and headers (Playwright, Cypress, corepack,
  // node-gyp) that work read-only today and cannot be fetched again with the network off.
  const redirects: CacheRedirect[] = [];
  for (const [name, dir, tool] of TOOL_DIRS) redirects.push({ name, value: `${toolsDir}/${dir}`, tool });
  redirects.push(...goModuleRedirects(host, env, toolsDir));
  const copies: SanitizedCopy[] = [];
  const npmrc = npmUserconfig(host, env);
  if (host.kind(host.realpath(npmrc)) === 'file') {
    const target = `${configDir}/npmrc`;
    copies.push({ kind: 'npmrc', source: npmrc, target });
    redirects.push({ name: 'npm_config_userconfig', value: target, tool: 'npm (sanitized ~/.npmrc)' });
  }
  const seeds = planSeeds(host, env, cwd, entry, toolsDir);
  return { mode, root, entry, toolsDir, configDir, redirects, copies, seeds };
}

export function cacheRules(layout: CacheLayout): ExtraRule[] {
  return [
    { path: layout.toolsDir, access: 'write', source: { kind: 'cache', part: 'tools' } },
    { path: layout.configDir, access: 'read', source: { kind: 'cache', part: 'config' } },
  ];
}

/**
 * The command's environment with the redirections applied. Inherited values of the same
 * names (any letter case: npm reads NPM_CONFIG_CACHE too) are replaced; values the user or
 * the profile set explicitly (`explicit`) win over the redirection.
 */
export function applyCacheEnv(
  env: Readonly<Record<string, string>>,
  layout: CacheLayout,
  explicit: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = { ...env };
  const explicitLower = new Set(Object.keys(explicit).map((n) => n.toLowerCase()));
  for (const r of layout.redirects) {
    const lower = r.name.toLowerCase();
    if (explicitLower.has(lower)) continue;
    for (const name of Object.keys(out)) if (name.toLowerCase() === lower) delete out[name];
    out[r.name] = r.value;
  }
  return out;
}

/**
 * The seeds whose host cache the command may read anyway: readable, and no deny rule on or
 * below it (a profile that hides ~/.npm must not get its content copied into view).
 */
export function allowedSeeds(layout: CacheLayout, rules: readonly PolicyRule[]): CacheSeed[] {
  return layout.seeds.filter(
    (s) =>
      canRead(rules, s.source) &&
      !rules.some((r) => r.access === 'none' && (r.path === s.source || r.path.startsWith(`${s.source}/`))),
  );
}
