// The one line that says auto fell from bubblewrap to Landlock and what that loses. Pure; shown
// as a run annotation (text and JSON) and by `cordon explain`.
import type { BackendChoice, BackendRequest } from '../choose.ts';

export function describeLandlockFallback(request: BackendRequest, choice: BackendChoice): string | undefined {
  if (request !== 'auto' || choice.backend !== 'landlock') return undefined;
  const bwrap = choice.verdicts.find((v) => v.backend === 'bwrap');
  return `bubblewrap is not usable here (${bwrap?.reason ?? 'not found'}), so Landlock runs the command without a pid, IPC or network namespace: other processes stay visible in /proc, SysV IPC and POSIX message queues are refused instead of private, and with the network off IP is refused instead of isolated (no loopback servers)`;
}
