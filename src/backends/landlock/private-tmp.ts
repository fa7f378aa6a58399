// The Landlock backend's private TMPDIR: created before the command starts, pinned (its
// parent's descriptor and its own device/inode), and removed afterwards only through those
// descriptors, one no-follow component at a time (native/fsat.ts). The command can swap any
// directory in it for a symlink while the removal walks it (a process that forks, setsid()s
// and exits can outlive the /proc sweep): the walk never follows one, so it deletes nothing
// outside the tree. When this process is the run's subreaper, removal also waits until none
// of the run's processes is alive, and leaves the directory in place if one still is.
import { closeSync } from 'node:fs';
import { chmod, mkdtemp, rmdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { listLiveChildren } from '../../exec/procfs.ts';
import { realpathLenient } from '../../host/probe.ts';
import { type Identity, openDirPath, removeTreeAt, sameIdentity, statAt } from '../../native/fsat.ts';

export interface PrivateTmp {
  readonly path: string;
  /** Removes the directory; `subreaper`: wait for (and refuse while) the run's processes. */
  remove(opts?: { subreaper?: boolean | undefined }): Promise<void>;
}

const SETTLE_POLLS = 50;

async function orphansGone(): Promise<boolean> {
  for (let i = 0; i < SETTLE_POLLS; i++) {
    let live: number[];
    try {
      live = listLiveChildren(process.pid);
    } catch {
      return true; // /proc unreadable here: the descriptor-relative removal still holds
    }
    if (live.length === 0) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

export async function createPrivateTmp(parent: string, prefix: string): Promise<PrivateTmp> {
  const path = await mkdtemp(`${parent.replace(/\/$/, '')}/${prefix}`);
  await chmod(path, 0o700);
  const real = realpathLenient(path);
  const parentFd = openDirPath(dirname(real));
  const name = basename(real);
  let pinned: Identity | undefined;
  try {
    pinned = statAt(parentFd, name);
  } catch {
    pinned = undefined;
  }
  let done = false;
  return {
    path,
    async remove(opts = {}) {
      if (done) return;
      done = true;
      try {
        if (opts.subreaper && !(await orphansGone())) return; // something of the run is alive
        const now = statAt(parentFd, name);
        // Not the directory we created (replaced, or gone): nothing of ours to remove.
        if (!pinned || !now || !sameIdentity(pinned, now) || now.kind !== 'dir') return;
        const left = removeTreeAt(parentFd, name);
        // A Landlock-confined caller (the CLI's main thread) may not remove entries of the
        // parent itself; the empty directory goes from the unconfined threadpool. rmdir never
        // follows a symlink, and the parent is out of the command's reach (or the confined
        // unlinkat above would have succeeded).
        if (left.length === 1 && left[0] === name) {
          const again = statAt(parentFd, name);
          if (again && sameIdentity(again, pinned)) await rmdir(real).catch(() => {});
        }
      } catch {
        // best effort: a temp dir left behind is cleaned by the OS, never followed
      } finally {
        closeSync(parentFd);
      }
    },
  };
}
