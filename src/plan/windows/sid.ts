// cordon's SIDs. Every ACE cordon writes names a SID derived from (role, path):
//   write-root  S-1-9-1-a-b-c-d  granted write on that root
//   carve-out   S-1-9-2-a-b-c-d  denied write on that protected or read-only path
//   run         S-1-9-3-a-b-c-d  one per run, random (the launcher draws 128 bits): the token's
//               default DACL, the private window station and desktop grant it, so objects one
//               sandbox creates are not writable from another (restricted pass)
// a..d are the first 16 bytes of SHA-256("cordon/v1/<role>/<lower-cased path>") read as four
// little-endian uint32 (write-root, carve-out). Authority 9 is SECURITY_RESOURCE_MANAGER_AUTHORITY,
// documented for resource managers' own SIDs: unlike an S-1-5-21-… (account-domain) shape, nothing
// makes a SID lookup treat it as a domain account. A run holds, as restricting SIDs, exactly
// the SIDs of its own rules, so an ACE left by an earlier run only affects runs with the same
// rule (docs/windows.md "ACE persistence"). Deterministic, not secret: restricting SIDs can
// only take access away.
import { createHash } from 'node:crypto';
import { pathKey } from './paths.ts';

export type CordonSidRole = 'write-root' | 'carve-out';

const ROLE_RID: Record<CordonSidRole | 'run', number> = { 'write-root': 1, 'carve-out': 2, run: 3 };

function sidFromBytes(role: CordonSidRole | 'run', bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts = [0, 4, 8, 12].map((offset) => view.getUint32(offset, true));
  return `S-1-9-${ROLE_RID[role]}-${parts.join('-')}`;
}

export function deriveCordonSid(role: CordonSidRole, path: string): string {
  const digest = createHash('sha256')
    .update(`cordon/v1/${role}/${pathKey(path)}`, 'utf8')
    .digest();
  return sidFromBytes(role, digest);
}

/** The per-run SID from 16 random bytes (drawn by the launcher; pure here for tests). */
export function runSidFromBytes(random: Uint8Array): string {
  if (random.length < 16) throw new RangeError('a run SID needs 16 random bytes');
  return sidFromBytes('run', random);
}

/** Window station and desktop name from 16 random bytes: 128 bits nobody can guess. */
export function desktopNameFromBytes(random: Uint8Array): string {
  if (random.length < 16) throw new RangeError('a desktop name needs 16 random bytes');
  const hex = Array.from(random.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `cordon-${hex}`;
}

export const EVERYONE_SID = 'S-1-1-0';
/**
 * NT AUTHORITY\RESTRICTED: Windows' own SID for restricted code, granted by the system where
 * restricted code is meant to work (creating named objects in the session's BaseNamedObjects);
 * a restricting SID since the logon SID is not one any more (docs/windows.md §9.2).
 */
export const RESTRICTED_CODE_SID = 'S-1-5-12';
export const SYSTEM_SID = 'S-1-5-18';
export const ADMINISTRATORS_SID = 'S-1-5-32-544';

/**
 * Held by every sandbox: the launcher puts deny-write ACEs for it on objects that grant
 * Everyone or RESTRICTED write access outside the writable roots (backends/windows/audit.ts),
 * since both are restricting SIDs and would otherwise open such objects to the command.
 */
export const WORLD_WRITABLE_SID = deriveCordonSid('carve-out', '(world-writable)');

/** SDDL of the token's default DACL, the window station's and the desktop's: {user}, {run} filled at launch. */
export const PRIVATE_OBJECT_DACL = `D:(A;;GA;;;${SYSTEM_SID})(A;;GA;;;{user})(A;;GA;;;{run})`;
