// DACL decisions on binary ACEs (what acl.ts reads with GetAce + MapGenericMask): an ACE cordon
// applied once is recognised whatever letters Windows would render it as; inherited, inherit-only
// or different ACEs are not; NULL DACLs and unknown allow types count as writable for the audit.
import { describe, expect, it } from 'vitest';
import {
  type AceEntry,
  grantsWriteTo,
  hasExplicitAce,
  hasExplicitWriteGrant,
} from '../../src/plan/windows/dacl.ts';

const SID = 'S-1-9-2-1-2-3-4';
const EVERYONE = 'S-1-1-0';
const ace = (type: number, flags: number, mask: number, sid: string): AceEntry => ({
  type,
  flags,
  mask,
  sid,
});
const OICI = 0x3;
const INHERITED = 0x10;
const INHERIT_ONLY = 0x8;

describe('hasExplicitAce', () => {
  const dacl = [
    ace(1, OICI, 0xd0156, SID),
    ace(0, OICI, 0x1301bf, 'S-1-9-1-5-6-7-8'),
    ace(0, OICI | INHERITED, 0x1f01ff, 'S-1-5-18'),
  ];
  it('recognises the exact explicit ACE (SID compared case-insensitively)', () => {
    expect(hasExplicitAce(dacl, { type: 'deny', sid: SID, rights: 0xd0156 })).toBe(true);
    expect(hasExplicitAce(dacl, { type: 'allow', sid: 's-1-9-1-5-6-7-8', rights: 0x1301bf })).toBe(true);
  });
  it('does not take a different mask, type, inheritance, or an inherited copy for it', () => {
    expect(hasExplicitAce(dacl, { type: 'deny', sid: SID, rights: 0xd0116 })).toBe(false);
    expect(hasExplicitAce(dacl, { type: 'allow', sid: SID, rights: 0xd0156 })).toBe(false);
    expect(hasExplicitAce(dacl, { type: 'deny', sid: SID, rights: 0xd0156, inheritance: 0 })).toBe(false);
    expect(
      hasExplicitAce([ace(1, OICI | INHERITED, 0xd0156, SID)], { type: 'deny', sid: SID, rights: 0xd0156 }),
    ).toBe(false);
    expect(
      hasExplicitAce([ace(1, OICI | INHERIT_ONLY, 0xd0156, SID)], {
        type: 'deny',
        sid: SID,
        rights: 0xd0156,
      }),
    ).toBe(false);
  });
  it('finds nothing in an empty or NULL DACL (a NULL DACL is never merged into: acl.ts refuses)', () => {
    expect(hasExplicitAce([], { type: 'allow', sid: SID, rights: 1 })).toBe(false);
    expect(hasExplicitAce(null, { type: 'allow', sid: SID, rights: 1 })).toBe(false);
  });
});

describe('grantsWriteTo (world-writable audit)', () => {
  it('flags write-like rights granted to the given SIDs only', () => {
    expect(
      grantsWriteTo([ace(0, OICI, 0x1200a9, EVERYONE), ace(0, OICI, 0x1f01ff, 'S-1-5-18')], [EVERYONE]),
    ).toBe(false);
    expect(grantsWriteTo([ace(0, OICI, 0x1f01ff, EVERYONE)], [EVERYONE])).toBe(true);
    expect(grantsWriteTo([ace(0, OICI | INHERIT_ONLY, 0x2, EVERYONE)], [EVERYONE])).toBe(true);
    expect(grantsWriteTo([ace(0, OICI, 0x1f01ff, 'S-1-5-11')], [EVERYONE])).toBe(false);
  });
  it('honours a plain deny before the grant, and counts write bits only once denied ones are gone', () => {
    expect(
      grantsWriteTo([ace(1, OICI, 0x1f01ff, EVERYONE), ace(0, OICI, 0x1f01ff, EVERYONE)], [EVERYONE]),
    ).toBe(false);
    expect(grantsWriteTo([ace(1, OICI, 0x2, EVERYONE), ace(0, OICI, 0x6, EVERYONE)], [EVERYONE])).toBe(true);
  });
  it('treats a NULL DACL, and object or callback allow ACEs, as granting', () => {
    expect(grantsWriteTo(null, [EVERYONE])).toBe(true);
    expect(grantsWriteTo([ace(5, 0, 0x2, EVERYONE)], [EVERYONE])).toBe(true);
    expect(grantsWriteTo([ace(9, 0, 0x10000, EVERYONE)], [EVERYONE])).toBe(true);
  });
  it('hasExplicitWriteGrant ignores grants a file only inherits', () => {
    expect(hasExplicitWriteGrant([ace(0, INHERITED, 0x1f01ff, EVERYONE)], [EVERYONE])).toBe(false);
    expect(hasExplicitWriteGrant([ace(0, 0, 0x1f01ff, EVERYONE)], [EVERYONE])).toBe(true);
  });
});
