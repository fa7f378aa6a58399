// cordon's capability SIDs. Every ACE cordon writes names a SID derived from (role, path):
//   write-root  S-1-5-21-a-b-c-d granted write on that root
//   carve-out   S-1-5-21-a-b-c-d denied write on that protected or read-only path
// a, b, c, d are the first 16 bytes of SHA-256("cordon/v1/<role>/<lower-cased path>"), read as
// four little-endian uint32. A run holds, as restricting SIDs, exactly the SIDs of its own
// rules: an ACE left by an earlier run only affects runs with the same rule, which is what
// makes keeping ACEs between runs safe (docs/windows.md "ACE persistence"). Deterministic, so
// no state file; not secret, and need not be: restricting SIDs can only take access away.
import { createHash } from 'node:crypto';
import { pathKey } from './paths.ts';

export type CordonSidRole = 'write-root' | 'carve-out';

export function deriveCordonSid(role: CordonSidRole, path: string): string {
  const digest = createHash('sha256')
    .update(`cordon/v1/${role}/${pathKey(path)}`, 'utf8')
    .digest();
  const parts = [0, 4, 8, 12].map((offset) => digest.readUInt32LE(offset));
  return `S-1-5-21-${parts.join('-')}`;
}

export const EVERYONE_SID = 'S-1-1-0';
export const SYSTEM_SID = 'S-1-5-18';
export const ADMINISTRATORS_SID = 'S-1-5-32-544';

/**
 * Held by every sandbox: the launcher puts deny-write ACEs for it on directories that grant
 * Everyone or the logon SID write access outside the writable roots (backends/windows/audit.ts),
 * since those two are restricting SIDs and would otherwise open such directories to the command.
 */
export const WORLD_WRITABLE_SID = deriveCordonSid('carve-out', '(world-writable)');
