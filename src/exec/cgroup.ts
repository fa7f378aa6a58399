// A per-run cgroup (resource limits, Linux). Created before the spawn with the limits written;
// the join step (limits/wrap.ts) writes its own pid into every cgroup.procs before it execs
// anything, so the command is inside before it can fork. After the run everything in it is
// killed (cgroup.kill on v2; freeze, KILL, thaw on v1) and the directories are removed.
// Only cordon-created directories under the cgroup mounts are touched; every file is opened
// by its full path under a directory cordon just created (the command cannot rename
// cgroupfs directories it does not own, and it starts only after the set-up).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { CordonError } from '../errors.ts';
import type { CgroupInfo } from '../host/types.ts';
import type { LimitsPlan } from '../limits/types.ts';

export interface RunCgroup {
  readonly version: 1 | 2;
  /** Every cgroup.procs file the join step writes its pid to. */
  readonly procsFiles: readonly string[];
  /** CPU time used by every process of the run so far, in microseconds. */
  cpuUsageUs(): number;
  /** The kernel's counters: OOM kills in the run, forks refused at pids.max. */
  events(): { oomKills: number; pidsRefused: number };
  /** SIGKILL every process in the cgroup now. */
  kill(): void;
  /** Kill what is left, wait (bounded) until empty, remove the directories. */
  remove(): Promise<void>;
}

const write = (dir: string, file: string, value: string) => writeFileSync(join(dir, file), value);
const readOr = (path: string, fallback = '') => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
};
const counter = (text: string, key: string) =>
  Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
const pidsIn = (dir: string) => readOr(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Swap is on: an unbounded swap would let the run's memory spill past memory.max. */
const swapInUse = () => readOr('/proc/swaps').trim().split('\n').length > 1;

/** A reader that re-reads one cgroupfs file through a descriptor opened once. */
function pinnedReader(path: string): () => string {
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(4096);
  const reader = () => buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8');
  reader.close = () => closeSync(fd);
  return reader;
}

/**
 * Removes empty per-run cgroups left by a cordon that was SIGKILLed (its pid is gone): rmdir
 * of a cgroup succeeds only when it is empty, so a live run is never touched.
 */
function sweepStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^cordon-(\d+)-[0-9a-f]{8}$/.exec(name);
    if (!m || Number(m[1]) === process.pid || existsSync(`/proc/${m[1]}`)) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // not empty, or raced with another sweeper
    }
  }
}

function runName(): string {
  return `cordon-${process.pid}-${randomBytes(4).toString('hex')}`;
}

function fail(what: string, error: unknown): never {
  throw new CordonError(
    'cgroup-failed',
    `could not set up the run's cgroup (${what}): ${(error as Error).message} — run cordon doctor, or pass --best-effort to run without pids/memory/CPU limits`,
  );
}

function killAll(dirs: readonly string[]): void {
  for (const dir of dirs)
    for (const pid of pidsIn(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
}

async function waitEmptyAndRemove(dirs: readonly string[], kill: () => void): Promise<void> {
  for (let i = 0; i < 200 && dirs.some((d) => pidsIn(d).length > 0); i++) {
    kill();
    await sleep(i < 10 ? 2 : 20);
  }
  for (const dir of dirs) {
    try {
      rmdirSync(dir);
    } catch {
      // still populated after ~4 s (a process stuck in the kernel): left for the next run's owner
    }
  }
}

function createV2(parent: string, limits: LimitsPlan): RunCgroup {
  const root = dirname(parent);
  try {
    if (!existsSync(parent)) mkdirSync(parent, { mode: 0o755 });
    write(root, 'cgroup.subtree_control', '+pids +memory');
    write(parent, 'cgroup.subtree_control', '+pids +memory');
  } catch (error) {
    fail(parent, error);
  }
  sweepStale(parent);
  const dir = join(parent, runName());
  try {
    mkdirSync(dir, { mode: 0o755 });
    for (const l of limits.limits) {
      if (l.mechanism !== 'cgroup2') continue;
      if (l.name === 'pids') write(dir, 'pids.max', String(l.value));
      if (l.name === 'memory') {
        write(dir, 'memory.max', String(l.value));
        if (existsSync(join(dir, 'memory.swap.max'))) write(dir, 'memory.swap.max', '0');
        else if (swapInUse())
          throw new Error('memory.swap.max is missing (swap accounting off) while swap is on');
        write(dir, 'memory.oom.group', '1');
      }
    }
  } catch (error) {
    try {
      rmdirSync(dir);
    } catch {}
    fail(dir, error);
  }
  const cpu = pinnedReader(join(dir, 'cpu.stat'));
  const kill = () => {
    try {
      write(dir, 'cgroup.kill', '1');
    } catch {
      killAll([dir]); // kernels before 5.14
    }
  };
  return {
    version: 2,
    procsFiles: [join(dir, 'cgroup.procs')],
    cpuUsageUs: () => counter(cpu(), 'usage_usec'),
    events: () => ({
      oomKills: counter(readOr(join(dir, 'memory.events')), 'oom_kill'),
      pidsRefused: counter(readOr(join(dir, 'pids.events')), 'max'),
    }),
    kill,
    remove: async () => {
      (cpu as unknown as { close(): void }).close();
      await waitEmptyAndRemove([dir], kill);
    },
  };
}

function createV1(v1: NonNullable<CgroupInfo['v1']>, limits: LimitsPlan): RunCgroup {
  const name = runName();
  const dirs = {
    pids: join(v1.pids, name),
    memory: join(v1.memory, name),
    cpuacct: join(v1.cpuacct, name),
    freezer: join(v1.freezer, name),
  };
  const all = Object.values(dirs);
  for (const parent of Object.values(v1)) sweepStale(parent);
  const made: string[] = [];
  try {
    for (const d of all) {
      mkdirSync(d, { mode: 0o755 });
      made.push(d);
    }
    for (const l of limits.limits) {
      if (l.mechanism !== 'cgroup1') continue;
      if (l.name === 'pids') write(dirs.pids, 'pids.max', String(l.value));
      if (l.name === 'memory') {
        write(dirs.memory, 'memory.limit_in_bytes', String(l.value));
        // memory + swap = memory: no swap for the run.
        if (existsSync(join(dirs.memory, 'memory.memsw.limit_in_bytes')))
          write(dirs.memory, 'memory.memsw.limit_in_bytes', String(l.value));
        else if (swapInUse())
          throw new Error('memory.memsw.limit_in_bytes is missing (swap accounting off) while swap is on');
      }
    }
  } catch (error) {
    for (const d of made.reverse())
      try {
        rmdirSync(d);
      } catch {}
    fail(name, error);
  }
  const cpu = pinnedReader(join(dirs.cpuacct, 'cpuacct.usage'));
  // Freeze so nothing forks between reading cgroup.procs and the KILLs, then thaw so the
  // KILLs are delivered.
  const kill = () => {
    try {
      write(dirs.freezer, 'freezer.state', 'FROZEN');
    } catch {}
    killAll(all);
    try {
      write(dirs.freezer, 'freezer.state', 'THAWED');
    } catch {}
  };
  return {
    version: 1,
    procsFiles: all.map((d) => join(d, 'cgroup.procs')),
    cpuUsageUs: () => Math.floor(Number(cpu().trim() || 0) / 1000),
    events: () => ({
      oomKills: counter(readOr(join(dirs.memory, 'memory.oom_control')), 'oom_kill'),
      pidsRefused: counter(readOr(join(dirs.pids, 'pids.events')), 'max'),
    }),
    kill,
    remove: async () => {
      (cpu as unknown as { close(): void }).close();
      await waitEmptyAndRemove(all, kill);
    },
  };
}

export function createRunCgroup(info: CgroupInfo, limits: LimitsPlan): RunCgroup {
  if (!info.usable) throw new CordonError('cgroup-failed', `no cgroup: ${info.reason ?? 'unknown'}`);
  if (info.version === 2 && info.parent) return createV2(info.parent, limits);
  if (info.version === 1 && info.v1) return createV1(info.v1, limits);
  throw new CordonError('internal', 'cgroup info without a parent directory');
}
