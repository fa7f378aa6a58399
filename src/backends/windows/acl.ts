// Applies the plan's ACEs to files: GetNamedSecurityInfoW reads the DACL; when the wanted
// explicit ACE is already there (sddl.ts) nothing is written, otherwise SetEntriesInAclW merges
// it (GRANT_ACCESS for allow, DENY_ACCESS for deny; Windows orders deny before allow) and
// SetNamedSecurityInfoW writes it, which makes Windows propagate the inheritable ACE through
// the subtree. ACEs persist (docs/windows.md "ACE persistence"): the first run on a tree
// pays the propagation, later runs pay one DACL read per root.

import {
  allocBytes,
  check,
  checkCode,
  freeBytes,
  type Ptr,
  readWide,
  type Win32,
} from '../../native/win32.ts';
import { hasExplicitAce } from '../../plan/windows/sddl.ts';

const SE_FILE_OBJECT = 1;
const DACL_SECURITY_INFORMATION = 0x4;
const GRANT_ACCESS = 1;
const DENY_ACCESS = 3;
const TRUSTEE_IS_SID = 0;
const TRUSTEE_IS_UNKNOWN = 0;
const EXPLICIT_ACCESS_SIZE = 48;

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

/** The DACL of a file as SDDL text. */
export function readDaclSddl(w: Win32, nativePath: string): string {
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
    const text = [null];
    check(
      w,
      'ConvertSecurityDescriptorToStringSecurityDescriptorW',
      w.adv['ConvertSecurityDescriptorToStringSecurityDescriptorW']!(
        sd[0],
        1,
        DACL_SECURITY_INFORMATION,
        text,
        null,
      ),
    );
    const sddl = readWide(w, text[0] as unknown as Ptr);
    w.k32['LocalFree']!(text[0]);
    return sddl;
  } finally {
    w.k32['LocalFree']!(sd[0]);
  }
}

export function ensureAce(w: Win32, ace: AceRequest, now: () => number): AceResult {
  const started = now();
  if (hasExplicitAce(readDaclSddl(w, ace.nativePath), ace)) {
    return { path: ace.nativePath, applied: false, ms: now() - started };
  }
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
