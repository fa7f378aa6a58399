// Stopping a command under bubblewrap gracefully. bwrap is the init of the sandbox's pid
// namespace: a TERM to bwrap (or to its process group, which the command has left through
// --new-session) ends bwrap, and the kernel then kills the whole namespace at once — no grace.
// So the first signal goes to the command's own processes inside the namespace (every
// descendant of bwrap's init, which is bwrap's child), and only the forced kill goes to bwrap.
import { listDescendants, listLiveChildren } from '../../exec/procfs.ts';

function signalPid(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // gone
  }
}

/**
 * Sends `signal` to every process inside the namespace; false when none was found. `wrappers`:
 * how many processes stand between `pid` and bwrap (1 with the unix-socket supervisor).
 */
export function signalInsideNamespace(pid: number, signal: NodeJS.Signals, wrappers = 0): boolean {
  let bwraps = [pid];
  for (let i = 0; i < wrappers; i++) bwraps = bwraps.flatMap((p) => listLiveChildren(p));
  let sent = false;
  for (const init of bwraps.flatMap((p) => listLiveChildren(p)))
    for (const pid of listDescendants(init)) sent = signalPid(pid, signal) || sent;
  return sent;
}
