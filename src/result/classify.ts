// A run's status from what the launcher saw. Pure. Order matters: a command that never started
// was cancelled or failed to spawn; one cordon stopped timed out or was cancelled whatever its
// exit; a wrapper's own exec failure is not-found / not-executable as a direct spawn would be.
import type { SpawnOutcome } from '../exec/spawn.ts';
import type { RunStatus } from './types.ts';

export function classifyOutcome(
  outcome: SpawnOutcome,
  execFailure: 'not-found' | 'not-executable' | undefined,
  limitHit = false,
): RunStatus {
  if (!outcome.started) {
    if (outcome.cancelled) return 'cancelled';
    return outcome.failure ?? 'spawn-failed';
  }
  if (limitHit) return 'limit-exceeded';
  if (outcome.timedOut) return 'timed-out';
  if (outcome.cancelled) return 'cancelled';
  if (outcome.signal) return 'signaled';
  return execFailure ?? 'exited';
}
