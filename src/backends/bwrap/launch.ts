// The bubblewrap launcher: creates the placeholders for missing covered paths (pinned), passes
// the plan's data descriptors (empty files for masked paths, the seccomp program, the status
// pipe, the mount gate's) as fds 3, 4, ..., spawns bwrap (under the limits join step and the
// unix-socket supervisor where they apply), holds the command until the mount gate has checked
// every bind, and removes the placeholders by descriptor afterwards.
import { closeSync } from 'node:fs';
import { spawnPlan } from '../../exec/spawn.ts';
import { startRunProxy } from '../../net/run-proxy.ts';
import type { BwrapPlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import { startLimits } from '../limits.ts';
import type { LaunchContext, LaunchResult } from '../types.ts';
import { openBwrapDataFds } from './data-fds.ts';
import { type MountGate, prepareMountGate } from './mount-gate.ts';
import { createPlaceholders, removePlaceholders } from './placeholders.ts';
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
  // Mount points for missing denied paths: created by cordon, pinned, removed by descriptor.
  const placeholders =
    plan.placeholders.length > 0 ? createPlaceholders(plan.placeholders.map((p) => p.path)) : [];
  const status = plan.statusFd === undefined ? undefined : openStatusChannel();
  // The allowlist proxy runs in this process for the run; the supervisor carries the
  // command's connections to its port (src/net/run-proxy.ts, unix-proxy.ts).
  const allow = plan.unixSupervisor?.proxy?.allow;
  const proxy = allow ? await startRunProxy(allow) : undefined;
  let net: Awaited<ReturnType<NonNullable<typeof proxy>['finish']>> | undefined;
  // Descriptors 3, 4, ...: the masks' data, the seccomp program, the status pipe, then the
  // mount gate's (every bind checked by device/inode inside the sandbox before the command).
  const dataFds = [...openBwrapDataFds(plan), ...(status ? [status.writeFd] : [])];
  let gate: MountGate;
  try {
    gate = prepareMountGate(plan.args, 3 + dataFds.length);
  } catch (error) {
    for (const fd of dataFds) closeSync(fd);
    removePlaceholders(placeholders);
    throw error;
  }
  const bwrapArgs = [...gate.args, ...plan.args];
  // With the unix-socket supervisor, it is started in bwrap's place and bwrap is its child.
  const supervised = prepareBwrapLaunch(
    { ...plan, args: bwrapArgs, env: proxy ? { ...plan.env, ...proxy.env } : plan.env },
    gate.childFds.length,
    proxy?.port,
  );
  const inner = supervised ?? { executable: plan.executable, args: bwrapArgs };
  const start = limits ? limits.wrap(inner.executable, inner.args) : inner;
  let gateCheck: Promise<void> | undefined;
  let outcome: Awaited<ReturnType<typeof spawnPlan>>;
  try {
    outcome = await spawnPlan({
      executable: start.executable,
      args: start.args,
      env: supervised?.env ?? (proxy ? { ...plan.env, ...proxy.env } : plan.env),
      cwd: plan.cwd,
      captureBytes: ctx.captureBytes,
      extraFds: [...dataFds, ...gate.childFds],
      realPipes: true,
      timeoutMs: ctx.timeoutMs,
      timeoutSignal: ctx.timeoutSignal,
      killGraceMs: ctx.killAfterMs,
      signal: ctx.signal,
      subreaper: ctx.mode.subreaper,
      onStart: (pid) => {
        gateCheck = gate.check(pid);
        ctx.onStart?.(pid);
      },
      onProgress: ctx.onProgress,
      onOutput: ctx.onOutput,
      signalGracefully: plan.ownsPidNamespace
        ? (pid, sig) => signalInsideNamespace(pid, sig, supervised ? 1 : 0)
        : undefined,
    });
    await gateCheck;
  } finally {
    if (!gateCheck) gate.abandon();
    removePlaceholders(placeholders);
    await supervised?.cleanup();
    net = await proxy?.finish();
  }
  const refused = gate.failure();
  if (refused) {
    await limits?.finish(outcome);
    throw refused;
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
