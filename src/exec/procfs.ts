// Process-table reads from /proc (Linux): descriptors a spawn would leak, children of a
// process, and the whole descendant tree. Used for cleanup and fd hygiene; every read
// tolerates processes vanishing mid-scan.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

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

function procState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || '?';
  } catch {
    return 'X'; // gone
  }
}

/**
 * Children of `pid` from /proc/<pid>/task/<tid>/children (every thread: an orphan is adopted
 * by some thread of its reaper), live ones only. A few small reads instead of a scan of every
 * process on the machine. Needs CONFIG_PROC_CHILDREN (hasChildrenFiles).
 */
function readChildren(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // gone
  }
  const out: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const word of text.split(' ')) {
      const child = Number(word);
      if (word !== '' && Number.isInteger(child)) out.push(child);
    }
  }
  return out.filter((child) => {
    const state = procState(child);
    return state !== 'Z' && state !== 'X';
  });
}

function hasChildrenFiles(): boolean {
  return existsSync(`/proc/self/task/${process.pid}/children`);
}

/** Live (non-zombie) children of `pid`. */
export function listLiveChildren(pid: number): number[] {
  if (hasChildrenFiles()) return readChildren(pid);
  return readProcTable()
    .filter((p) => p.ppid === pid && p.state !== 'Z' && p.state !== 'X')
    .map((p) => p.pid);
}

/** Every live descendant of `root` (not including root). */
export function listDescendants(root: number): number[] {
  if (hasChildrenFiles()) {
    const out: number[] = [];
    const queue = [root];
    while (queue.length > 0) {
      for (const child of readChildren(queue.shift()!)) {
        out.push(child);
        queue.push(child);
      }
    }
    return out;
  }
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
