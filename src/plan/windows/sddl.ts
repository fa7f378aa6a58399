// Reading a DACL in SDDL form (what ConvertSecurityDescriptorToStringSecurityDescriptorW
// returns) to decide whether an ACE cordon wants is already there, so a repeated run on the
// same tree writes nothing (and Windows propagates nothing). Pure text work.
import { INHERIT_CONTAINERS_AND_OBJECTS } from './spec.ts';

export interface SddlAce {
  readonly type: string;
  readonly flags: readonly string[];
  readonly rights: number | undefined;
  readonly sid: string;
}

/** SDDL right aliases that can appear for file objects (sddl.h). */
const RIGHT_ALIASES: Record<string, number> = {
  FA: 0x1f01ff,
  FR: 0x120089,
  FW: 0x120116,
  FX: 0x1200a0,
  SD: 0x10000,
  RC: 0x20000,
  WD: 0x40000,
  WO: 0x80000,
  GA: 0x10000000,
  GX: 0x20000000,
  GW: 0x40000000,
  GR: 0x80000000,
};

function parseRights(text: string): number | undefined {
  if (/^0x[0-9a-f]+$/i.test(text)) return Number.parseInt(text.slice(2), 16);
  if (text.length % 2 !== 0) return undefined;
  let mask = 0;
  for (let i = 0; i < text.length; i += 2) {
    const value = RIGHT_ALIASES[text.slice(i, i + 2).toUpperCase()];
    if (value === undefined) return undefined;
    mask = (mask | value) >>> 0;
  }
  return mask;
}

/** The ACEs of the D: part of an SDDL string, in order. */
export function parseDaclAces(sddl: string): SddlAce[] {
  const start = sddl.indexOf('D:');
  if (start < 0) return [];
  const end = sddl.indexOf('S:', start);
  const dacl = sddl.slice(start, end < 0 ? undefined : end);
  const aces: SddlAce[] = [];
  for (const match of dacl.matchAll(/\(([^)]*)\)/g)) {
    const fields = match[1]!.split(';');
    if (fields.length < 6) continue;
    const [type, flags, rights] = fields;
    aces.push({
      type: type!.toUpperCase(),
      flags: (flags!.match(/../g) ?? []).map((f) => f.toUpperCase()),
      rights: parseRights(rights!),
      sid: fields[5]!.toUpperCase(),
    });
  }
  return aces;
}

/** Whether the DACL already holds this explicit (not inherited) container+object-inherit ACE. */
export function hasExplicitAce(
  sddl: string,
  want: { type: 'allow' | 'deny'; sid: string; rights: number; inheritance?: number },
): boolean {
  const letter = want.type === 'allow' ? 'A' : 'D';
  const inheritance = want.inheritance ?? INHERIT_CONTAINERS_AND_OBJECTS;
  return parseDaclAces(sddl).some(
    (ace) =>
      ace.type === letter &&
      ace.sid === want.sid.toUpperCase() &&
      ace.rights === want.rights >>> 0 &&
      !ace.flags.includes('ID') &&
      !ace.flags.includes('IO') &&
      ace.flags.includes('OI') === ((inheritance & 0x1) !== 0) &&
      ace.flags.includes('CI') === ((inheritance & 0x2) !== 0),
  );
}

/** Rights that change an object or its children: any of them granted is "writable". */
const WRITE_LIKE = 0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000;

/**
 * Whether the DACL lets one of `sids` (SDDL aliases like WD, or S-1-… strings) write: an allow
 * ACE with a write-like right, including inherit-only ones (they make new children writable).
 * Such a SID being a restricting SID of the sandbox makes the object writable from inside it.
 */
export function grantsWriteTo(sddl: string, sids: readonly string[]): boolean {
  const wanted = new Set(sids.map((s) => s.toUpperCase()));
  return parseDaclAces(sddl).some(
    (ace) =>
      ace.type === 'A' &&
      wanted.has(ace.sid) &&
      (ace.rights === undefined || (ace.rights & WRITE_LIKE) !== 0),
  );
}
