// A cgroup v2 leaf per Landlock run, where cordon may create one (root, or a delegated subtree
// this user owns): the helper moves itself into it before confining, so everything the command
// starts — setsid'd, double-forked, hopping — stays inside, and `cgroup.kill` ends all of it at
// once after the run (no race with a process that forks while a /proc sweep runs). Landlock
// keeps the command from writing cgroup.procs elsewhere (/sys is read-only to it). Where no
// cgroup can be created, the run relies on the CLI's subreaper sweep; `cordon doctor` says so.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RunCgroup {
  readonly dir: string;
  /** The file the helper writes "0" to, to move itself in. */
  readonly procs: string;
  /** SIGKILL everything inside, wait until it is empty, remove it. */
  kill(): Promise<void>;
}

/** The cgroup2 mount point and this process's cgroup path in it, when the host has cgroup v2. */
export function findOwnCgroup(): string | undefined {
  let mount: string | undefined;
  let own: string | undefined;
  try {
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [left, right] = line.split(' - ');
      if (right?.startsWith('cgroup2 ')) {
        mount = left?.split(' ')[4];
        break;
      }
    }
    own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('0::'))
      ?.slice(3);
  } catch {
    return undefined;
  }
  if (!mount || own === undefined) return undefined;
  return join(mount, own);
}

/** Why no per-run cgroup can be made here, or undefined when one can (probe for doctor). */
export function cgroupUnavailableReason(): string | undefined {
  const parent = findOwnCgroup();
  if (!parent) return 'no cgroup v2 hierarchy';
  const probe = createRunCgroup(parent);
  if (!probe)
    return `cannot create a cgroup with cgroup.kill below ${parent} (needs root or a delegated cgroup)`;
  try {
    rmdirSync(probe.dir);
  } catch {
    // removed below on the next run
  }
  return undefined;
}

export function createRunCgroup(parent = findOwnCgroup()): RunCgroup | undefined {
  if (!parent) return undefined;
  const dir = join(parent, `cordon-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { mode: 0o755 });
  } catch {
    return undefined; // EACCES / EROFS / ENOENT: not ours to create here
  }
  if (!existsSync(join(dir, 'cgroup.kill'))) {
    try {
      rmdirSync(dir);
    } catch {
      // nothing more to do
    }
    return undefined; // kernel < 5.14
  }
  return {
    dir,
    procs: join(dir, 'cgroup.procs'),
    async kill() {
      try {
        writeFileSync(join(dir, 'cgroup.kill'), '1');
      } catch {
        return;
      }
      // The kill is asynchronous: wait (bounded) until the kernel reports the cgroup empty.
      for (let i = 0; i < 500; i++) {
        try {
          if (/^populated 0$/m.test(readFileSync(join(dir, 'cgroup.events'), 'utf8'))) break;
        } catch {
          break;
        }
        await new Promise((r) => setTimeout(r, 4));
      }
      try {
        rmdirSync(dir);
      } catch {
        // still busy (a process in uninterruptible sleep): the kernel removes nothing; left empty-ish
      }
    },
  };
}
