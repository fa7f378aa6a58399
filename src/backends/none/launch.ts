// --backend none: no sandbox. The command is spawned directly, or through `setpriv
// --pdeathsig KILL` (plan.parentDeathWrapper) so it dies with cordon.
import { spawnPlan } from '../../exec/spawn.ts';
import { SH_EXEC_FAILURE } from '../../limits/wrap.ts';
import type { NonePlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import { startLimits } from '../limits.ts';
import { commonSpawnFields, type LaunchContext, type LaunchResult } from '../types.ts';

const SETPRIV_EXEC_FAILURE =
  /(?:^|\n)setpriv: failed to execute [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;

export async function launchNone(plan: NonePlan, ctx: LaunchContext): Promise<LaunchResult> {
  const limits = await startLimits(plan.limits);
  const start = limits ? limits.wrap(plan.executable, plan.args) : plan;
  const outcome = await spawnPlan({
    executable: start.executable,
    args: start.args,
    env: plan.env,
    cwd: plan.cwd,
    ...commonSpawnFields(ctx),
    realPipes: process.platform === 'linux',
  });
  const verdict = await limits?.finish(outcome);
  const wrapperExit = outcome.started && (outcome.exitCode === 126 || outcome.exitCode === 127);
  return {
    outcome,
    execFailure: !wrapperExit
      ? undefined
      : plan.parentDeathWrapper
        ? matchExecFailure(outcome.stderr, SETPRIV_EXEC_FAILURE, 'No such file or directory')
        : limits
          ? matchExecFailure(outcome.stderr, SH_EXEC_FAILURE, 'not found')
          : undefined,
    annotations: verdict?.annotations ?? [],
    limit: verdict?.limit,
  };
}
