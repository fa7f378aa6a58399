// Process-table reads from /proc (Linux): descriptors a spawn would leak, children of a
// process, and the whole descendant tree. Used for cleanup and fd hygiene; every read
// tolerates processes vanishing mid-scan.
import { readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

/** Descriptors above 2 of this process that a child would inherit (no O_CLOEXEC). */
export function listInheritableFds(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const fds: number[] = [];
  for (const name of entries) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
      const match = /^flags:\s+([0-7]+)/m.exec(info);
      if (match && (Number.parseInt(match[1]!, 8) & O_CLOEXEC) === 0) fds.push(fd);
    } catch {
      // closed between readdir and read (the readdir fd itself): nothing to do
    }
  }
  return fds;
}

interface ProcEntry {
  pid: number;
  ppid: number;
  state: string;
}

function readProcTable(): ProcEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      // comm may contain spaces and parentheses: fields start after the last ')'
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(name), ppid: Number(rest[1]), state: rest[0] ?? '?' });
    } catch {
      // gone
    }
  }
  return out;
}

/** Live (non-zombie) children of `pid`. */
export function listLiveChildren(pid: number): number[] {
  return readProcTable()
    .filter((p) => p.ppid === pid && p.state !== 'Z' && p.state !== 'X')
    .map((p) => p.pid);
}

/** Every live descendant of `root` (not including root). */
export function listDescendants(root: number): number[] {
  const table = readProcTable();
  const byParent = new Map<number, number[]>();
  for (const p of table) {
    if (p.state === 'Z' || p.state === 'X') continue;
    const list = byParent.get(p.ppid);
    if (list) list.push(p.pid);
    else byParent.set(p.ppid, [p.pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = queue.shift()!;
    for (const child of byParent.get(next) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
