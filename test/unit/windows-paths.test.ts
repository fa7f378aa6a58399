// Windows path canonicalization, 8.3 detection, native spelling and capability SID derivation.
import { describe, expect, it } from 'vitest';
import { toPolicyPath } from '../../src/host/probe-win32.ts';
import { buildWindowsEnv, sortedEnvBlock } from '../../src/plan/windows/env.ts';
import {
  canonicalWindowsPath,
  hasShortNameComponent,
  parentOf,
  toNativePath,
} from '../../src/plan/windows/paths.ts';
import { grantsWriteTo, hasExplicitAce, parseDaclAces } from '../../src/plan/windows/sddl.ts';
import { deriveCordonSid } from '../../src/plan/windows/sid.ts';

describe('canonicalWindowsPath', () => {
  it.each([
    ['/', '/'],
    ['C:', 'C:/'],
    ['c:/', 'C:/'],
    ['c:/Users/Me/', 'C:/Users/Me'],
    ['C:\\Users\\Me', 'C:/Users/Me'],
    ['//?/c:/Users/x', 'C:/Users/x'],
    ['\\\\?\\C:\\Users\\x', 'C:/Users/x'],
    ['\\\\?\\UNC\\srv\\share\\d', '//srv/share/d'],
    ['//srv/share', '//srv/share'],
    ['/etc/shadow', 'D:/etc/shadow'],
  ])('%s → %s', (raw, canonical) => {
    const result = canonicalWindowsPath(raw, 'D');
    expect(result.ok ? result.value.path : result.reason).toBe(canonical);
  });

  it.each([
    ['C:/a/file.txt:secret', /alternate data stream/],
    ['C:/a/file.txt::$DATA', /alternate data stream/],
    ['C:/a/.git.', /ends with a dot or space/],
    ['C:/a/dir ', /ends with a dot or space/],
    ['C:/a/CON', /reserved DOS device/],
    ['C:/a/nul.txt', /reserved DOS device/],
    ['C:/a/COM1', /reserved DOS device/],
    ['C:/a/b?c', /not allowed/],
    ['//./PhysicalDrive0', /device or volume/],
    ['//?/Volume{0b1c}/x', /device or volume/],
    ['C:relative', /not an absolute Windows path/],
  ])('refuses %s', (raw, reason) => {
    const result = canonicalWindowsPath(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});

describe('paths', () => {
  it('detects 8.3 aliases only in their shape', () => {
    expect(
      ['C:/PROGRA~1', 'C:/a/GIT~1', 'C:/a/FOO~12.TXT', 'C:/a/my~file', 'C:/a/x~1y'].map(
        hasShortNameComponent,
      ),
    ).toEqual([true, true, true, false, false]);
  });
  it('spells native paths, with \\\\?\\ past MAX_PATH', () => {
    expect(toNativePath('C:/a/b')).toBe('C:\\a\\b');
    expect(toNativePath('C:/')).toBe('C:\\');
    expect(toNativePath('//srv/share/x')).toBe('\\\\srv\\share\\x');
    const long = `C:/${'d'.repeat(300)}`;
    expect(toNativePath(long)).toBe(`\\\\?\\C:\\${'d'.repeat(300)}`);
  });
  it('finds parents across drive roots and shares', () => {
    expect([
      parentOf('C:/a/b'),
      parentOf('C:/a'),
      parentOf('C:/'),
      parentOf('//s/h/x'),
      parentOf('//s/h'),
    ]).toEqual(['C:/a', 'C:/', '/', '//s/h', '/']);
  });
});

describe('deriveCordonSid', () => {
  it('is a deterministic, case-insensitive S-1-5-21 SID per role and path', () => {
    const sid = deriveCordonSid('write-root', 'C:/Users/user/project');
    expect(sid).toMatch(/^S-1-5-21-\d+-\d+-\d+-\d+$/);
    expect(deriveCordonSid('write-root', 'c:/users/USER/project')).toBe(sid);
    expect(deriveCordonSid('carve-out', 'C:/Users/user/project')).not.toBe(sid);
    expect(deriveCordonSid('write-root', 'C:/Users/user/project2')).not.toBe(sid);
  });
});

describe('Windows environment', () => {
  it('merges spellings case-insensitively, keeps the first spelling and the last value, sorts', () => {
    expect(buildWindowsEnv({ Path: 'a', b: '1', PATH: 'c', TEMP: 't' }, ['TEMP'])).toEqual({
      b: '1',
      Path: 'c',
    });
    expect(Object.keys(buildWindowsEnv({ z: '1', A: '2', _x: '3' }, []))).toEqual(
      ['_x', 'A', 'z'].sort((x, y) => (x.toUpperCase() < y.toUpperCase() ? -1 : 1)),
    );
  });
  it('refuses names with = and NUL values', () => {
    expect(() => buildWindowsEnv({ 'A=B': 'x' }, [])).toThrow(/cannot be passed on Windows/);
    expect(() => buildWindowsEnv({ A: 'x\0y' }, [])).toThrow(/cannot be passed on Windows/);
    expect(buildWindowsEnv({ '=C:': 'C:\\x' }, [])).toEqual({ '=C:': 'C:\\x' });
  });
  it('writes a double-NUL-terminated block', () => {
    expect(sortedEnvBlock({ b: '2', A: '1' })).toBe('A=1\0b=2\0\0');
  });
});

describe('SDDL DACL reading', () => {
  const sid = 'S-1-5-21-1-2-3-4';
  const sddl = `O:S-1-5-21-9G:S-1-5-21-9D:PAI(D;OICI;0xd0156;;;${sid})(A;OICI;0x1301bf;;;${sid})(A;OICIID;FA;;;SY)(A;ID;FR;;;WD)S:(ML;;NW;;;LW)`;
  it('parses the D: part only', () => {
    expect(parseDaclAces(sddl).map((a) => [a.type, a.flags.join(''), a.rights, a.sid])).toEqual([
      ['D', 'OICI', 0xd0156, sid],
      ['A', 'OICI', 0x1301bf, sid],
      ['A', 'OICIID', 0x1f01ff, 'SY'],
      ['A', 'ID', 0x120089, 'WD'],
    ]);
  });
  it('finds explicit ACEs and ignores inherited or different ones', () => {
    expect(hasExplicitAce(sddl, { type: 'deny', sid, rights: 0xd0156 })).toBe(true);
    expect(hasExplicitAce(sddl, { type: 'allow', sid: sid.toLowerCase(), rights: 0x1301bf })).toBe(true);
    expect(hasExplicitAce(sddl, { type: 'allow', sid, rights: 0x1200a9 })).toBe(false);
    expect(
      hasExplicitAce(sddl.replace('(A;OICI;', '(A;OICIID;'), { type: 'allow', sid, rights: 0x1301bf }),
    ).toBe(false);
    expect(hasExplicitAce('D:', { type: 'allow', sid, rights: 1 })).toBe(false);
  });
});

describe('toPolicyPath (Windows probe)', () => {
  it.each([
    ['C:\\Users\\me\\', 'C:/Users/me'],
    ['c:\\', 'C:/'],
    ['\\\\?\\C:\\Users\\me', 'C:/Users/me'],
    ['\\\\?\\UNC\\srv\\share\\x', '//srv/share/x'],
    ['\\\\srv\\share', '//srv/share'],
  ])('%s → %s', (native, policy) => {
    expect(toPolicyPath(native)).toBe(policy);
  });
});

describe('grantsWriteTo (world-writable audit)', () => {
  it('flags allow ACEs with write-like rights for the given SIDs only', () => {
    expect(grantsWriteTo('D:(A;OICI;0x1200a9;;;WD)(A;OICI;FA;;;SY)', ['WD', 'S-1-1-0'])).toBe(false);
    expect(grantsWriteTo('D:(A;OICI;FA;;;WD)', ['WD'])).toBe(true);
    expect(grantsWriteTo('D:(A;OICIIO;0x2;;;WD)', ['WD'])).toBe(true);
    expect(grantsWriteTo('D:(A;;0x1301bf;;;S-1-5-5-0-1)', ['WD', 'S-1-5-5-0-1'])).toBe(true);
    expect(grantsWriteTo('D:(D;OICI;FA;;;WD)(A;OICI;FR;;;WD)', ['WD'])).toBe(false);
    expect(grantsWriteTo('D:(A;OICI;FA;;;AU)', ['WD'])).toBe(false);
  });
});
