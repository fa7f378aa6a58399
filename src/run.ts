// Orchestration: options → policy → plan → exec → collect → render → result, with the
// machine-facing parts injectable (probe, subreaper) so the CLI and the library share it.
// `preparePlan` is the pipeline stopped after plan (explain uses it); `run` goes to the end.
import { lstatSync, rmSync, statSync } from 'node:fs';
import { startChangeTracking } from './changes/for-run.ts';
import { denialAnnotations } from './denials/for-run.ts';
import { CordonError } from './errors.ts';
import { toExitStatus } from './exec/exit-status.ts';
import { type SpawnOutcome, spawnPlan } from './exec/spawn.ts';
import { probeHost, realpathLenient } from './host/probe.ts';
import type { HostInfo } from './host/types.ts';
import { CLEAR_ENV_KEEP, DEFAULT_MAX_OUTPUT_BYTES, RESULT_SCHEMA_VERSION } from './options/defaults.ts';
import type { RunOptions } from './options/types.ts';
import { buildPlan } from './plan/build.ts';
import { type BackendChoice, chooseBackend, judgeBackends } from './plan/choose.ts';
import type { Plan } from './plan/types.ts';
import { type ResolvedEnv, resolveEnv } from './policy/env.ts';
import { resolvePolicy } from './policy/resolve.ts';
import type { Platform, SandboxPolicy } from './policy/types.ts';
import { DEFAULT_PROFILE, loadProfile } from './profile/load.ts';
import { renderStreams } from './render/budget.ts';
import type { Annotation, RunResult, RunStatus } from './result/types.ts';

export interface RunDeps {
  readonly probe: (needs: { bwrap: boolean; landlock: boolean }) => HostInfo;
  /** The calling process is a child subreaper (the CLI); the library's host program is not. */
  readonly subreaper: boolean;
  /** Plan for another OS (explain --platform): no real cwd check, the synthetic host's cwd. */
  readonly platform?: Platform | undefined;
  readonly cwdOverride?: string | undefined;
}

export const defaultDeps: RunDeps = {
  probe: (needs) => probeHost(needs),
  subreaper: false,
};

export interface PreparedRun {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly host: HostInfo;
  readonly policy: SandboxPolicy | undefined;
  readonly choice: BackendChoice;
  readonly env: ResolvedEnv;
  readonly plan: Plan;
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
  const host = deps.probe({
    bwrap: platform === 'linux' && (request === 'auto' || request === 'bwrap'),
    landlock: platform === 'linux' && (request === 'auto' || request === 'landlock'),
  });
  const env = resolveEnv(
    options.env ?? process.env,
    { keep: options.keepEnv ?? [], set: options.setEnv ?? {}, drop: [], clear: options.clearEnv ?? false },
    CLEAR_ENV_KEEP,
  );
  let policy: SandboxPolicy | undefined;
  let envResolved = env;
  if (request !== 'none') {
    const profile = loadProfile(options.profile ?? DEFAULT_PROFILE, cwd);
    const network = options.network === undefined ? undefined : options.network ? 'on' : 'off';
    policy = resolvePolicy(
      profile,
      { read: options.read ?? [], write: options.write ?? [], deny: options.deny ?? [], network },
      host,
      cwd,
    );
    envResolved = resolveEnv(
      options.env ?? process.env,
      {
        keep: [...profile.env.keep, ...(options.keepEnv ?? [])],
        set: { ...profile.env.set, ...(options.setEnv ?? {}) },
        drop: profile.env.drop.filter((n) => !(options.keepEnv ?? []).includes(n)),
        clear: options.clearEnv ?? false,
      },
      CLEAR_ENV_KEEP,
    );
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
  const verdicts = judgeBackends(host, policy, () => undefined);
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
  return { command, cwd, host, policy, choice, env: envResolved, plan };
}

const BWRAP_EXEC_FAILURE =
  /(?:^|\n)bwrap: execvp [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;

function classify(outcome: SpawnOutcome, plan: Plan): RunStatus {
  if (!outcome.started) {
    if (outcome.cancelled) return 'cancelled';
    return outcome.failure ?? 'spawn-failed';
  }
  if (outcome.timedOut) return 'timed-out';
  if (outcome.cancelled) return 'cancelled';
  if (outcome.signal) return 'signaled';
  if (plan.backend === 'bwrap' && outcome.exitCode === 1) {
    const tail = outcome.stderr.tail.length > 0 ? outcome.stderr.tail : outcome.stderr.head;
    const match = BWRAP_EXEC_FAILURE.exec(tail.subarray(Math.max(0, tail.length - 512)).toString('utf8'));
    if (match) return match[1] === 'No such file or directory' ? 'not-found' : 'not-executable';
  }
  return 'exited';
}

function existingPlaceholders(plan: Plan): string[] {
  if (plan.backend !== 'bwrap') return [];
  return plan.placeholders
    .map((p) => p.path)
    .filter((p) => {
      try {
        lstatSync(p);
        return false;
      } catch {
        return true;
      }
    });
}

function removePlaceholders(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      const st = lstatSync(path);
      // Only the empty mount point bwrap left; anything else is not ours to delete.
      if (st.isFile() && st.size === 0) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  }
}

export async function executePlan(
  prepared: PreparedRun,
  options: RunOptions = {},
  deps: RunDeps = defaultDeps,
): Promise<RunResult> {
  const { plan } = prepared;
  const budget = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const tracker = options.changes
    ? await startChangeTracking(prepared.policy, prepared.cwd, options.changes)
    : undefined;
  const created = existingPlaceholders(plan);
  let outcome: SpawnOutcome;
  try {
    outcome = await spawnPlan({
      executable: plan.executable,
      args: plan.args,
      env: plan.env,
      cwd: plan.cwd,
      captureBytes: budget,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      subreaper: deps.subreaper,
      onStart: options.onStart ? (pid) => options.onStart?.({ pid, backend: plan.backend }) : undefined,
      onProgress: options.onProgress,
    });
  } finally {
    removePlaceholders(created);
  }
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
