// Orchestration: prepare (options → policy → plan, src/prepare.ts) → launch (the plan's backend
// under src/backends/<name>/) → result (the pure builder in src/result/build.ts). The CLI and
// the library share this; they differ only in their LaunchMode.
import { type LaunchContext, type LaunchMode, type LaunchResult, LIBRARY_MODE } from './backends/types.ts';
import { startChangeTracking } from './changes/for-run.ts';
import { CordonError } from './errors.ts';
import { toExitStatus } from './exec/exit-status.ts';
import { listInheritableFds } from './exec/procfs.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from './options/defaults.ts';
import type { RunOptions } from './options/types.ts';
import { validateCommand, validateRunOptions } from './options/validate.ts';
import type { Plan } from './plan/types.ts';
import { PLAN_ONLY_SEAMS, type PreparedRun, preparePlan } from './prepare.ts';
import { buildResult } from './result/build.ts';
import type { RunResult } from './result/types.ts';

/** Starts the plan with the launcher its backend owns. */
async function launch(plan: Plan, ctx: LaunchContext): Promise<LaunchResult> {
  switch (plan.backend) {
    case 'none':
      return (await import('./backends/none/launch.ts')).launchNone(plan, ctx);
    case 'bwrap':
      return (await import('./backends/bwrap/launch.ts')).launchBwrap(plan, ctx);
    case 'landlock':
      return (await import('./backends/landlock/launch.ts')).launchLandlock(plan, ctx);
    case 'seatbelt':
      return (await import('./backends/seatbelt/launch.ts')).launchSeatbelt(plan, ctx);
    case 'windows':
      return (await import('./backends/windows/launch.ts')).launchWindows(plan, ctx);
    default: {
      const unknown: never = plan;
      throw new CordonError('internal', `no launcher for backend ${(unknown as Plan).backend}`);
    }
  }
}

/**
 * Descriptors the host program inherited without close-on-exec would reach the command (with
 * bwrap, an inherited directory fd walks around every read-only mount). Setting the flag on
 * them only changes implicit inheritance; Node's explicit stdio dups are unaffected.
 */
async function closeInheritedFds(): Promise<void> {
  if (process.platform !== 'linux') return;
  const inheritable = listInheritableFds();
  if (inheritable.length > 0) (await import('./native/linux.ts')).setCloseOnExec(inheritable);
}

export async function executePlan(
  prepared: PreparedRun,
  options: RunOptions = {},
  mode: LaunchMode = LIBRARY_MODE,
): Promise<RunResult> {
  await closeInheritedFds();
  const budget = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const tracker = options.changes
    ? await startChangeTracking(prepared.policy, prepared.cwd, options.changes)
    : undefined;
  const { plan } = prepared;
  const launched = await launch(plan, {
    captureBytes: budget,
    timeoutMs: options.timeoutMs,
    timeoutSignal: options.timeoutSignal,
    killAfterMs: options.killAfterMs,
    signal: options.signal,
    mode,
    policy: prepared.policy,
    reportDenials: options.reportDenials ?? false,
    hostEnv: process.env,
    onStart: options.onStart ? (pid) => options.onStart?.({ pid, backend: plan.backend }) : undefined,
    onProgress: options.onProgress,
    onOutput: options.onOutput,
  });
  const changes = tracker ? await tracker.finish() : undefined;
  return buildResult({
    prepared,
    launch: launched,
    budget,
    requestedBackend: options.backend ?? 'auto',
    networkFromFlag: options.network !== undefined,
    changes,
    exitStatusOf: toExitStatus,
  });
}

/** Runs `command` (an argv array, never a shell string) under the sandbox the options ask for. */
export async function run(command: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const argv = validateCommand(command);
  const checked = validateRunOptions(options);
  return executePlan(preparePlan(argv, checked), checked, LIBRARY_MODE);
}

/** The plan `run` would execute, with the resolved policy and the backend choice; runs nothing. */
export function explain(command: readonly string[], options: RunOptions = {}): PreparedRun {
  return preparePlan(validateCommand(command), validateRunOptions(options), PLAN_ONLY_SEAMS);
}
