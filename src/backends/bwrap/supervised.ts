// Starting a bubblewrap plan whose unix sockets are supervised (plan.unixSupervisor): the
// bwrap launcher (launch.ts) spawns `node unix-supervisor.js SPEC -- BWRAP ARGS` instead of
// bwrap (unix-entry.ts). The
// supervisor passes stdio and bwrap's data descriptors straight through and exits as bwrap
// does, so the runner's timeout, group kill and exit classification see the same thing.
// Cost: one extra Node start per run (measured in docs/unix-sockets.md).
import { existsSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { CordonError } from '../../errors.ts';
import type { BwrapPlan } from '../../plan/types.ts';
import { encodeHelperEnv } from '../landlock/helper-env.ts';
import type { UnixHelperSpec } from './unix-entry.ts';

export interface BwrapLaunch {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Nothing to remove (the supervisor exits with bwrap); the same shape as Landlock's launch. */
  cleanup(): Promise<void>;
}

export function findUnixHelper(): string {
  const here = new URL('.', import.meta.url);
  for (const rel of ['../unix-supervisor.js', './unix-supervisor.js', './unix-entry.ts']) {
    const candidate = fileURLToPath(new URL(rel, here));
    if (existsSync(candidate)) return candidate;
  }
  throw new CordonError(
    'internal',
    `cannot find cordon's unix-socket supervisor (unix-supervisor.js) next to ${fileURLToPath(here)} — reinstall cordon`,
  );
}

/**
 * Whether the supervisor helper ships with this build (the npm package and a checkout do; a
 * single executable has no separate script and no worker file, so it runs without it).
 */
export function unixHelperAvailable(): boolean {
  // In a single executable process.execPath is cordon itself, not a Node that runs scripts.
  if (isSea()) return false;
  try {
    findUnixHelper();
    return true;
  } catch {
    return false;
  }
}

/** undefined: spawn bwrap itself (no supervisor in the plan). */
/** `gateFds`: the mount gate's descriptors, passed through after the plan's own. */
export function prepareBwrapLaunch(
  plan: BwrapPlan,
  gateFds = 0,
  proxyPort?: number,
): BwrapLaunch | undefined {
  const sup = plan.unixSupervisor;
  if (!sup) return undefined;
  const spec: UnixHelperSpec = {
    network: sup.network,
    allow: sup.allow,
    // Passed straight through: the masks' data descriptors, the seccomp program, the status pipe.
    dataFds:
      plan.dataFds +
      (plan.seccompProgram === undefined ? 0 : 1) +
      (plan.statusFd === undefined ? 0 : 1) +
      gateFds,
    parentPid: process.pid,
    ...(proxyPort === undefined ? {} : { proxyPort }),
  };
  return {
    executable: process.execPath,
    args: ['--no-warnings', findUnixHelper(), JSON.stringify(spec), '--', plan.executable, ...plan.args],
    env: encodeHelperEnv(plan.env),
    cleanup: async () => {},
  };
}
