// The bubblewrap launcher: passes the plan's data descriptors (empty files for masked paths,
// then the seccomp program) as fds 3, 4, ..., spawns bwrap, and removes the mount points bwrap
// had to create for missing covered paths.
import { spawnPlan } from '../../exec/spawn.ts';
import { startRunProxy } from '../../net/run-proxy.ts';
import type { BwrapPlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import { startLimits } from '../limits.ts';
import type { LaunchContext, LaunchResult } from '../types.ts';
import { openBwrapDataFds } from './data-fds.ts';
import { missingPlaceholders, removePlaceholders } from './placeholders.ts';
import { signalInsideNamespace } from './signal.ts';
import { applyStatusReport, openStatusChannel } from './status.ts';
import { prepareBwrapLaunch } from './supervised.ts';

// bwrap prints this and exits 1 when it cannot exec the command (no status reporter).
const BWRAP_EXEC_FAILURE =
  /(?:^|\n)bwrap: execvp [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;
// The status reporter prints this and exits 127 or 126.
const REPORTER_EXEC_FAILURE =
  /(?:^|\n)cordon: cannot execute [^\n]*: (No such file or directory|Permission denied|Exec format error|Is a directory)\n?$/;

export async function launchBwrap(plan: BwrapPlan, ctx: LaunchContext): Promise<LaunchResult> {
  // The join step runs before bwrap: bwrap and everything it starts are born in the cgroup.
  // Created first: nothing else is left to undo if it fails.
  const limits = await startLimits(plan.limits);
  const created = missingPlaceholders(plan);
  const status = plan.statusFd === undefined ? undefined : openStatusChannel();
  // The allowlist proxy runs in this process for the run; the supervisor carries the
  // command's connections to its port (src/net/run-proxy.ts, unix-proxy.ts).
  const allow = plan.unixSupervisor?.proxy?.allow;
  const proxy = allow ? await startRunProxy(allow) : undefined;
  // With the unix-socket supervisor, it is started in bwrap's place and bwrap is its child.
  let net: Awaited<ReturnType<NonNullable<typeof proxy>['finish']>> | undefined;
  let supervised: ReturnType<typeof prepareBwrapLaunch>;
  let outcome: Awaited<ReturnType<typeof spawnPlan>>;
  try {
    supervised = prepareBwrapLaunch(
      proxy ? { ...plan, env: { ...plan.env, ...proxy.env } } : plan,
      proxy?.port,
    );
    const inner = supervised ?? plan;
    const start = limits ? limits.wrap(inner.executable, inner.args) : inner;
    outcome = await spawnPlan({
      executable: start.executable,
      args: start.args,
      env: supervised?.env ?? plan.env,
      cwd: plan.cwd,
      captureBytes: ctx.captureBytes,
      extraFds: [...openBwrapDataFds(plan), ...(status ? [status.writeFd] : [])],
      realPipes: true,
      timeoutMs: ctx.timeoutMs,
      timeoutSignal: ctx.timeoutSignal,
      killGraceMs: ctx.killAfterMs,
      signal: ctx.signal,
      subreaper: ctx.mode.subreaper,
      onStart: ctx.onStart,
      onProgress: ctx.onProgress,
      onOutput: ctx.onOutput,
      signalGracefully: plan.ownsPidNamespace
        ? (pid, sig) => signalInsideNamespace(pid, sig, supervised ? 1 : 0)
        : undefined,
    });
  } finally {
    removePlaceholders(created);
    await supervised?.cleanup();
    net = await proxy?.finish();
  }
  const reported = applyStatusReport(outcome, status?.read(), status !== undefined);
  const verdict = await limits?.finish(reported.outcome);
  const { exitCode } = reported.outcome;
  const execFailure = !reported.outcome.started
    ? undefined
    : exitCode === 1
      ? matchExecFailure(outcome.stderr, BWRAP_EXEC_FAILURE, 'No such file or directory')
      : status && (exitCode === 126 || exitCode === 127)
        ? matchExecFailure(outcome.stderr, REPORTER_EXEC_FAILURE, 'No such file or directory')
        : undefined;
  return {
    outcome: reported.outcome,
    execFailure,
    annotations: [...reported.annotations, ...(verdict?.annotations ?? []), ...(net?.annotations ?? [])],
    limit: verdict?.limit,
    network: net?.network,
  };
}
