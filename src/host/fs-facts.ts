// Facts about paths and the kernel that the probes read, without executing anything:
// canonical paths, a PATH lookup, root-ownership all the way up, the kernel release.
import { accessSync, constants, lstatSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathKind } from './path-kind.ts';

export function realpathLenient(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const i = path.lastIndexOf('/');
    if (i <= 0) return path;
    const parent = realpathLenient(path.slice(0, i) || '/');
    return parent === '/' ? `/${path.slice(i + 1)}` : `${parent}/${path.slice(i + 1)}`;
  }
}

/** The first executable `name` on PATH — only looked up, never executed (the {node} token). */
export function findOnPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (pathKind(realpathLenient(candidate)) === 'file') return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * A regular file that only root can change: it and every directory above it are owned by root
 * and not writable by group or others (never a program a sandboxed command could have planted).
 */
export function isRootOwnedFile(path: string): boolean {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.uid !== 0 || (st.mode & 0o022) !== 0) return false;
    for (let dir = dirname(path); ; dir = dirname(dir)) {
      const d = lstatSync(dir);
      if (!d.isDirectory() || d.uid !== 0 || (d.mode & 0o022) !== 0) return false;
      if (dir === '/') return true;
    }
  } catch {
    return false;
  }
}

/** Whether a Linux release string (6.1.0-18-amd64) is at least major.minor. */
export function kernelAtLeast(version: string, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a > major || (a === major && b >= minor);
}
