// Starting a Landlock plan without ever confining the caller's own work: always through the
// helper (`node landlock-exec.js`), a fresh process that confines itself and execve()s the
// command (same pid, so the runner's group kill and timeout work unchanged). Costs one Node
// start (~60-120 ms). cordon itself stays outside the command's Landlock domain, so with
// ABI >= 6 (LANDLOCK_SCOPE_SIGNAL) the command cannot kill or stop the process that enforces
// its timeout, and Landlock's ptrace rule keeps it from cordon's memory. (The CLI used to
// confine its own main thread instead: the command shared cordon's domain, and `kill -9
// $PPID` or `kill -STOP $PPID` disarmed the timeout.) Reasoning: docs/landlock.md.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CordonError } from '../../errors.ts';
import { spawnPlan } from '../../exec/spawn.ts';
import type { ConfineSpec } from '../../native/landlock.ts';
import { rightsFor } from '../../plan/linux/landlock.ts';
import type { LandlockPlan } from '../../plan/types.ts';
import { matchExecFailure } from '../exec-failure.ts';
import { startLimits } from '../limits.ts';
import type { LaunchContext, LaunchResult } from '../types.ts';
import { createRunCgroup } from './cgroup.ts';

export interface LandlockLaunch {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly privateTmp?: string | undefined;
  cleanup(): Promise<void>;
}

export function findHelper(): string {
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

/** Prefix of the variables carrying the command's environment to the helper. */
export const HELPER_ENV_PREFIX = 'CORDON_LANDLOCK_ENV_';
const CHUNK_CHARS = 96 * 1024; // below the kernel's 128 KiB limit for one env string

/**
 * The command's environment for the helper: JSON, base64, in chunks of ≤ 96 KiB, as the
 * helper's ONLY variables. Not argv (world-readable in /proc/PID/cmdline), and not the plain
 * variables (NODE_OPTIONS and friends would configure the helper's own Node).
 */
export function encodeHelperEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const text = Buffer.from(JSON.stringify(env)).toString('base64');
  const out: Record<string, string> = {};
  for (let i = 0; i * CHUNK_CHARS < text.length || i === 0; i++)
    out[`${HELPER_ENV_PREFIX}${i}`] = text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
  return out;
}

export function decodeHelperEnv(vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let text = '';
  for (let i = 0; vars[`${HELPER_ENV_PREFIX}${i}`] !== undefined; i++)
    text += vars[`${HELPER_ENV_PREFIX}${i}`];
  return JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Record<string, string>;
}

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
  let privateTmp: string | undefined;
  if (plan.privateTmp) {
    privateTmp = await mkdtemp(join(plan.privateTmp.parent, plan.privateTmp.prefix));
    await chmod(privateTmp, 0o700);
  }
  const env = privateTmp ? { ...plan.env, TMPDIR: privateTmp } : { ...plan.env };
  // Everything the command starts stays in this cgroup and is killed with it (where cordon may
  // create one: see cgroup.ts); the helper joins it before confining itself.
  const cgroup = options.runCgroup === false ? undefined : createRunCgroup();
  const cleanup = async () => {
    await cgroup?.kill();
    if (privateTmp) await rm(privateTmp, { recursive: true, force: true }).catch(() => {});
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
      captureBytes: ctx.captureBytes,
      realPipes: true,
      timeoutMs: ctx.timeoutMs,
      timeoutSignal: ctx.timeoutSignal,
      killGraceMs: ctx.killAfterMs,
      signal: ctx.signal,
      subreaper: ctx.mode.subreaper,
      onStart: ctx.onStart,
      onProgress: ctx.onProgress,
      onOutput: ctx.onOutput,
    });
  } finally {
    await launch.cleanup();
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
