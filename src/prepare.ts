// Planning: options → policy → plan, the pipeline stopped before anything runs. `cordon
// explain`, the library's explain() and every run start here. Machine facts come through
// PrepareSeams (the real probe, or a synthetic host in tests and explain --platform); this
// module is internal: the library's run() and explain() take no seams.
import { statSync } from 'node:fs';
import {
  allowedSeeds,
  applyCacheEnv,
  type CacheLayout,
  type CacheSeed,
  cacheRules,
  planCache,
} from './cache/layout.ts';
import { prepareSandboxCache } from './cache/prepare.ts';
import { type SeedResult, seedFromHost } from './cache/seed.ts';
import { CordonError } from './errors.ts';
import { probeCgroup } from './host/cgroup-probe.ts';
import { probeHost, realpathLenient } from './host/probe.ts';
import type { HostInfo } from './host/types.ts';
import { limitsNotEnforced, needsCgroup, planLimits } from './limits/plan.ts';
import { limitRequest } from './limits/request.ts';
import { CLEAR_ENV_KEEP } from './options/defaults.ts';
import type { RunOptions } from './options/types.ts';
import { buildPlan } from './plan/build.ts';
import { type BackendChoice, chooseBackend, judgeBackends } from './plan/choose.ts';
import { checkLandlockFit, describeLandlockBestEffort } from './plan/linux/landlock.ts';
import type { Plan } from './plan/types.ts';
import { withJobLimits } from './plan/windows/job-limits.ts';
import { withAllowNet } from './policy/allow-net.ts';
import { resolveAllowUnix } from './policy/allow-unix.ts';
import { checkCwdUsable } from './policy/cwd.ts';
import { type ResolvedEnv, resolveEnv } from './policy/env.ts';
import { checkFlagPathsExist } from './policy/flag-rules.ts';
import { resolvePolicy } from './policy/resolve.ts';
import type { Platform, SandboxPolicy } from './policy/types.ts';
import { DEFAULT_PROFILE, listBuiltinProfiles, loadProfile } from './profile/load.ts';
import type { MergedProfile } from './profile/types.ts';

/** What planning reads from the machine; tests and `explain --platform` swap in synthetic hosts. */
export interface PrepareSeams {
  /** `cwd`: the run's working directory (a bwrap found on PATH inside it is never trusted). */
  readonly probe: (needs: { bwrap: boolean; landlock: boolean; cwd?: string | undefined }) => HostInfo;
  /** Plan for another OS (explain --platform): no real cwd check, the synthetic host's cwd. */
  readonly platform?: Platform | undefined;
  readonly cwdOverride?: string | undefined;
  /**
   * Creates and checks the sandbox cache on the real file system (prepareSandboxCache);
   * returns why it is unavailable, if it is. Absent (synthetic hosts: explain --platform,
   * golden tests): no sandbox cache is planned, so nothing is created.
   */
  readonly prepareCache?: ((layout: CacheLayout, uid: number) => string | undefined) | undefined;
  /** Where per-run cgroups can be created (resource limits); absent: the host's own `cgroup`. */
  readonly probeCgroup?: ((uid: number) => NonNullable<HostInfo['cgroup']>) | undefined;
  /**
   * Copies what the sandbox cache lacks of the host's caches (seed.ts), last, once the run is
   * certain to start. Absent (explain): nothing copied.
   */
  readonly seedCache?:
    | ((seeds: readonly CacheSeed[], toolsDir: string, uid: number) => SeedResult[])
    | undefined;
}

export const REAL_SEAMS: PrepareSeams = {
  probe: (needs) => probeHost(needs),
  prepareCache: prepareSandboxCache,
  probeCgroup,
  seedCache: (seeds, toolsDir, uid) => seeds.map((s) => seedFromHost(s, toolsDir, uid)),
};

/** The real machine, for planning only (the library's explain()): no copying into the cache. */
export const PLAN_ONLY_SEAMS: PrepareSeams = { ...REAL_SEAMS, seedCache: undefined };

export interface PreparedRun {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly host: HostInfo;
  readonly policy: SandboxPolicy | undefined;
  readonly choice: BackendChoice;
  readonly env: ResolvedEnv;
  readonly plan: Plan;
  /** The sandbox cache this run uses (profile `cache:`), undefined when off or unsandboxed. */
  readonly cache?: CacheLayout | undefined;
  /** Why the profile's sandbox cache could not be set up (the run goes on without it). */
  readonly cacheWarning?: string | undefined;
  /** What was copied from the host's caches into the sandbox cache before this run. */
  readonly cacheSeeded?: readonly SeedResult[] | undefined;
}

export function resolveCwd(cwd: string | undefined): string {
  const raw = cwd ?? process.cwd();
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(raw);
  } catch {
    throw new CordonError(
      'bad-cwd',
      `working directory does not exist: '${raw}' — pass an existing directory to --cwd`,
    );
  }
  if (!st.isDirectory())
    throw new CordonError(
      'bad-cwd',
      `working directory is not a directory: '${raw}' — pass a directory to --cwd`,
    );
  return realpathLenient(raw);
}

export function preparePlan(
  command: readonly string[],
  options: RunOptions = {},
  deps: PrepareSeams = REAL_SEAMS,
): PreparedRun {
  if (command.length === 0 || command[0] === '') {
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');
  }
  const platform = deps.platform ?? (process.platform as Platform);
  const cwd = deps.cwdOverride !== undefined ? (options.cwd ?? deps.cwdOverride) : resolveCwd(options.cwd);
  const request = options.backend ?? 'auto';
  // Landlock is probed (koffi, ~20 ms) only when it could be chosen: asked for by name, or
  // auto on a host where bubblewrap cannot run.
  const probed = deps.probe({
    bwrap: platform === 'linux' && (request === 'auto' || request === 'bwrap'),
    landlock: platform === 'linux' && request === 'landlock',
    cwd,
  });
  const host =
    platform === 'linux' && request === 'auto' && !probed.bwrap?.usable && probed.landlock === undefined
      ? { ...probed, landlock: deps.probe({ bwrap: false, landlock: true, cwd }).landlock }
      : probed;
  let policy: SandboxPolicy | undefined;
  let envRequest = { keep: options.keepEnv ?? [], set: options.setEnv ?? {}, drop: [] as string[] };
  let cache: CacheLayout | undefined;
  let cacheWarning: string | undefined;
  let profileLimits: MergedProfile['limits'] | undefined;
  if (request !== 'none') {
    const profile = loadProfile(options.profile ?? DEFAULT_PROFILE, cwd);
    profileLimits = profile.limits;
    const network = options.network === undefined ? undefined : options.network ? 'on' : 'off';
    cache = planCache(profile.cache, host, cwd, options.env ?? process.env);
    if (cache && !deps.prepareCache) {
      cacheWarning = `not set up: ${cache.mode} (a synthetic host has no directories to create)`;
      cache = undefined;
    }
    const unavailable = cache ? deps.prepareCache?.(cache, host.uid) : undefined;
    if (cache && unavailable !== undefined) {
      cacheWarning = `unavailable (${unavailable}) — tools that write caches under your home will fail; set XDG_CACHE_HOME to a directory of your own, or cache: off in the profile`;
      cache = undefined;
    }
    policy = resolvePolicy(
      profile,
      { read: options.read ?? [], write: options.write ?? [], deny: options.deny ?? [], network },
      host,
      cwd,
      cache ? cacheRules(cache) : [],
    );
    if (options.allowUnix?.length)
      policy = { ...policy, allowUnix: resolveAllowUnix(options.allowUnix, host, cwd) };
    policy = withAllowNet(policy, profile.allowNet, options.allowNet ?? [], options.network);
    checkCwdUsable(policy);
    // Another OS's synthetic host has no files to look at (explain --platform).
    if (deps.platform === undefined) checkFlagPathsExist(policy.rules, host);
    envRequest = {
      keep: [...profile.env.keep, ...envRequest.keep],
      set: { ...profile.env.set, ...envRequest.set },
      drop: profile.env.drop.filter((n) => !envRequest.keep.includes(n)),
    };
  } else if (
    options.profile !== undefined ||
    options.read?.length ||
    options.write?.length ||
    options.deny?.length ||
    options.allowNet?.length
  ) {
    throw new CordonError(
      'bad-flag',
      '--backend none runs without a sandbox, so --profile, --read, --write, --deny and --allow-net would not be enforced — drop them or choose a sandbox backend',
    );
  }
  const bestEffort = options.bestEffort ?? false;
  let envResolved = resolveEnv(
    options.env ?? process.env,
    { ...envRequest, clear: options.clearEnv ?? false },
    CLEAR_ENV_KEEP,
    platform === 'win32',
  );
  // Tools pointed at the sandbox cache; an explicitly set variable wins.
  if (cache) envResolved = { ...envResolved, env: applyCacheEnv(envResolved.env, cache, envRequest.set) };
  const verdicts = judgeBackends(host, policy, (backend, p, h) =>
    backend === 'landlock' && !bestEffort ? checkLandlockFit(p, h) : undefined,
  ).map((v) => {
    // Under --best-effort say what Landlock will leave out instead of "can enforce".
    const partial =
      v.backend === 'landlock' && v.usable && bestEffort && policy
        ? describeLandlockBestEffort(policy, host)
        : undefined;
    if (partial) return { ...v, reason: partial };
    // bwrap is only probed when it could be chosen; don't report "not installed" otherwise.
    if (v.backend === 'bwrap' && !v.usable && !host.bwrap && request !== 'auto' && request !== 'bwrap')
      return { ...v, reason: `not probed (--backend ${request})` };
    return v;
  });
  const choice = chooseBackend(request, verdicts, host);
  const builtins = listBuiltinProfiles();
  const limitsAsked = limitRequest(profileLimits, options, (p) => builtins.includes(p));
  const limitHost =
    platform === 'linux' && needsCgroup(limitsAsked) && !host.cgroup && deps.probeCgroup
      ? { ...host, cgroup: deps.probeCgroup(host.uid) }
      : host;
  const limits = planLimits(limitsAsked, limitHost, choice.backend, bestEffort);
  const built = buildPlan({
    backend: choice.backend,
    policy,
    command,
    env: envResolved.env,
    cwd,
    host,
    bestEffort: options.bestEffort ?? false,
  });
  const withJob = limits && built.backend === 'windows' ? withJobLimits(built, limits) : built;
  const plan: Plan = limits
    ? { ...withJob, limits, notEnforced: [...withJob.notEnforced, ...limitsNotEnforced(limits)] }
    : withJob;
  // Last: everything that could refuse the run has been decided.
  const cacheSeeded =
    cache && policy && deps.seedCache
      ? deps.seedCache(allowedSeeds(cache, policy.rules), cache.toolsDir, host.uid)
      : undefined;
  return {
    command,
    cwd,
    host: limitHost,
    policy,
    choice,
    env: envResolved,
    plan,
    cache,
    cacheWarning,
    cacheSeeded,
  };
}
