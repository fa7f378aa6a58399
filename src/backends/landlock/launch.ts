// Starting a Landlock plan without ever confining the caller's own work: always through the
// helper (`node landlock-exec.js`), a fresh process that confines itself and execve()s the
// command (same pid, so the runner's group kill and timeout work unchanged). Costs one Node
// start (~60-120 ms). cordon itself stays outside the command's Landlock domain, so with
// ABI >= 6 (LANDLOCK_SCOPE_SIGNAL) the command cannot kill or stop the process that enforces
// its timeout, and Landlock's ptrace rule keeps it from cordon's memory. (The CLI used to
// confine its own main thread instead: the command shared cordon's domain, and `kill -9
// $PPID` or `kill -STOP $PPID` disarmed the timeout.) Reasoning: docs/landlock.md.
import { existsSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { CordonError } from '../../errors.ts';
import { spawnPlan } from '../../exec/spawn.ts';
import type { ConfineSpec } from '../../native/landlock.ts';
import { rightsFor } from '../../plan/linux/landlock.ts';
import type { LandlockPlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import { startLimits } from '../limits.ts';
import { commonSpawnFields, type LaunchContext, type LaunchResult } from '../types.ts';
import { createRunCgroup } from './cgroup.ts';
import { encodeHelperEnv } from './helper-env.ts';
import { createPrivateTmp, type PrivateTmp } from './private-tmp.ts';

export interface LandlockLaunch {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly privateTmp?: string | undefined;
  /** Removes the private TMPDIR (descriptor-relative; see private-tmp.ts). */
  cleanup(opts?: { subreaper?: boolean | undefined }): Promise<void>;
}

export function findHelper(): string {
  // A single executable has no separate helper script (and its Node runs no scripts): the
  // Landlock backend needs the npm package there.
  if (isSea())
    throw new CordonError(
      'backend-unavailable',
      'the single executable cannot run the Landlock backend (its helper ships only with the npm package) — use bubblewrap (apt-get install bubblewrap) or the npm package',
    );
  const here = new URL('.', import.meta.url);
  for (const rel of ['../landlock-exec.js', './landlock-exec.js', './exec-entry.ts']) {
    const candidate = fileURLToPath(new URL(rel, here));
    if (existsSync(candidate)) return candidate;
  }
  throw new CordonError(
    'internal',
    `cannot find cordon's Landlock helper (landlock-exec.js) next to ${fileURLToPath(here)} — reinstall cordon`,
  );
}

export { decodeHelperEnv, encodeHelperEnv, HELPER_ENV_PREFIX } from './helper-env.ts';

export function toConfineSpec(plan: LandlockPlan, privateTmp: string | undefined): ConfineSpec {
  const rules = plan.rules.map((r) => ({ path: r.path, rights: r.rights }));
  if (privateTmp) rules.push({ path: privateTmp, rights: rightsFor('write', 'dir', plan.handledFs) });
  return {
    abi: plan.abi,
    handledFs: plan.handledFs,
    handledNet: plan.handledNet,
    scoped: plan.scoped,
    rules,
    seccomp: plan.seccomp,
  };
}

export async function prepareLandlockLaunch(
  plan: LandlockPlan,
  options: { readonly runCgroup?: boolean } = {},
): Promise<LandlockLaunch> {
  // The private TMPDIR is pinned (parent fd and its own inode) and removed fd-relative.
  const tmp: PrivateTmp | undefined = plan.privateTmp
    ? await createPrivateTmp(plan.privateTmp.parent, plan.privateTmp.prefix)
    : undefined;
  const privateTmp = tmp?.path;
  const env = privateTmp ? { ...plan.env, TMPDIR: privateTmp } : { ...plan.env };
  // Everything the command starts stays in this cgroup and is killed with it (where cordon may
  // create one: see cgroup.ts); the helper joins it before confining itself.
  const cgroup = options.runCgroup === false ? undefined : createRunCgroup();
  const cleanup = async (opts: { subreaper?: boolean | undefined } = {}) => {
    await cgroup?.kill();
    await tmp?.remove(opts);
  };
  const spec: ConfineSpec = {
    ...toConfineSpec(plan, privateTmp),
    ...(cgroup ? { cgroupProcs: cgroup.procs } : {}),
  };
  return {
    executable: process.execPath,
    args: ['--no-warnings', findHelper(), JSON.stringify(spec), '--', plan.executable, ...plan.args],
    env: encodeHelperEnv(env),
    cwd: plan.cwd,
    privateTmp,
    cleanup,
  };
}

// cordon's helper prints this and exits 126/127 when it cannot exec the command.
const LANDLOCK_EXEC_FAILURE = /(?:^|\n)cordon-landlock: execve [^\n]*: (ENOENT|EACCES|ENOEXEC|EISDIR)\n?$/;

export async function launchLandlock(plan: LandlockPlan, ctx: LaunchContext): Promise<LaunchResult> {
  // Limits: the join step (limits/wrap.ts) runs before the helper, so the helper and the command
  // are born in the limits cgroup, which then also ends the run (no separate run cgroup: the
  // helper joining one would leave the limits cgroup).
  const joins = plan.limits?.cgroup !== undefined || plan.limits?.fileSizeBlocks !== undefined;
  const launch = await prepareLandlockLaunch(plan, { runCgroup: plan.limits?.cgroup === undefined });
  let limits: Awaited<ReturnType<typeof startLimits>>;
  try {
    limits = joins ? await startLimits(plan.limits) : undefined;
  } catch (error) {
    await launch.cleanup();
    throw error;
  }
  const start = limits ? limits.wrap(launch.executable, launch.args) : launch;
  let outcome: Awaited<ReturnType<typeof spawnPlan>>;
  try {
    outcome = await spawnPlan({
      executable: start.executable,
      args: start.args,
      env: launch.env,
      cwd: plan.cwd,
      ...commonSpawnFields(ctx),
      realPipes: true,
    });
  } finally {
    await launch.cleanup({ subreaper: ctx.mode.subreaper });
  }
  const verdict = limits ? await limits.finish(outcome) : undefined;
  return {
    outcome,
    execFailure:
      outcome.started && (outcome.exitCode === 127 || outcome.exitCode === 126)
        ? matchExecFailure(outcome.stderr, LANDLOCK_EXEC_FAILURE, 'ENOENT')
        : undefined,
    annotations: verdict?.annotations ?? [],
    limit: verdict?.limit,
  };
}
