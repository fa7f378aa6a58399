// The Seatbelt launcher: makes the per-run private temp dir, starts the denial log when asked,
// spawns /usr/bin/sandbox-exec, and turns what the log saw (and a nested-sandbox refusal) into
// annotations.
import { spawnPlan } from '../../exec/spawn.ts';
import { startRunProxy } from '../../net/run-proxy.ts';
import { withProxyPort } from '../../plan/macos/seatbelt-proxy.ts';
import type { SeatbeltPlan } from '../../plan/types.ts';
import type { Annotation } from '../../result/types.ts';
import { startLimits } from '../limits.ts';
import { commonSpawnFields, type LaunchContext, type LaunchResult } from '../types.ts';
import { startSeatbeltLog } from './log.ts';
import { prepareSeatbeltTmp } from './tmp.ts';
import {
  isNestedSandboxFailure,
  NESTED_SANDBOX_MESSAGE,
  renderViolation,
  type SeatbeltViolation,
  selectViolations,
} from './violations.ts';

export async function launchSeatbelt(original: SeatbeltPlan, ctx: LaunchContext): Promise<LaunchResult> {
  // The allowlist proxy (src/net/run-proxy.ts): its port goes into the profile, its secret URL
  // into the proxy variables. Written for macOS, not yet run there (docs/net-allowlist.md).
  const proxy = original.proxy ? await startRunProxy(original.proxy.allow) : undefined;
  let tmp: ReturnType<typeof prepareSeatbeltTmp>;
  try {
    tmp = prepareSeatbeltTmp(proxy ? withProxyPort(original, proxy.port, proxy.env) : original);
  } catch (error) {
    await proxy?.finish();
    throw error;
  }
  const { plan } = tmp;
  let net: Awaited<ReturnType<NonNullable<typeof proxy>['finish']>> | undefined;
  const denialLog = ctx.reportDenials ? await startSeatbeltLog() : undefined;
  let denials: SeatbeltViolation[] = [];
  let outcome: Awaited<ReturnType<typeof spawnPlan>>;
  // RLIMIT_FSIZE: the join step sets it before sandbox-exec starts (no cgroup on macOS).
  const limits = await startLimits(plan.limits);
  const start = limits ? limits.wrap(plan.executable, plan.args) : plan;
  try {
    outcome = await spawnPlan({
      executable: start.executable,
      args: start.args,
      env: plan.env,
      cwd: plan.cwd,
      ...commonSpawnFields(ctx),
    });
  } finally {
    if (denialLog) denials = await denialLog.stop();
    tmp.cleanup();
    net = await proxy?.finish();
  }
  const annotations: Annotation[] = [];
  if (outcome.started && outcome.exitCode !== 0) {
    const head = outcome.stderr.head.subarray(0, 512).toString('utf8');
    if (isNestedSandboxFailure(head)) annotations.push({ kind: 'warning', message: NESTED_SANDBOX_MESSAGE });
  }
  const policy = ctx.policy;
  if (policy) for (const v of selectViolations(denials)) annotations.push(renderViolation(v, policy));
  const verdict = await limits?.finish(outcome);
  if (verdict) annotations.push(...verdict.annotations);
  if (net) annotations.push(...net.annotations);
  return { outcome, annotations, limit: verdict?.limit, network: net?.network };
}
