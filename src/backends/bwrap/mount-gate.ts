// bubblewrap resolves every bind source and destination by path when it mounts, after cordon
// has checked them: a command of another run (or an earlier one's leftovers) could swap a
// path in a writable directory for a symlink in between, and the mount would land elsewhere.
// bubblewrap 0.10+ takes O_PATH descriptors (--bind-fd); 0.8 (Debian 12) does not, so:
//   1. before the spawn, every bind source is opened from / one component at a time without
//      following symlinks, and its device/inode recorded (a symlink on the way: refused);
//   2. bwrap runs with --info-fd (it reports the sandbox's pid) and --block-fd (after all
//      mounts it waits for one byte before it executes the command);
//   3. once that process is blocked in read() on the block fd (/proc/PID/syscall), each
//      destination is walked the same way from /proc/PID/root and its device/inode compared
//      with the source's; only then is the byte written. Any difference, any symlink on the
//      way, or bwrap dying first: the sandbox is killed before the command ever ran.
import { closeSync, createReadStream, readFileSync, writeSync } from 'node:fs';
import { CordonError } from '../../errors.ts';
import {
  type FsAtError,
  type Identity,
  identityBelow,
  identityOf,
  openProcRoot,
  sameIdentity,
} from '../../native/fsat.ts';
import { createPipe } from '../../native/linux.ts';

export interface BindMount {
  readonly source: string;
  readonly dest: string;
  readonly readOnly: boolean;
}

interface MountEntry {
  readonly mountPoint: string;
  readonly readOnly: boolean;
}

/** /proc/PID/mountinfo lines → mount point (relative to that process's root) and ro. */
export function parseMountInfo(text: string): MountEntry[] {
  const decodeOctal = (v: string) =>
    v.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line) => {
      const f = line.split(' ');
      return {
        mountPoint: decodeOctal(f[4] ?? ''),
        readOnly: (f[5] ?? '').split(',').includes('ro'),
      };
    });
}

/** The --bind/--ro-bind pairs of a bwrap argv (before `--`), except /proc's. */
export function listBinds(args: readonly string[]): BindMount[] {
  const out: BindMount[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if ((a === '--bind' || a === '--ro-bind') && i + 2 < args.length) {
      const source = args[i + 1]!;
      const dest = args[i + 2]!;
      if (!source.startsWith('/proc/') && source !== '/proc')
        out.push({ source, dest, readOnly: a === '--ro-bind' });
      i += 2;
    }
  }
  return out;
}

export interface MountGate {
  /** Extra bwrap options (before the rest of the argv). */
  readonly args: readonly string[];
  /** Descriptors for the child, in order after the ones already passed; the caller closes its
   * copies right after the spawn (spawnPlan does), or the gate never sees bwrap's report. */
  readonly childFds: readonly number[];
  /** Call with bwrap's pid right after the spawn; resolves once released or killed. */
  check(bwrapPid: number): Promise<void>;
  /** Set when the gate refused (the sandbox was killed before the command started). */
  readonly failure: () => CordonError | undefined;
  /** Closes the gate's own descriptors when bwrap never started (check was not called). */
  abandon(): void;
}

const POLL_MS = 2;
const MAX_WAIT_MS = 20_000;

/** `firstFd`: the child-side number the first gate descriptor gets (3 + fds already passed). */
export function prepareMountGate(args: readonly string[], firstFd: number): MountGate {
  const binds = listBinds(args);
  const pinned = binds.map((b) => {
    try {
      return identityOf(b.source);
    } catch (error) {
      throw new CordonError(
        'unsafe-symlink',
        `cannot bind '${b.source}': it changed since the policy was resolved (${(error as FsAtError).code ?? error}: a symlink or a missing directory on the way) — check the path and run again`,
      );
    }
  });
  const [blockRead, blockWrite] = createPipe();
  const [infoRead, infoWrite] = createPipe();
  const blockFd = firstFd;
  const infoFd = firstFd + 1;
  let failure: CordonError | undefined;
  // The sandbox process (bwrap's child, blocked on the gate) is killed directly as well as
  // bwrap's group: closing the block fd afterwards must find nothing left to release.
  let sandboxPid: number | undefined;
  const refuse = (bwrapPid: number, why: string) => {
    if (sandboxPid !== undefined) kill(sandboxPid, false);
    failure = new CordonError(
      'unsafe-symlink',
      `refusing to start the command: ${why} — a path of the policy was changed while the sandbox was set up (another run in this directory?); run again`,
    );
    kill(bwrapPid);
  };
  const readInfo = () =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const stream = createReadStream('', { fd: infoRead, autoClose: true });
      stream.on('data', (c) => chunks.push(c as Buffer));
      stream.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
      stream.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  // 'blocked': in read(blockFd) — every mount is done; 'gone': the sandbox process no longer
  // exists; 'busy': still setting up (or its syscall is not readable this instant).
  const gateState = (pid: number): 'blocked' | 'gone' | 'busy' => {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/syscall`, 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ||
        (error as NodeJS.ErrnoException).code === 'ESRCH'
        ? 'gone'
        : 'busy';
    }
    const fields = text.trim().split(' ');
    return fields[0] === '0' && Number(fields[1]) === blockFd ? 'blocked' : 'busy';
  };
  const kill = (pid: number, group = true) => {
    for (const target of group ? [-pid, pid] : [pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // not a group leader, or already gone
      }
    }
  };
  return {
    args: ['--block-fd', String(blockFd), '--info-fd', String(infoFd)],
    childFds: [blockRead, infoWrite],
    failure: () => failure,
    abandon() {
      for (const fd of [blockWrite, infoRead]) {
        try {
          closeSync(fd);
        } catch {
          // already closed
        }
      }
    },
    async check(bwrapPid) {
      try {
        const info = await readInfo();
        const childPid = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)?.[1]);
        // Fail closed: closing the block fd without writing also releases bwrap, so every way
        // out of here other than a passed check kills the sandbox first.
        if (!Number.isInteger(childPid) || childPid <= 0) {
          kill(bwrapPid); // bwrap failed before the sandbox existed: it reports its own error
          return;
        }
        sandboxPid = childPid;
        const deadline = Date.now() + MAX_WAIT_MS;
        for (;;) {
          const state = gateState(childPid);
          if (state === 'blocked') break;
          // The sandbox died during set-up (a path changed under bwrap, or bwrap failed): the
          // command never ran; say so (125) rather than report whatever exit killing it gives.
          if (state === 'gone') return refuse(bwrapPid, 'bubblewrap stopped while setting up the sandbox');
          if (Date.now() > deadline) return refuse(bwrapPid, 'the sandbox did not finish its set-up');
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        // A mount must sit exactly at each destination (one that landed elsewhere leaves the
        // original directory there, with the very identity that was pinned).
        const mounts = parseMountInfo(readFileSync(`/proc/${childPid}/mountinfo`, 'utf8'));
        for (let i = 0; i < binds.length; i++) {
          const b = binds[i]!;
          const top = mounts.filter((m) => m.mountPoint === b.dest).pop();
          // (Device numbers are compared below through stat: mountinfo's differ on btrfs.)
          if (!top || (b.readOnly && !top.readOnly))
            return refuse(
              bwrapPid,
              `no ${b.readOnly ? 'read-only ' : ''}mount of '${b.source}' at '${b.dest}' in the sandbox`,
            );
        }
        const sandboxRoot = openProcRoot(childPid);
        try {
          for (let i = 0; i < binds.length; i++) {
            const b = binds[i]!;
            let seen: Identity;
            try {
              seen = identityBelow(sandboxRoot, b.dest);
            } catch (error) {
              return refuse(
                bwrapPid,
                `'${b.dest}' is not reachable without a symlink in the sandbox (${(error as FsAtError).code ?? error})`,
              );
            }
            if (!sameIdentity(seen, pinned[i]!))
              return refuse(
                bwrapPid,
                `'${b.dest}' in the sandbox is not '${b.source}' as checked before the start`,
              );
          }
        } finally {
          closeSync(sandboxRoot);
        }
        writeSync(blockWrite, 'x');
      } catch (error) {
        refuse(bwrapPid, `the mounts could not be checked (${(error as Error).message})`);
      } finally {
        closeSync(blockWrite);
      }
    },
  };
}
