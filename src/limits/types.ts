// Resource limits (issue 22): what a run may consume, and how each limit is enforced. Pure.
import type { CgroupInfo } from '../host/types.ts';
import { formatBytes, formatDuration } from '../options/parse-units.ts';

export type LimitName = 'pids' | 'memory' | 'cpuTime' | 'fileSize';
export const LIMIT_NAMES: readonly LimitName[] = ['pids', 'memory', 'cpuTime', 'fileSize'];

/** Requested limits: pids = processes + threads; memory, fileSize in bytes; cpuTime in ms. */
export type ResourceLimits = { readonly [K in LimitName]?: number | undefined };

/**
 * How one limit is enforced:
 *   cgroup2 / cgroup1 — a per-run cgroup (pids.max; memory.max + memory.swap.max, or
 *     memory.limit_in_bytes + memsw; CPU time polled from the cgroup's usage and killed at the limit);
 *   rlimit — RLIMIT_FSIZE set (soft = hard) before the first exec, inherited by every descendant;
 *   job-object — the Windows job's limits (active processes, job memory, per-job user time);
 *   not-enforced — accepted only under --best-effort (or a built-in profile's default), listed.
 */
export type LimitMechanism = 'cgroup2' | 'cgroup1' | 'rlimit' | 'job-object' | 'not-enforced';

export interface PlannedLimit {
  readonly name: LimitName;
  readonly value: number;
  readonly mechanism: LimitMechanism;
  /** Where the value came from: a flag / library option, or a profile (its name). */
  readonly source: string;
  /** Why it is not enforced (mechanism 'not-enforced'). */
  readonly reason?: string | undefined;
}

export interface LimitsPlan {
  readonly limits: readonly PlannedLimit[];
  /** A per-run cgroup must be created (some limit uses cgroup1/cgroup2). */
  readonly cgroup?: 'cgroup1' | 'cgroup2' | undefined;
  /** RLIMIT_FSIZE in 512-byte blocks (POSIX `ulimit -f` units), rounded down from the bytes asked (at least 512). */
  readonly fileSizeBlocks?: number | undefined;
  /** Where the launcher creates the cgroup (from HostInfo), when `cgroup` is set. */
  readonly cgroupInfo?: CgroupInfo | undefined;
}

/** The limit that ended (or broke) a run, as the result reports it. */
export interface LimitHit {
  readonly name: LimitName;
  readonly value: number;
  /** What was seen: "the kernel's OOM killer killed 1 process", "12 forks refused", ... */
  readonly detail: string;
}

/** The flag that sets each limit (messages, explain). */
export const LIMIT_FLAGS: Readonly<Record<LimitName, string>> = {
  pids: '--pids',
  memory: '--memory',
  cpuTime: '--cpu-time',
  fileSize: '--file-size',
};

const LABELS: Readonly<Record<LimitName, string>> = {
  pids: 'pids',
  memory: 'memory',
  cpuTime: 'cpu-time',
  fileSize: 'file-size',
};

export function limitLabel(name: LimitName): string {
  return LABELS[name];
}

/** "256 MiB", "64 processes", "1s". */
export function formatLimitValue(name: LimitName, value: number): string {
  if (name === 'pids') return `${value} process${value === 1 ? '' : 'es'}`;
  if (name === 'cpuTime') return formatDuration(value);
  return formatBytes(value).replace(/\.0 /, ' ').replace(/\.00 /, ' ');
}
