// lstat kind of a path, shared by the POSIX and Windows host probes: a symlink is reported
// as 'symlink', never followed; anything unreadable is 'missing'.
import { lstatSync } from 'node:fs';
import type { PathKind } from './types.ts';

export function pathKind(path: string): PathKind {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return 'symlink';
    if (st.isDirectory()) return 'dir';
    if (st.isFile()) return 'file';
    return 'other';
  } catch {
    return 'missing';
  }
}
