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
import { deriveCordonSid, desktopNameFromBytes, runSidFromBytes } from '../../src/plan/windows/sid.ts';

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
  it('is a deterministic, case-insensitive resource-manager SID per role and path, never account-shaped', () => {
    const sid = deriveCordonSid('write-root', 'C:/Users/user/project');
    expect(sid).toMatch(/^S-1-9-1-\d+-\d+-\d+-\d+$/);
    expect(deriveCordonSid('carve-out', 'C:/Users/user/project')).toMatch(/^S-1-9-2-/);
    expect(sid.startsWith('S-1-5-21-')).toBe(false);
    expect(deriveCordonSid('write-root', 'c:/users/USER/project')).toBe(sid);
    expect(deriveCordonSid('carve-out', 'C:/Users/user/project')).not.toBe(sid);
    expect(deriveCordonSid('write-root', 'C:/Users/user/project2')).not.toBe(sid);
  });
  it('builds the per-run SID and the desktop name from all 128 random bits', () => {
    const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
    expect([runSidFromBytes(bytes), desktopNameFromBytes(bytes)]).toEqual([
      `S-1-9-3-${[0x33221100, 0x77665544, 0xbbaa9988, 0xffeeddcc].join('-')}`,
      'cordon-00112233445566778899aabbccddeeff',
    ]);
    expect(() => runSidFromBytes(new Uint8Array(8))).toThrow(RangeError);
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
