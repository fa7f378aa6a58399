// Requested limits + HostInfo + backend → LimitsPlan: which mechanism enforces each limit, or a
// refusal (CordonError, exit 125) naming the limit and the fix. Pure.
//   Linux: pids, memory, cpuTime need a per-run cgroup (host.cgroup); fileSize is RLIMIT_FSIZE.
//   macOS: fileSize is RLIMIT_FSIZE; RLIMIT_NPROC counts the user's processes, RLIMIT_AS is
//     address space and RLIMIT_CPU is per process, so pids, memory, cpuTime are not enforced.
//   Windows: the job object's limits (active processes, job memory, per-job user time); no
//     per-file limit exists.
// A limit a built-in profile sets where it has no mechanism is listed as not enforced (the
// built-in defaults harden; they must not make a profile unusable on a platform); one the user
// asked for is refused unless bestEffort.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { BackendName } from '../plan/types.ts';
import {
  formatLimitValue,
  LIMIT_NAMES,
  type LimitMechanism,
  type LimitName,
  type LimitsPlan,
  limitLabel,
  type PlannedLimit,
} from './types.ts';

export interface RequestedLimit {
  readonly value: number;
  readonly source: string;
  /** Set by a built-in profile (not by the user). */
  readonly builtin: boolean;
}

export type LimitRequest = { readonly [K in LimitName]?: RequestedLimit | undefined };

function mechanismFor(
  name: LimitName,
  host: HostInfo,
  backend: BackendName,
): { mechanism: LimitMechanism; reason?: string } {
  if (host.platform === 'win32') {
    if (name === 'fileSize')
      return { mechanism: 'not-enforced', reason: 'Windows has no per-file size limit' };
    return backend === 'windows'
      ? { mechanism: 'job-object' }
      : { mechanism: 'not-enforced', reason: `the ${backend} backend has no job object` };
  }
  if (name === 'fileSize') return { mechanism: 'rlimit' };
  if (host.platform === 'darwin')
    return {
      mechanism: 'not-enforced',
      reason:
        name === 'pids'
          ? "macOS has no per-run process count (RLIMIT_NPROC counts all of the user's processes)"
          : name === 'memory'
            ? 'macOS has no per-run memory limit (RLIMIT_AS is address space: V8, Go, Java reserve gigabytes)'
            : 'macOS has no per-run CPU time (RLIMIT_CPU is per process; children start afresh)',
    };
  const cg = host.cgroup;
  if (cg?.usable) return { mechanism: cg.version === 1 ? 'cgroup1' : 'cgroup2' };
  return { mechanism: 'not-enforced', reason: cg?.reason ?? 'no cgroup was probed' };
}

export function planLimits(
  request: LimitRequest,
  host: HostInfo,
  backend: BackendName,
  bestEffort: boolean,
): LimitsPlan | undefined {
  const limits: PlannedLimit[] = [];
  for (const name of LIMIT_NAMES) {
    const asked = request[name];
    if (!asked || asked.value === 0) continue;
    if (name === 'fileSize' && asked.value < 512)
      throw new CordonError(
        'bad-size',
        `the file-size limit ${asked.value} B (${asked.source}) is below 512 bytes, the unit RLIMIT_FSIZE is set in — use 512 or more (sizes are rounded down to a multiple of 512)`,
      );
    const { mechanism, reason } =
      backend === 'none' && name !== 'fileSize' && host.platform !== 'linux'
        ? { mechanism: 'not-enforced' as const, reason: 'no sandbox' }
        : mechanismFor(name, host, backend);
    if (mechanism === 'not-enforced' && !bestEffort && !asked.builtin)
      throw new CordonError(
        'limit-unenforceable',
        `cannot enforce the ${limitLabel(name)} limit ${formatLimitValue(name, asked.value)} (${asked.source}): ${reason} — drop it${host.platform === 'linux' && name !== 'fileSize' ? ', run as root where cordon can create a cgroup' : ''}, or pass --best-effort to run with it listed as not enforced`,
      );
    limits.push({ name, value: asked.value, mechanism, source: asked.source, ...(reason ? { reason } : {}) });
  }
  if (limits.length === 0) return undefined;
  const cg = limits.find((l) => l.mechanism === 'cgroup1' || l.mechanism === 'cgroup2')?.mechanism;
  const fsize = limits.find((l) => l.name === 'fileSize' && l.mechanism === 'rlimit');
  return {
    limits,
    ...(cg === 'cgroup1' || cg === 'cgroup2' ? { cgroup: cg, cgroupInfo: host.cgroup } : {}),
    ...(fsize ? { fileSizeBlocks: Math.floor(fsize.value / 512) } : {}),
  };
}

/** The limits no mechanism enforces, in the plan's notEnforced shape. */
export function limitsNotEnforced(plan: LimitsPlan | undefined) {
  return (plan?.limits ?? [])
    .filter((l) => l.mechanism === 'not-enforced')
    .map((l) => ({
      path: `${limitLabel(l.name)} ${formatLimitValue(l.name, l.value)}`,
      access: 'limit',
      reason: l.reason ?? 'no mechanism',
    }));
}

/** Whether a request needs the cgroup probe (Linux, pids/memory/cpuTime asked for). */
export function needsCgroup(request: LimitRequest): boolean {
  return (['pids', 'memory', 'cpuTime'] as const).some((n) => (request[n]?.value ?? 0) > 0);
}
