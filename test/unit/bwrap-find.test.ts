// Which bubblewrap cordon trusts, decided from ownership and location alone (nothing is
// executed). A fake file system stands in for lstat/realpath: the rules, not the kernel.
import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findBwrap, untrustedReason } from '../../src/host/bwrap-find.ts';

type Node = { kind: 'dir' | 'file'; uid: number; mode: number };

function fakeFs(nodes: Record<string, Node>) {
  const lstat = (p: string): Stats => {
    const n = nodes[p];
    if (!n) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return {
      uid: n.uid,
      mode: n.mode,
      isFile: () => n.kind === 'file',
      isDirectory: () => n.kind === 'dir',
      isSymbolicLink: () => false,
    } as unknown as Stats;
  };
  const realpath = (p: string) => {
    if (!nodes[p]) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return p;
  };
  return { lstat, realpath };
}

const rootDir = (mode = 0o755): Node => ({ kind: 'dir', uid: 0, mode });
const rootExe: Node = { kind: 'file', uid: 0, mode: 0o755 };

describe('findBwrap', () => {
  it('prefers the fixed system location and lists PATH ones as not consulted', () => {
    const fs = fakeFs({
      '/': rootDir(),
      '/usr': rootDir(),
      '/usr/bin': rootDir(),
      '/usr/bin/bwrap': rootExe,
      '/opt': rootDir(),
      '/opt/b': rootDir(),
      '/opt/b/bwrap': rootExe,
    });
    expect(
      findBwrap({ pathVar: '/opt/b:/usr/bin', writableGuess: [], systemPaths: ['/usr/bin/bwrap'], ...fs }),
    ).toEqual({
      chosen: '/usr/bin/bwrap',
      candidates: [
        { path: '/usr/bin/bwrap' },
        { path: '/opt/b/bwrap', rejected: 'on PATH, not used: a system bubblewrap was found first' },
      ],
    });
  });

  it('on PATH: skips user-owned, group-writable and workspace candidates; takes a root-owned one', () => {
    const fs = fakeFs({
      '/': rootDir(),
      '/home': rootDir(),
      '/home/u': { kind: 'dir', uid: 1000, mode: 0o755 },
      '/home/u/bin': { kind: 'dir', uid: 1000, mode: 0o755 },
      '/home/u/bin/bwrap': { kind: 'file', uid: 1000, mode: 0o755 },
      '/srv': rootDir(0o775),
      '/srv/bwrap': rootExe,
      '/ws': rootDir(),
      '/ws/node_modules': rootDir(),
      '/ws/node_modules/.bin': rootDir(),
      '/ws/node_modules/.bin/bwrap': rootExe,
      '/opt': rootDir(),
      '/opt/bwrap': rootExe,
    });
    const r = findBwrap({
      pathVar: '/ws/node_modules/.bin:/home/u/bin:/srv:relative:/opt',
      writableGuess: ['/ws'],
      systemPaths: ['/usr/bin/bwrap'],
      ...fs,
    });
    expect(r).toEqual({
      chosen: '/opt/bwrap',
      candidates: [
        { path: '/ws/node_modules/.bin/bwrap', rejected: 'inside /ws, where a sandboxed run can write' },
        {
          path: '/home/u/bin/bwrap',
          rejected: 'not trusted: /home/u/bin/bwrap is owned by uid 1000, not root',
        },
        { path: '/srv/bwrap', rejected: 'not trusted: /srv is writable by its group' },
        { path: '/opt/bwrap' },
      ],
    });
  });

  it('accepts a sticky group-writable ancestor (/nix/store), not a plain one', () => {
    const fs = fakeFs({
      '/': rootDir(),
      '/nix': rootDir(),
      '/nix/store': rootDir(0o1775),
      '/nix/store/x-bwrap': rootDir(0o555),
      '/nix/store/x-bwrap/bwrap': rootExe,
    });
    expect(untrustedReason('/nix/store/x-bwrap/bwrap', fs.lstat)).toBeUndefined();
    expect(
      untrustedReason(
        '/nix/store/x-bwrap/bwrap',
        fakeFs({
          ...{
            '/': rootDir(),
            '/nix': rootDir(),
            '/nix/store': rootDir(0o775),
            '/nix/store/x-bwrap': rootDir(0o555),
            '/nix/store/x-bwrap/bwrap': rootExe,
          },
        }).lstat,
      ),
    ).toBe('/nix/store is writable by its group');
  });

  it('never trusts a file whose own directory is sticky and writable (/var/tmp/bwrap)', () => {
    const fs = fakeFs({
      '/': rootDir(),
      '/var': rootDir(),
      '/var/tmp': rootDir(0o1777),
      '/var/tmp/bwrap': rootExe,
    });
    expect(untrustedReason('/var/tmp/bwrap', fs.lstat)).toBe('/var/tmp is writable by its group');
  });

  it('finds none when nothing is trusted', () => {
    const fs = fakeFs({ '/': rootDir(0o757), '/bwrap': rootExe });
    expect(findBwrap({ pathVar: '/', writableGuess: [], systemPaths: [], ...fs }).chosen).toBeUndefined();
    expect(untrustedReason('/bwrap', fs.lstat)).toBe('/ is writable by others');
  });
});
