// HostInfo on Windows. Policy paths use '/' separators and an upper-case drive letter
// (C:/Users/me/project); this probe converts both ways: realpath resolves junctions, symlinks
// and 8.3 short names through GetFinalPathNameByHandle (realpathSync.native) and drops the
// \\?\ prefix; kind() reports junctions and symlinks as 'symlink' (lstat does).
import { readFileSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { pathKind } from './path-kind.ts';
import type { HostInfo, PathKind } from './types.ts';

/** C:\x\ or \\?\C:\x → C:/x; \\?\UNC\s\h → //s/h. */
export function toPolicyPath(native: string): string {
  let p = native.replace(/\\/g, '/');
  if (/^\/\/\?\/unc\//i.test(p)) p = `//${p.slice(8)}`;
  else if (/^\/\/\?\/[A-Za-z]:/.test(p)) p = p.slice(4);
  p = p.replace(/^([a-z]):/, (_, d: string) => `${d.toUpperCase()}:`);
  if (/^[A-Z]:$/.test(p)) return `${p}/`;
  return p.length > 3 ? p.replace(/\/+$/, '') : p;
}

function toNative(path: string): string {
  return path.replace(/\//g, '\\');
}

export function windowsRealpath(path: string): string {
  if (path === '/') return '/'; // the policy's "every drive", not the current drive's root
  try {
    return toPolicyPath(realpathSync.native(toNative(path)));
  } catch {
    const norm = toPolicyPath(path);
    const i = norm.lastIndexOf('/');
    if (i <= 2) return norm;
    const parent = windowsRealpath(norm.slice(0, i));
    return `${parent.endsWith('/') ? parent : `${parent}/`}${norm.slice(i + 1)}`;
  }
}

function windowsKind(path: string): PathKind {
  return pathKind(toNative(path));
}

function readSmall(path: string): string | undefined {
  try {
    const text = readFileSync(toNative(path), 'utf8');
    return text.length > 64 * 1024 ? undefined : text;
  } catch {
    return undefined;
  }
}

export function probeWindowsHost(env: Readonly<Record<string, string | undefined>>): HostInfo {
  const roots = [env['SystemRoot'], env['ProgramFiles'], env['ProgramFiles(x86)'], env['ProgramData']]
    .filter((r): r is string => r !== undefined && r !== '')
    .map(windowsRealpath)
    .filter((r) => windowsKind(r) !== 'missing');
  return {
    platform: 'win32',
    arch: process.arch,
    uid: -1,
    home: windowsRealpath(homedir()),
    tmpdir: windowsRealpath(tmpdir()),
    systemRoots: [...new Set(roots)],
    realpath: windowsRealpath,
    kind: windowsKind,
    readText: readSmall,
  };
}
