// Decisions on a DACL read as binary ACEs (acl.ts walks it with GetAclInformation + GetAce and
// maps generic rights with MapGenericMask), never as SDDL text: Windows renders masks as
// letters (CC DC LC SW RP WP DT LO CR, FA, K*/N* aliases…) that a text parser would have to
// know exhaustively, or it re-applies ACEs it fails to recognise and treats unknown masks as
// writable. Pure: the launcher hands in what it read.
import { INHERIT_CONTAINERS_AND_OBJECTS } from './spec.ts';

export interface AceEntry {
  /** ACE_HEADER.AceType: 0 allowed, 1 denied, 5/6 object, 9/10 callback, … */
  readonly type: number;
  /** ACE_HEADER.AceFlags: OI 0x1, CI 0x2, NP 0x4, IO 0x8, INHERITED 0x10. */
  readonly flags: number;
  /** Access mask after MapGenericMask with the file generic mapping. */
  readonly mask: number;
  /** S-1-… string; '' when the ACE type carries no SID cordon can read. */
  readonly sid: string;
}

/** A DACL: its ACEs in order, or null for a NULL DACL (no DACL: everyone has every right). */
export type Dacl = readonly AceEntry[] | null;

export const ACE_TYPE = { ALLOWED: 0, DENIED: 1 } as const;
export const ACE_FLAG = {
  OBJECT_INHERIT: 0x1,
  CONTAINER_INHERIT: 0x2,
  INHERIT_ONLY: 0x8,
  INHERITED: 0x10,
} as const;

/** Allow-type ACEs (plain, object, callback, callback-object): each may grant. */
const ALLOW_TYPES = new Set([0, 5, 9, 11]);

/** Whether the DACL already holds this explicit ACE, exactly (type, SID, mapped rights, inheritance). */
export function hasExplicitAce(
  dacl: Dacl,
  want: { type: 'allow' | 'deny'; sid: string; rights: number; inheritance?: number },
): boolean {
  if (dacl === null) return false;
  const type = want.type === 'allow' ? ACE_TYPE.ALLOWED : ACE_TYPE.DENIED;
  const inheritance = want.inheritance ?? INHERIT_CONTAINERS_AND_OBJECTS;
  const inheritBits = ACE_FLAG.OBJECT_INHERIT | ACE_FLAG.CONTAINER_INHERIT;
  return dacl.some(
    (ace) =>
      ace.type === type &&
      ace.sid.toUpperCase() === want.sid.toUpperCase() &&
      ace.mask >>> 0 === want.rights >>> 0 &&
      (ace.flags & (ACE_FLAG.INHERITED | ACE_FLAG.INHERIT_ONLY)) === 0 &&
      (ace.flags & inheritBits) === (inheritance & inheritBits),
  );
}

/**
 * Rights that change an object or its children: FILE_WRITE_DATA/ADD_FILE, FILE_APPEND_DATA/
 * ADD_SUBDIRECTORY, FILE_WRITE_EA, FILE_DELETE_CHILD, FILE_WRITE_ATTRIBUTES, DELETE, WRITE_DAC,
 * WRITE_OWNER (generic bits are mapped before this is applied; GENERIC_ALL/WRITE kept for safety).
 */
export const WRITE_LIKE =
  0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000;

/**
 * Whether one of `sids` may write the object or, through inheritance, new children: walking
 * the ACEs in order, a write-like right granted to one of them before a plain deny ACE took it
 * away. Inherit-only ACEs count (they make new children writable). A NULL DACL grants
 * everything. Unknown allow-type ACEs count as granting; only plain deny ACEs take away —
 * so an ACE cordon cannot interpret errs towards "writable".
 */
export function grantsWriteTo(dacl: Dacl, sids: readonly string[]): boolean {
  if (dacl === null) return true;
  const wanted = new Set(sids.map((s) => s.toUpperCase()));
  let denied = 0;
  for (const ace of dacl) {
    if (!wanted.has(ace.sid.toUpperCase())) continue;
    if (ace.type === ACE_TYPE.DENIED && (ace.flags & ACE_FLAG.INHERIT_ONLY) === 0) denied |= ace.mask;
    else if (ALLOW_TYPES.has(ace.type) && (ace.mask & WRITE_LIKE & ~denied) !== 0) return true;
  }
  return false;
}

/** Whether an explicit (not inherited) allow ACE grants one of `sids` a write-like right. */
export function hasExplicitWriteGrant(dacl: Dacl, sids: readonly string[]): boolean {
  if (dacl === null) return true;
  const explicit = dacl.filter((ace) => (ace.flags & ACE_FLAG.INHERITED) === 0);
  return grantsWriteTo(explicit, sids);
}
