// Killing what a command started. The group kill reaches everything that stayed in the
// command's process group; escapees (setsid, double fork, nohup) are found through /proc:
// as a child subreaper we are their parent after they are orphaned, otherwise we walk the
// command's descendant tree while its parents are still alive.
import { listDescendants, listLiveChildren } from './procfs.ts';

export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone
  }
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

const MAX_SWEEPS = 20;

/**
 * Signal everything the command started: its descendants are listed first (killing the group
 * first would orphan a setsid'd child to init before we saw it), then the group, then the
 * listed descendants. With `subreaper` (only the CLI and cordon's own helper, which run one
 * command each), every live child other than the command is an orphan adopted from it; we
 * sweep until none is alive, since killing one may orphan more.
 */
export function killTree(commandPid: number, subreaper: boolean, signal: NodeJS.Signals): void {
  const descendants = process.platform === 'linux' ? listDescendants(commandPid) : [];
  killGroup(commandPid, signal);
  for (const pid of descendants) killPid(pid, signal);
  if (!subreaper || process.platform !== 'linux') return;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    const orphans = listLiveChildren(process.pid).filter((pid) => pid !== commandPid);
    if (orphans.length === 0) return;
    for (const pid of orphans) {
      for (const d of listDescendants(pid)) killPid(d, signal);
      killPid(pid, signal);
    }
    if (signal !== 'SIGKILL') return;
  }
}
