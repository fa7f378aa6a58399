// Finds where this process may create per-run cgroups (Linux). Reads /proc/self/cgroup and
// /proc/self/mountinfo and a few controller files; creates nothing.
//   cgroup2 with the pids and memory controllers at its root: as root, a dedicated
//     <mount>/cordon.slice (children of cordon's own cgroup are impossible under v2's
//     no-internal-processes rule while cordon itself sits in it); unprivileged: refused (a
//     delegated systemd user scope is not implemented yet).
//   hybrid hosts (pids, memory on cgroup v1 hierarchies): as root, a child of cordon's own
//     cgroup in each of the pids, memory, cpuacct and freezer hierarchies, so every limit
//     cordon's own cgroup is under still applies.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CgroupInfo } from './types.ts';

interface Mount {
  readonly fstype: string;
  readonly point: string;
  readonly options: string;
}

function mounts(): Mount[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [left, right = ''] = line.split(' - ');
      const fields = left!.split(' ');
      const [fstype = '', , options = ''] = right.split(' ');
      return { fstype, point: (fields[4] ?? '').replace(/\\040/g, ' '), options };
    });
}

function own(): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const c of m[1] === '' ? ['unified'] : m[1]!.split(',')) map.set(c, m[2]!);
  }
  return map;
}

const read = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

export function probeCgroup(uid: number): CgroupInfo {
  let all: Mount[];
  let mine: Map<string, string>;
  try {
    all = mounts();
    mine = own();
  } catch (error) {
    return {
      version: 0,
      usable: false,
      swap: false,
      reason: `cannot read /proc/self: ${(error as Error).message}`,
    };
  }
  const v2 = all.find((m) => m.fstype === 'cgroup2');
  const v2Controllers = v2 ? (read(join(v2.point, 'cgroup.controllers')) ?? '').trim().split(/\s+/) : [];
  if (v2 && v2Controllers.includes('pids') && v2Controllers.includes('memory')) {
    if (uid !== 0)
      return {
        version: 2,
        usable: false,
        swap: false,
        reason:
          'cordon creates per-run cgroups only as root (a delegated systemd user scope is not supported yet)',
      };
    try {
      accessSync(join(v2.point, 'cgroup.subtree_control'), constants.W_OK);
    } catch {
      return {
        version: 2,
        usable: false,
        swap: false,
        reason: `${v2.point} is not writable (a read-only cgroup mount)`,
      };
    }
    return {
      version: 2,
      usable: true,
      parent: join(v2.point, 'cordon.slice'),
      swap: existsSync(join(v2.point, 'memory.swap.max')) || v2Controllers.includes('memory'),
    };
  }
  const v1 = (name: string) => {
    const m = all.find((x) => x.fstype === 'cgroup' && x.options.split(',').includes(name));
    const path = mine.get(name);
    return m && path !== undefined ? join(m.point, path) : undefined;
  };
  const pids = v1('pids');
  const memory = v1('memory');
  const cpuacct = v1('cpuacct');
  const freezer = v1('freezer');
  if (pids && memory && cpuacct && freezer) {
    if (uid !== 0)
      return {
        version: 1,
        usable: false,
        swap: false,
        reason: 'the pids and memory controllers are on cgroup v1 hierarchies, which only root can subdivide',
      };
    return {
      version: 1,
      usable: true,
      v1: { pids, memory, cpuacct, freezer },
      swap: existsSync(join(memory, 'memory.memsw.limit_in_bytes')),
    };
  }
  return {
    version: v2 ? 2 : 0,
    usable: false,
    swap: false,
    reason: v2
      ? `the cgroup2 hierarchy at ${v2.point} has no pids/memory controllers and no cgroup v1 hierarchy has them all`
      : 'no cgroup hierarchy with the pids and memory controllers is mounted',
  };
}
