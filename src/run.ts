// Orchestration: options → policy → plan → exec → collect → render → result, with the
// machine-facing parts injectable (probe, subreaper) so the CLI and the library share it.
// `preparePlan` is the pipeline stopped after plan (explain uses it); `run` goes to the end.
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyCacheEnv, type CacheLayout, cacheRules, planCache } from './cache/layout.ts';
import { prepareSandboxCache } from './cache/prepare.ts';
import { startChangeTracking } from './changes/for-run.ts';
import { denialAnnotations } from './denials/for-run.ts';
import { CordonError } from './errors.ts';
import { toExitStatus } from './exec/exit-status.ts';
import { listInheritableFds } from './exec/procfs.ts';
import { startSeatbeltLog } from './exec/seatbelt-log.ts';
import { prepareSeatbeltTmp } from './exec/seatbelt-tmp.ts';
import { type SpawnOutcome, spawnPlan } from './exec/spawn.ts';
import { probeHost, realpathLenient } from './host/probe.ts';
import type { HostInfo } from './host/types.ts';
import { CLEAR_ENV_KEEP, DEFAULT_MAX_OUTPUT_BYTES, RESULT_SCHEMA_VERSION } from './options/defaults.ts';
import type { RunOptions } from './options/types.ts';
import { buildPlan } from './plan/build.ts';
import { type BackendChoice, chooseBackend, judgeBackends } from './plan/choose.ts';
import { checkLandlockFit, describeLandlockBestEffort } from './plan/linux/landlock.ts';
import {
  isNestedSandboxFailure,
  NESTED_SANDBOX_MESSAGE,
  renderViolation,
  type SeatbeltViolation,
  selectViolations,
} from './plan/macos/seatbelt-violations.ts';
import type { BwrapPlan, Plan } from './plan/types.ts';
import { type ResolvedEnv, resolveEnv } from './policy/env.ts';
import { resolvePolicy } from './policy/resolve.ts';
import type { Platform, SandboxPolicy } from './policy/types.ts';
import { DEFAULT_PROFILE, loadProfile } from './profile/load.ts';
import { renderStreams } from './render/budget.ts';
import type { Annotation, RunResult, RunStatus } from './result/types.ts';

export interface RunDeps {
  readonly probe: (needs: { bwrap: boolean; landlock: boolean; cwd?: string | undefined }) => HostInfo;
  /** The calling process is a child subreaper (the CLI); the library's host program is not. */
  readonly subreaper: boolean;
  /** Plan for another OS (explain --platform): no real cwd check, the synthetic host's cwd. */
  readonly platform?: Platform | undefined;
  readonly cwdOverride?: string | undefined;
  /**
   * Landlock: confine this process's main thread just before spawning (the CLI, which exits
   * after the run) instead of starting a helper process. Never for the library.
   */
  readonly landlockInProcess?: boolean | undefined;
  /**
   * Creates and checks the sandbox cache on the real file system (prepareSandboxCache);
   * returns why it is unavailable, if it is. Absent (synthetic hosts: explain --platform,
   * golden tests): no sandbox cache is planned, so nothing is created.
   */
  readonly prepareCache?: ((layout: CacheLayout, uid: number) => string | undefined) | undefined;
}

export const defaultDeps: RunDeps = {
  probe: (needs) => probeHost(needs),
  subreaper: false,
  prepareCache: prepareSandboxCache,
};

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
  deps: RunDeps = defaultDeps,
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
      ? { ...probed, landlock: deps.probe({ bwrap: false, landlock: true }).landlock }
      : probed;
  let policy: SandboxPolicy | undefined;
  let envRequest = { keep: options.keepEnv ?? [], set: options.setEnv ?? {}, drop: [] as string[] };
  let cache: CacheLayout | undefined;
  let cacheWarning: string | undefined;
  if (request !== 'none') {
    const profile = loadProfile(options.profile ?? DEFAULT_PROFILE, cwd);
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
    envRequest = {
      keep: [...profile.env.keep, ...envRequest.keep],
      set: { ...profile.env.set, ...envRequest.set },
      drop: profile.env.drop.filter((n) => !envRequest.keep.includes(n)),
    };
  } else if (
    options.profile !== undefined ||
    options.read?.length ||
    options.write?.length ||
    options.deny?.length
  ) {
    throw new CordonError(
      'bad-flag',
      '--backend none runs without a sandbox, so --profile, --read, --write and --deny would not be enforced — drop them or choose a sandbox backend',
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
  const plan = buildPlan({
    backend: choice.backend,
    policy,
    command,
    env: envResolved.env,
    cwd,
    host,
    bestEffort: options.bestEffort ?? false,
  });
  return { command, cwd, host, policy, choice, env: envResolved, plan, cache, cacheWarning };
}

// bwrap and setpriv exec the command themselves; when that exec fails they print one line
// and exit 1 (bwrap) or 126/127 (setpriv). Recognise it so the result says not-found or
// not-executable, as a direct spawn would.
const EXEC_FAILURE =
  /(?:^|\n)(?:bwrap: execvp|setpriv: failed to execute) [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;

const LANDLOCK_EXEC_FAILURE = /(?:^|\n)cordon-landlock: execve [^\n]*: (ENOENT|EACCES|ENOEXEC|EISDIR)\n?$/;

function classify(outcome: SpawnOutcome, plan: Plan): RunStatus {
  if (!outcome.started) {
    if (outcome.cancelled) return 'cancelled';
    return outcome.failure ?? 'spawn-failed';
  }
  if (outcome.timedOut) return 'timed-out';
  if (outcome.cancelled) return 'cancelled';
  if (outcome.signal) return 'signaled';
  const wrapperFailure =
    (plan.backend === 'bwrap' && outcome.exitCode === 1) ||
    (plan.backend === 'none' &&
      plan.args[0] === '--pdeathsig' &&
      (outcome.exitCode === 126 || outcome.exitCode === 127));
  if (wrapperFailure) {
    const tail = outcome.stderr.tail.length > 0 ? outcome.stderr.tail : outcome.stderr.head;
    const match = EXEC_FAILURE.exec(tail.subarray(Math.max(0, tail.length - 512)).toString('utf8'));
    if (match) return match[1] === 'No such file or directory' ? 'not-found' : 'not-executable';
  }
  if (plan.backend === 'landlock' && (outcome.exitCode === 127 || outcome.exitCode === 126)) {
    const tail = outcome.stderr.tail.length > 0 ? outcome.stderr.tail : outcome.stderr.head;
    const match = LANDLOCK_EXEC_FAILURE.exec(tail.subarray(Math.max(0, tail.length - 512)).toString('utf8'));
    if (match) return match[1] === 'ENOENT' ? 'not-found' : 'not-executable';
  }
  return 'exited';
}

/**
 * The descriptors a bwrap plan reads at fds 3, 4, ...: one empty descriptor per masked file,
 * then the seccomp program. The program goes through a file in a private (0700) temp dir that
 * is unlinked before the spawn, so only the descriptor remains.
 */
function openBwrapDataFds(plan: BwrapPlan): number[] {
  const fds = Array.from({ length: plan.dataFds }, () => openSync('/dev/null', 'r'));
  if (plan.seccompProgram !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-seccomp-'));
    const file = join(dir, 'filter.bpf');
    try {
      writeFileSync(file, Buffer.from(plan.seccompProgram, 'base64'), { mode: 0o600 });
      fds.push(openSync(file, 'r'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return fds;
}

export async function executePlan(
  prepared: PreparedRun,
  options: RunOptions = {},
  deps: RunDeps = defaultDeps,
): Promise<RunResult> {
  if (process.platform === 'linux') {
    // Descriptors the host program inherited without close-on-exec would reach the command
    // (with bwrap, an inherited directory fd walks around every read-only mount). Setting the
    // flag on them only changes implicit inheritance; Node's explicit stdio dups are unaffected.
    const inheritable = listInheritableFds();
    if (inheritable.length > 0) (await import('./native/linux.ts')).setCloseOnExec(inheritable);
  }
  const budget = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const tracker = options.changes
    ? await startChangeTracking(prepared.policy, prepared.cwd, options.changes)
    : undefined;
  // Mount points for missing denied paths: created by cordon, pinned, removed by descriptor.
  const placeholders =
    prepared.plan.backend === 'bwrap' && prepared.plan.placeholders.length > 0
      ? (await import('./backends/bwrap/placeholders.ts')).createPlaceholders(
          prepared.plan.placeholders.map((p) => p.path),
        )
      : [];
  const tmp = prepareSeatbeltTmp(prepared.plan);
  const { plan } = tmp;
  const denialLog =
    plan.backend === 'seatbelt' && options.reportDenials ? await startSeatbeltLog() : undefined;
  let denials: SeatbeltViolation[] = [];
  // Landlock: a helper process (library) or this thread confined right before the spawn (CLI).
  const launch =
    plan.backend === 'landlock'
      ? await import('./backends/landlock/launch.ts').then((m) =>
          m.prepareLandlockLaunch(plan, deps.landlockInProcess ? 'self' : 'helper'),
        )
      : undefined;
  // bwrap: every bind checked by device/inode inside the sandbox before the command starts.
  const dataFds = plan.backend === 'bwrap' ? openBwrapDataFds(plan) : [];
  let gate: import('./backends/bwrap/mount-gate.ts').MountGate | undefined;
  try {
    if (plan.backend === 'bwrap')
      gate = (await import('./backends/bwrap/mount-gate.ts')).prepareMountGate(plan.args, 3 + dataFds.length);
  } catch (error) {
    for (const fd of dataFds) closeSync(fd);
    if (placeholders.length > 0)
      (await import('./backends/bwrap/placeholders.ts')).removePlaceholders(placeholders);
    throw error;
  }
  let gateCheck: Promise<void> | undefined;
  let outcome: SpawnOutcome;
  try {
    outcome =
      plan.backend === 'windows'
        ? await (await import('./backends/windows/launch.ts')).launchWindowsPlan(plan, {
            captureBytes: budget,
            timeoutMs: options.timeoutMs,
            signal: options.signal,
            onStart: options.onStart ? (pid) => options.onStart?.({ pid, backend: plan.backend }) : undefined,
            onProgress: options.onProgress,
            hostEnv: process.env,
          })
        : await spawnPlan({
            executable: launch?.executable ?? plan.executable,
            args: gate ? [...gate.args, ...plan.args] : (launch?.args ?? plan.args),
            env: launch?.env ?? plan.env,
            cwd: plan.cwd,
            captureBytes: budget,
            extraFds: gate ? [...dataFds, ...gate.childFds] : dataFds,
            realPipes: process.platform === 'linux',
            timeoutMs: options.timeoutMs,
            signal: options.signal,
            subreaper: deps.subreaper,
            onStart: (pid) => {
              if (gate) gateCheck = gate.check(pid);
              options.onStart?.({ pid, backend: plan.backend });
            },
            onProgress: options.onProgress,
          });
    await gateCheck;
  } finally {
    if (gate && !gateCheck) gate.abandon();
    if (denialLog) denials = await denialLog.stop();
    if (placeholders.length > 0)
      (await import('./backends/bwrap/placeholders.ts')).removePlaceholders(placeholders);
    await launch?.cleanup({ subreaper: deps.subreaper });
    tmp.cleanup();
  }
  const refused = gate?.failure();
  if (refused) throw refused;
  const changes = tracker ? await tracker.finish() : undefined;
  const status = classify(outcome, plan);
  const annotations: Annotation[] = [];
  if (status === 'not-found')
    annotations.push({ kind: 'note', message: `command not found: ${prepared.command[0]}` });
  if (status === 'not-executable')
    annotations.push({ kind: 'note', message: `command is not executable: ${prepared.command[0]}` });
  if (status === 'spawn-failed')
    annotations.push({
      kind: 'warning',
      message: `could not start the command: ${outcome.failureMessage ?? 'unknown error'}`,
    });
  if (plan.backend === 'seatbelt' && outcome.started && outcome.exitCode !== 0) {
    const head = outcome.stderr.head.subarray(0, 512).toString('utf8');
    if (isNestedSandboxFailure(head)) annotations.push({ kind: 'warning', message: NESTED_SANDBOX_MESSAGE });
  }
  if (prepared.policy) {
    const policy = prepared.policy;
    for (const v of selectViolations(denials)) annotations.push(renderViolation(v, policy));
  }
  for (const ne of plan.notEnforced)
    annotations.push({ kind: 'warning', message: `not enforced: ${ne.access} ${ne.path} (${ne.reason})` });
  if (outcome.started)
    annotations.push(
      ...denialAnnotations({
        policy: prepared.policy,
        plan,
        host: prepared.host,
        networkFromFlag: options.network !== undefined,
        stderr: outcome.stderr,
        known: annotations,
      }),
    );

  let stderr = outcome.stderr;
  if (annotations.length > 0) {
    // Annotations join the end of stderr before rendering, inside the same budget.
    const text = Buffer.from(annotations.map((a) => `cordon: ${a.message}\n`).join(''));
    stderr = {
      head: stderr.head,
      tail: Buffer.concat([stderr.tail, text]),
      totalBytes: stderr.totalBytes + text.length,
    };
  }
  const rendered = renderStreams(outcome.stdout, stderr, budget);
  const exitCode = status === 'exited' ? outcome.exitCode : null;
  return {
    version: RESULT_SCHEMA_VERSION,
    command: [...prepared.command],
    cwd: prepared.cwd,
    backend: plan.backend,
    profile: prepared.policy?.profile ?? 'none',
    started: outcome.started && status !== 'not-found' && status !== 'not-executable',
    status,
    exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    exitStatus: toExitStatus(status, exitCode, outcome.signal),
    durationMs: Math.round(outcome.durationMs),
    stdout: {
      text: rendered.stdout.text.toString('utf8'),
      totalBytes: outcome.stdout.totalBytes,
      omittedBytes: rendered.stdout.omittedBytes,
      truncated: rendered.stdout.truncated,
    },
    stderr: {
      text: rendered.stderr.text.toString('utf8'),
      totalBytes: outcome.stderr.totalBytes,
      omittedBytes: rendered.stderr.omittedBytes,
      truncated: rendered.stderr.truncated,
    },
    droppedEnv: prepared.env.dropped,
    cache: prepared.cache
      ? {
          mode: prepared.cache.mode,
          dir: prepared.cache.entry,
          env: prepared.cache.redirects.map((r) => r.name),
        }
      : prepared.cacheWarning
        ? { mode: 'unavailable', dir: null, env: [], reason: prepared.cacheWarning }
        : null,
    annotations,
    notEnforced: plan.notEnforced,
    ...(changes ? { changes } : {}),
  };
}

/** Runs `command` (an argv array, never a shell string) under the sandbox the options ask for. */
export async function run(
  command: readonly string[],
  options: RunOptions = {},
  deps: RunDeps = defaultDeps,
): Promise<RunResult> {
  const prepared = preparePlan(command, options, deps);
  return executePlan(prepared, options, deps);
}
