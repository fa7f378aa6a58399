// The restricted token: OpenProcessToken on cordon's own process, CreateRestrictedToken with
// the plan's flags and restricting SIDs (write roots, carve-outs, the per-run SID, Everyone, in
// that order), then TokenDefaultDacl from the plan's SDDL — SYSTEM, the user's SID (TokenUser)
// and the per-run SID — so shells can create their pipes and objects while another sandbox
// (which lacks this run's SID) fails the restricted pass on them. IsTokenRestricted must say
// yes before anything runs with it (assertRestricted).

import { randomBytes } from 'node:crypto';
import { CordonError } from '../../errors.ts';
import {
  allocBytes,
  check,
  freeBytes,
  isNullHandle,
  type Ptr,
  readWide,
  type Win32,
  Win32Error,
} from '../../native/win32.ts';
import { desktopNameFromBytes, runSidFromBytes } from '../../plan/windows/sid.ts';
import type { RestrictingSid } from '../../plan/windows/spec.ts';

const TOKEN_ASSIGN_PRIMARY = 0x1;
const TOKEN_DUPLICATE = 0x2;
const TOKEN_QUERY = 0x8;
const TOKEN_ADJUST_PRIVILEGES = 0x20;
const TOKEN_ADJUST_DEFAULT = 0x80;
const TOKEN_ADJUST_SESSIONID = 0x100;
const TOKEN_USER_CLASS = 1;
const TOKEN_GROUPS_CLASS = 2;
const TOKEN_DEFAULT_DACL_CLASS = 6;
const SE_GROUP_LOGON_ID = 0xc0000000;
const SDDL_REVISION_1 = 1;

export interface RestrictedToken {
  readonly token: Ptr;
  /** The token's user SID (TokenUser), granted in the default DACL, window station and desktop. */
  readonly userSid: string;
  /** IsTokenRestricted on the new token (false under Wine, which ignores restricting SIDs). */
  readonly restricted: boolean;
  close(): void;
}

/** The user SID of a token (TokenUser). */
export function readUserSid(w: Win32, token: Ptr): string {
  const needed = [0];
  w.adv['GetTokenInformation']!(token, TOKEN_USER_CLASS, null, 0, needed);
  if (needed[0] === 0) throw new Win32Error('GetTokenInformation(TokenUser)', w.k32['GetLastError']!());
  const { ptr, view } = allocBytes(w, needed[0]!);
  try {
    check(
      w,
      'GetTokenInformation(TokenUser)',
      w.adv['GetTokenInformation']!(token, TOKEN_USER_CLASS, ptr, needed[0], needed),
    );
    const out = [null];
    check(w, 'ConvertSidToStringSidW', w.adv['ConvertSidToStringSidW']!(view.readBigUInt64LE(0), out));
    const text = readWide(w, out[0] as unknown as Ptr);
    w.k32['LocalFree']!(out[0]);
    return text;
  } finally {
    freeBytes(w, ptr);
  }
}

/** Fills {user} and {run} in an SDDL template (default DACL, window station, desktop). */
export function fillSddl(template: string, userSid: string, runSid: string): string {
  return template.replaceAll('{user}', userSid).replaceAll('{run}', runSid);
}

/** The logon SID string of a token, or undefined when the token has none (doctor reports it). */
export function readLogonSid(w: Win32, token: Ptr): string | undefined {
  const needed = [0];
  w.adv['GetTokenInformation']!(token, TOKEN_GROUPS_CLASS, null, 0, needed);
  if (needed[0] === 0) throw new Win32Error('GetTokenInformation(TokenGroups)', w.k32['GetLastError']!());
  const { ptr, view } = allocBytes(w, needed[0]!);
  try {
    check(
      w,
      'GetTokenInformation(TokenGroups)',
      w.adv['GetTokenInformation']!(token, TOKEN_GROUPS_CLASS, ptr, needed[0], needed),
    );
    const count = view.readUInt32LE(0);
    for (let i = 0; i < count; i++) {
      const sid = view.readBigUInt64LE(8 + i * 16);
      const attributes = view.readUInt32LE(8 + i * 16 + 8);
      if ((attributes & SE_GROUP_LOGON_ID) >>> 0 === SE_GROUP_LOGON_ID) {
        const out = [null];
        check(w, 'ConvertSidToStringSidW', w.adv['ConvertSidToStringSidW']!(sid, out));
        const text = readWide(w, out[0] as unknown as Ptr);
        w.k32['LocalFree']!(out[0]);
        return text;
      }
    }
    return undefined;
  } finally {
    freeBytes(w, ptr);
  }
}

/** A security descriptor from SDDL (LocalAlloc'd) and its DACL pointer. */
export function securityDescriptorFromSddl(w: Win32, sddl: string): { sd: Ptr; dacl: Ptr } {
  const out = [null];
  check(
    w,
    `ConvertStringSecurityDescriptorToSecurityDescriptorW(${sddl})`,
    w.adv['ConvertStringSecurityDescriptorToSecurityDescriptorW']!(sddl, SDDL_REVISION_1, out, null),
  );
  const sd = out[0] as unknown as Ptr;
  const present = [0];
  const dacl = [null];
  const defaulted = [0];
  check(w, 'GetSecurityDescriptorDacl', w.adv['GetSecurityDescriptorDacl']!(sd, present, dacl, defaulted));
  return { sd, dacl: dacl[0] as unknown as Ptr };
}

export function createRestrictedToken(
  w: Win32,
  flags: number,
  denyOnly: readonly string[],
  sids: readonly RestrictingSid[],
  defaultDaclSddl: string,
  resolveSid: (sid: RestrictingSid) => string | undefined,
  runSid: string,
): RestrictedToken {
  const baseOut = [null];
  check(
    w,
    'OpenProcessToken',
    w.adv['OpenProcessToken']!(
      w.k32['GetCurrentProcess']!(),
      TOKEN_DUPLICATE |
        TOKEN_QUERY |
        TOKEN_ASSIGN_PRIMARY |
        TOKEN_ADJUST_DEFAULT |
        TOKEN_ADJUST_SESSIONID |
        TOKEN_ADJUST_PRIVILEGES,
      baseOut,
    ),
  );
  const base = baseOut[0] as unknown as Ptr;
  const sidPtrs: Ptr[] = [];
  let array: Ptr | undefined;
  let descriptor: Ptr | undefined;
  try {
    const userSid = readUserSid(w, base);
    const texts: string[] = [];
    for (const entry of sids) {
      const text = entry.role === 'run' ? runSid : resolveSid(entry);
      if (text === undefined) throw new Error(`no SID for restricting entry ${entry.sid}`);
      texts.push(text);
    }
    for (const text of texts) {
      const out = [null];
      check(w, `ConvertStringSidToSidW(${text})`, w.adv['ConvertStringSidToSidW']!(text, out));
      sidPtrs.push(out[0] as unknown as Ptr);
    }
    const restrictCount = sidPtrs.length;
    for (const text of denyOnly) {
      const out = [null];
      check(w, `ConvertStringSidToSidW(${text})`, w.adv['ConvertStringSidToSidW']!(text, out));
      sidPtrs.push(out[0] as unknown as Ptr);
    }
    // One SID_AND_ATTRIBUTES array: restricting SIDs first, then the deny-only ones.
    const mem = allocBytes(w, sidPtrs.length * 16);
    array = mem.ptr;
    for (const [i, sid] of sidPtrs.entries()) {
      mem.view.writeBigUInt64LE(sid, i * 16);
      mem.view.writeUInt32LE(0, i * 16 + 8);
    }
    const disable = array + BigInt(restrictCount * 16);
    const out = [null];
    check(
      w,
      'CreateRestrictedToken',
      w.adv['CreateRestrictedToken']!(
        base,
        flags,
        denyOnly.length,
        denyOnly.length > 0 ? disable : null,
        0,
        null,
        restrictCount,
        array,
        out,
      ),
    );
    const token = out[0] as unknown as Ptr;
    const daclText = fillSddl(defaultDaclSddl, userSid, runSid);
    const { sd, dacl } = securityDescriptorFromSddl(w, daclText);
    descriptor = sd;
    const info = allocBytes(w, 8);
    try {
      info.view.writeBigUInt64LE(dacl ?? 0n, 0);
      check(
        w,
        'SetTokenInformation(TokenDefaultDacl)',
        w.adv['SetTokenInformation']!(token, TOKEN_DEFAULT_DACL_CLASS, info.ptr, 8),
      );
    } finally {
      freeBytes(w, info.ptr);
    }
    const restricted = w.adv['IsTokenRestricted']!(token) !== 0;
    return {
      token,
      userSid,
      restricted,
      close: () => {
        if (!isNullHandle(token)) w.k32['CloseHandle']!(token);
      },
    };
  } finally {
    for (const sid of sidPtrs) w.k32['LocalFree']!(sid);
    if (descriptor !== undefined) w.k32['LocalFree']!(descriptor);
    freeBytes(w, array);
    w.k32['CloseHandle']!(base);
  }
}

/**
 * Refuses to go on with a token Windows does not consider restricted (Wine, for one, ignores
 * restricting SIDs): a command started with it would run unconfined.
 */
export function assertRestricted(token: RestrictedToken): void {
  if (token.restricted) return;
  token.close();
  throw new CordonError(
    'backend-unavailable',
    'IsTokenRestricted says the restricted token cordon made has no restricting SIDs, so nothing would stop the command from writing — nothing was run; this Windows (or compatibility layer, such as Wine) does not honour restricted tokens; cordon doctor shows the check',
  );
}

/** A fresh per-run SID and window station/desktop name, 128 random bits each. */
export function drawRunIdentity(): { runSid: string; desktopName: string } {
  return { runSid: runSidFromBytes(randomBytes(16)), desktopName: desktopNameFromBytes(randomBytes(16)) };
}
