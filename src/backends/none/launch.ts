// --backend none: no sandbox. The command is spawned directly, or through `setpriv
// --pdeathsig KILL` (plan.parentDeathWrapper) so it dies with cordon.
import { spawnPlan } from '../../exec/spawn.ts';
import type { NonePlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import type { LaunchContext, LaunchResult } from '../types.ts';

const SETPRIV_EXEC_FAILURE =
  /(?:^|\n)setpriv: failed to execute [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;

export async function launchNone(plan: NonePlan, ctx: LaunchContext): Promise<LaunchResult> {
  const outcome = await spawnPlan({
    executable: plan.executable,
    args: plan.args,
    env: plan.env,
    cwd: plan.cwd,
    captureBytes: ctx.captureBytes,
    realPipes: process.platform === 'linux',
    timeoutMs: ctx.timeoutMs,
    timeoutSignal: ctx.timeoutSignal,
    killGraceMs: ctx.killAfterMs,
    signal: ctx.signal,
    subreaper: ctx.mode.subreaper,
    onStart: ctx.onStart,
    onProgress: ctx.onProgress,
    onOutput: ctx.onOutput,
  });
  const wrapperExit =
    plan.parentDeathWrapper && outcome.started && (outcome.exitCode === 126 || outcome.exitCode === 127);
  return {
    outcome,
    execFailure: wrapperExit
      ? matchExecFailure(outcome.stderr, SETPRIV_EXEC_FAILURE, 'No such file or directory')
      : undefined,
    annotations: [],
  };
}
