// Descriptor-relative file operations for cordon's unconfined host-side code (Linux): every
// operation on a path a sandboxed command can change goes through a directory descriptor
// pinned before the command starts, one component at a time, never following a symlink.
// libc openat/mkdirat/unlinkat/renameat through koffi; stat is fstat on an O_PATH descriptor
// (no struct stat layout to get wrong); a directory is listed through /proc/self/fd/N, which
// names the open directory itself, not a path that could be re-pointed.
import { closeSync, constants, fchmodSync, fstatSync, readdirSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { loadKoffi } from './koffi.ts';

const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;
const AT_REMOVEDIR = 0x200;
const AT_FDCWD = -100;

export const O_DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | O_CLOEXEC;

interface FsAt {
  openat(dirfd: number, name: string, flags: number, mode: number): number;
  mkdirat(dirfd: number, name: string, mode: number): number;
  unlinkat(dirfd: number, name: string, flags: number): number;
  renameat(olddirfd: number, oldname: string, newdirfd: number, newname: string): number;
  errno(): number;
}

let cached: FsAt | undefined;

function libc(): FsAt {
  if (cached) return cached;
  const koffi = loadKoffi();
  const lib = koffi.load('libc.so.6');
  const openat = lib.func('int openat(int dirfd, const char *path, int flags, unsigned int mode)');
  const mkdirat = lib.func('int mkdirat(int dirfd, const char *path, unsigned int mode)');
  const unlinkat = lib.func('int unlinkat(int dirfd, const char *path, int flags)');
  const renameat = lib.func(
    'int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath)',
  );
  cached = {
    openat: (d, n, f, m) => openat(d, n, f, m),
    mkdirat: (d, n, m) => mkdirat(d, n, m),
    unlinkat: (d, n, f) => unlinkat(d, n, f),
    renameat: (a, b, c, d) => renameat(a, b, c, d),
    errno: () => koffi.errno(),
  };
  return cached;
}

/** A failed call, with the errno name (ELOOP, ENOTDIR, EEXIST, ...) as `code`. */
export class FsAtError extends Error {
  readonly code: string;
  constructor(call: string, name: string, errno: number) {
    const code =
      Object.entries(osConstants.errno).find(([, v]) => v === errno)?.[0] ?? `errno ${String(errno)}`;
    super(`${call} '${name}': ${code}`);
    this.code = code;
  }
}

function check(result: number, call: string, name: string): number {
  if (result < 0) throw new FsAtError(call, name, libc().errno());
  return result;
}

function validName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
    throw new FsAtError('name', name, osConstants.errno.EINVAL);
}

export interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

export interface EntryStat extends Identity {
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
  readonly mode: number;
  readonly uid: number;
  readonly size: bigint;
}

/** fstat of an open descriptor. */
export function statFd(fd: number): EntryStat {
  const st = fstatSync(fd, { bigint: true });
  const kind = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  return {
    dev: st.dev,
    ino: st.ino,
    kind,
    mode: Number(st.mode & 0o7777n),
    uid: Number(st.uid),
    size: st.size,
  };
}

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** openat(dirfd, name, flags | O_CLOEXEC | O_NOFOLLOW): one component, never through a link. */
export function openAt(dirfd: number, name: string, flags: number, mode = 0): number {
  validName(name);
  return check(libc().openat(dirfd, name, flags | constants.O_NOFOLLOW | O_CLOEXEC, mode), 'openat', name);
}

/** No-follow stat of `name` in the directory `dirfd`; undefined when it does not exist. */
export function statAt(dirfd: number, name: string): EntryStat | undefined {
  validName(name);
  const fd = libc().openat(dirfd, name, O_PATH | constants.O_NOFOLLOW | O_CLOEXEC, 0);
  if (fd < 0) {
    const errno = libc().errno();
    if (errno === osConstants.errno.ENOENT) return undefined;
    throw new FsAtError('openat', name, errno);
  }
  try {
    return statFd(fd);
  } finally {
    closeSync(fd);
  }
}

export function mkdirAt(dirfd: number, name: string, mode: number): void {
  validName(name);
  check(libc().mkdirat(dirfd, name, mode), 'mkdirat', name);
}

export function unlinkAt(dirfd: number, name: string, opts: { dir?: boolean } = {}): void {
  validName(name);
  check(libc().unlinkat(dirfd, name, opts.dir ? AT_REMOVEDIR : 0), 'unlinkat', name);
}

export function renameAt(olddirfd: number, oldname: string, newdirfd: number, newname: string): void {
  validName(oldname);
  validName(newname);
  check(libc().renameat(olddirfd, oldname, newdirfd, newname), 'renameat', `${oldname} -> ${newname}`);
}

/** Components of an absolute, normalized path. */
export function splitPath(path: string): string[] {
  if (!path.startsWith('/')) throw new FsAtError('path', path, osConstants.errno.EINVAL);
  return path.split('/').filter((c) => c !== '');
}

/**
 * Opens an absolute directory path from / one component at a time without following any
 * symlink (ELOOP/ENOTDIR if one is in the way): the descriptor names the directory that was
 * there when it was opened, whatever later happens to the path.
 */
export function openDirPath(path: string): number {
  let fd = check(libc().openat(AT_FDCWD, '/', O_DIR_NOFOLLOW, 0), 'openat', '/');
  try {
    for (const part of splitPath(path)) {
      const next = openAt(fd, part, O_DIR_NOFOLLOW);
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * O_PATH descriptor of another process's root directory through /proc/PID/root (a magic
 * link, the one link followed here: it names that process's root, not a path).
 */
export function openProcRoot(pid: number): number {
  if (!Number.isInteger(pid) || pid <= 0) throw new FsAtError('pid', String(pid), osConstants.errno.EINVAL);
  return check(
    libc().openat(AT_FDCWD, `/proc/${pid}/root`, O_PATH | constants.O_DIRECTORY | O_CLOEXEC, 0),
    'openat',
    `/proc/${pid}/root`,
  );
}

/** Identity of an absolute path below `rootFd`, reached without following any symlink. */
export function identityBelow(rootFd: number, path: string): EntryStat {
  const parts = splitPath(path);
  if (parts.length === 0) return statFd(rootFd);
  let fd = rootFd;
  try {
    for (const part of parts.slice(0, -1)) {
      const next = openAt(fd, part, O_PATH | constants.O_DIRECTORY);
      if (fd !== rootFd) closeSync(fd);
      fd = next;
    }
    const last = statAt(fd, parts[parts.length - 1]!);
    if (!last) throw new FsAtError('openat', path, osConstants.errno.ENOENT);
    if (last.kind === 'symlink') throw new FsAtError('openat', path, osConstants.errno.ELOOP);
    return last;
  } finally {
    if (fd !== rootFd) closeSync(fd);
  }
}

/** Identity of an absolute host path reached without following any symlink. */
export function identityOf(path: string): EntryStat {
  const rootFd = check(
    libc().openat(AT_FDCWD, '/', O_PATH | constants.O_DIRECTORY | O_CLOEXEC, 0),
    'openat',
    '/',
  );
  try {
    return identityBelow(rootFd, path);
  } finally {
    closeSync(rootFd);
  }
}

/** Names in an open directory (through /proc/self/fd, i.e. the directory object itself). */
export function listDir(dirfd: number): string[] {
  return readdirSync(`/proc/self/fd/${dirfd}`);
}

/**
 * Removes `name` from the directory `dirfd` and, if it is a directory, everything below it:
 * each level opened O_NOFOLLOW relative to its parent's descriptor and checked against the
 * entry just stat'ed, so a directory swapped for a symlink (or another directory) mid-walk
 * is never followed: at worst the link itself is unlinked. Directories are made writable
 * (fchmod on the descriptor) first, as Go leaves its module cache read-only.
 * Returns the names that could not be removed.
 */
export function removeTreeAt(dirfd: number, name: string, depth = 0): string[] {
  const st = statAt(dirfd, name);
  if (!st) return [];
  if (st.kind !== 'dir') return tryUnlink(dirfd, name, false);
  let fd: number;
  try {
    fd = openAt(dirfd, name, O_DIR_NOFOLLOW);
  } catch (error) {
    // Swapped for something else between the stat and the open: remove that entry only.
    if (error instanceof FsAtError && (error.code === 'ELOOP' || error.code === 'ENOTDIR'))
      return tryUnlink(dirfd, name, false);
    return error instanceof FsAtError && error.code === 'ENOENT' ? [] : [name];
  }
  const left: string[] = [];
  try {
    const opened = statFd(fd);
    // Another directory renamed in between the stat and the open: not the one we walked to.
    if (!sameIdentity(opened, st) || depth > 512) return [name];
    try {
      if ((opened.mode & 0o700) !== 0o700) fchmodSync(fd, 0o700);
    } catch {
      // not ours to change; the unlinks below report what is left
    }
    for (const child of listDir(fd))
      left.push(...removeTreeAt(fd, child, depth + 1).map((n) => `${name}/${n}`));
  } finally {
    closeSync(fd);
  }
  return left.length > 0 ? left : tryUnlink(dirfd, name, true);
}

function tryUnlink(dirfd: number, name: string, dir: boolean): string[] {
  try {
    unlinkAt(dirfd, name, { dir });
    return [];
  } catch (error) {
    if (error instanceof FsAtError && error.code === 'ENOENT') return [];
    return [name];
  }
}
