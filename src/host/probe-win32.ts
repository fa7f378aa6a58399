// HostInfo on Windows. Policy paths use '/' separators and an upper-case drive letter
// (C:/Users/me/project); this probe converts both ways: realpath resolves junctions, symlinks
// and 8.3 short names through GetFinalPathNameByHandle (realpathSync.native) and drops the
// \\?\ prefix; kind() reports junctions and symlinks as 'symlink' (lstat does). windowsJob:
// IsProcessInJob on cordon itself and, when in one, whether that job lets a child break away
// (QueryInformationJobObject with a NULL job handle reads the caller's own job).
import { readFileSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { loadWin32, type Ptr } from '../native/win32.ts';
import { pathKind } from './path-kind.ts';
import type { HostInfo, PathKind, WindowsJobInfo } from './types.ts';

const JOB_EXTENDED_LIMIT_CLASS = 9;
const JOB_EXTENDED_LIMIT_SIZE = 144;
const JOB_OBJECT_LIMIT_BREAKAWAY_OK = 0x800;
const JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK = 0x1000;

/** cordon's own job membership; undefined when it cannot be read (the launcher then finds out). */
export function probeWindowsJob(): WindowsJobInfo | undefined {
  try {
    const w = loadWin32();
    const inJob = [0];
    if (w.k32['IsProcessInJob']!(w.k32['GetCurrentProcess']!(), null, inJob) === 0) return undefined;
    if (inJob[0] === 0) return { inJob: false, breakawayAllowed: false };
    const info: Ptr = w.koffi.alloc('uint8_t', JOB_EXTENDED_LIMIT_SIZE);
    try {
      const view = Buffer.from(w.koffi.view(info, JOB_EXTENDED_LIMIT_SIZE));
      view.fill(0);
      const ok = w.k32['QueryInformationJobObject']!(
        null,
        JOB_EXTENDED_LIMIT_CLASS,
        info,
        JOB_EXTENDED_LIMIT_SIZE,
        null,
      );
      const flags = ok === 0 ? 0 : view.readUInt32LE(16);
      const breakaway = JOB_OBJECT_LIMIT_BREAKAWAY_OK | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
      return { inJob: true, breakawayAllowed: (flags & breakaway) !== 0 };
    } finally {
      w.koffi.free(info);
    }
  } catch {
    return undefined;
  }
}

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
    windowsJob: probeWindowsJob(),
    realpath: windowsRealpath,
    kind: windowsKind,
    readText: readSmall,
  };
}
