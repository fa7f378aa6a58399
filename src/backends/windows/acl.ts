// Applies the plan's ACEs to files. GetNamedSecurityInfoW reads the DACL, which is walked as
// binary ACEs (GetAclInformation + GetAce, rights through MapGenericMask with the file generic
// mapping; dacl.ts decides), never parsed as SDDL text. When the wanted explicit ACE is already
// there nothing is written; otherwise SetEntriesInAclW merges it (GRANT_ACCESS for allow,
// DENY_ACCESS for deny; Windows orders deny before allow) and SetNamedSecurityInfoW writes it,
// which makes Windows propagate the inheritable ACE through the subtree. ACEs persist
// (docs/windows.md "ACE persistence"): the first run on a tree pays the propagation, later
// runs pay one DACL read per root.

import {
  allocBytes,
  check,
  checkCode,
  freeBytes,
  type Ptr,
  readWide,
  type Win32,
} from '../../native/win32.ts';
import { type AceEntry, type Dacl, hasExplicitAce } from '../../plan/windows/dacl.ts';

const SE_FILE_OBJECT = 1;
const DACL_SECURITY_INFORMATION = 0x4;
const GRANT_ACCESS = 1;
const DENY_ACCESS = 3;
const TRUSTEE_IS_SID = 0;
const TRUSTEE_IS_UNKNOWN = 0;
const EXPLICIT_ACCESS_SIZE = 48;
const ACL_SIZE_INFORMATION_CLASS = 2;
/** FILE_GENERIC_READ, FILE_GENERIC_WRITE, FILE_GENERIC_EXECUTE, FILE_ALL_ACCESS (winnt.h). */
const FILE_GENERIC_MAPPING = [0x120089, 0x120116, 0x1200a0, 0x1f01ff] as const;
/** Object ACE types (5–8, 11, 12, 15, 16) carry a Flags field and optional GUIDs before the SID. */
const OBJECT_ACE_TYPES = new Set([5, 6, 7, 8, 11, 12, 15, 16]);

export interface AceRequest {
  readonly nativePath: string;
  readonly type: 'allow' | 'deny';
  readonly sid: string;
  readonly rights: number;
  readonly inheritance: number;
}

export interface AceResult {
  readonly path: string;
  readonly applied: boolean;
  readonly ms: number;
}

function sidText(w: Win32, sid: Ptr): string {
  const out = [null];
  if (w.adv['ConvertSidToStringSidW']!(sid, out) === 0) return '';
  const text = readWide(w, out[0] as unknown as Ptr);
  w.k32['LocalFree']!(out[0]);
  return text;
}

/** The ACEs of a binary ACL, generic rights mapped; null for a NULL DACL (pointer 0). */
export function readAcl(w: Win32, acl: Ptr | null): Dacl {
  if (acl === null || acl === 0n) return null;
  const size = allocBytes(w, 12);
  const mapping = allocBytes(w, 16);
  try {
    check(w, 'GetAclInformation', w.adv['GetAclInformation']!(acl, size.ptr, 12, ACL_SIZE_INFORMATION_CLASS));
    for (const [i, value] of FILE_GENERIC_MAPPING.entries()) mapping.view.writeUInt32LE(value, i * 4);
    const count = size.view.readUInt32LE(0);
    const aces: AceEntry[] = [];
    for (let i = 0; i < count; i++) {
      const out = [null];
      check(w, `GetAce(${i})`, w.adv['GetAce']!(acl, i, out));
      const ace = out[0] as unknown as Ptr;
      const head = Buffer.from(w.koffi.view(ace, 12));
      const type = head.readUInt8(0);
      const flags = head.readUInt8(1);
      const mask = [head.readUInt32LE(4)];
      w.adv['MapGenericMask']!(mask, mapping.ptr);
      let sidOffset = 8;
      if (OBJECT_ACE_TYPES.has(type)) {
        const objectFlags = head.readUInt32LE(8);
        sidOffset = 12 + (objectFlags & 1 ? 16 : 0) + (objectFlags & 2 ? 16 : 0);
      }
      aces.push({ type, flags, mask: mask[0]! >>> 0, sid: sidText(w, ace + BigInt(sidOffset)) });
    }
    return aces;
  } finally {
    freeBytes(w, size.ptr);
    freeBytes(w, mapping.ptr);
  }
}

/** The DACL of a file or directory, as binary ACEs (null: a NULL DACL, everyone has every right). */
export function readDacl(w: Win32, nativePath: string): Dacl {
  const dacl = [null];
  const sd = [null];
  checkCode(
    `GetNamedSecurityInfoW(${nativePath})`,
    w.adv['GetNamedSecurityInfoW']!(
      nativePath,
      SE_FILE_OBJECT,
      DACL_SECURITY_INFORMATION,
      null,
      null,
      dacl,
      null,
      sd,
    ),
  );
  try {
    return readAcl(w, (dacl[0] as unknown as Ptr | null) ?? null);
  } finally {
    w.k32['LocalFree']!(sd[0]);
  }
}

/** SE_OBJECT_TYPE values for readObjectDacl (accctrl.h). */
export const SE_OBJECT = { KERNEL: 6, WINDOW: 7 } as const;

/** The DACL of an open kernel or window object (token, process, window station, desktop). */
export function readObjectDacl(w: Win32, handle: Ptr, type: number): Dacl {
  const dacl = [null];
  const sd = [null];
  checkCode(
    'GetSecurityInfo',
    w.adv['GetSecurityInfo']!(handle, type, DACL_SECURITY_INFORMATION, null, null, dacl, null, sd),
  );
  try {
    return readAcl(w, (dacl[0] as unknown as Ptr | null) ?? null);
  } finally {
    w.k32['LocalFree']!(sd[0]);
  }
}

/**
 * Makes sure the ACE is on the object. `beforeApply` runs only when it must be written (the
 * first run on a tree): the launcher checks there that propagation cannot leave the root.
 */
export function ensureAce(w: Win32, ace: AceRequest, now: () => number, beforeApply?: () => void): AceResult {
  const started = now();
  const current = readDacl(w, ace.nativePath);
  if (current === null)
    throw new Error(
      `${ace.nativePath} has a NULL DACL (no access control at all): merging an ACE into it would replace it and lock every other user out — give it a real DACL first (icacls "${ace.nativePath}" /reset)`,
    );
  if (hasExplicitAce(current, ace)) {
    return { path: ace.nativePath, applied: false, ms: now() - started };
  }
  beforeApply?.();
  const daclOut = [null];
  const sdOut = [null];
  checkCode(
    `GetNamedSecurityInfoW(${ace.nativePath})`,
    w.adv['GetNamedSecurityInfoW']!(
      ace.nativePath,
      SE_FILE_OBJECT,
      DACL_SECURITY_INFORMATION,
      null,
      null,
      daclOut,
      null,
      sdOut,
    ),
  );
  const sidOut = [null];
  let entry: Ptr | undefined;
  let newDacl: Ptr | null = null;
  try {
    check(w, `ConvertStringSidToSidW(${ace.sid})`, w.adv['ConvertStringSidToSidW']!(ace.sid, sidOut));
    const mem = allocBytes(w, EXPLICIT_ACCESS_SIZE);
    entry = mem.ptr;
    mem.view.writeUInt32LE(ace.rights >>> 0, 0);
    mem.view.writeUInt32LE(ace.type === 'allow' ? GRANT_ACCESS : DENY_ACCESS, 4);
    mem.view.writeUInt32LE(ace.inheritance, 8);
    mem.view.writeBigUInt64LE(0n, 16); // pMultipleTrustee
    mem.view.writeUInt32LE(0, 24); // NO_MULTIPLE_TRUSTEE
    mem.view.writeUInt32LE(TRUSTEE_IS_SID, 28);
    mem.view.writeUInt32LE(TRUSTEE_IS_UNKNOWN, 32);
    mem.view.writeBigUInt64LE(sidOut[0] as unknown as Ptr, 40);
    const out = [null];
    checkCode('SetEntriesInAclW', w.adv['SetEntriesInAclW']!(1, entry, daclOut[0], out));
    newDacl = out[0] ?? null;
    checkCode(
      `SetNamedSecurityInfoW(${ace.nativePath})`,
      w.adv['SetNamedSecurityInfoW']!(
        ace.nativePath,
        SE_FILE_OBJECT,
        DACL_SECURITY_INFORMATION,
        null,
        null,
        newDacl,
        null,
      ),
    );
    return { path: ace.nativePath, applied: true, ms: now() - started };
  } finally {
    if (newDacl !== null) w.k32['LocalFree']!(newDacl);
    if (sidOut[0] !== null) w.k32['LocalFree']!(sidOut[0]);
    w.k32['LocalFree']!(sdOut[0]);
    freeBytes(w, entry);
  }
}
