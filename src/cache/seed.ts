// Warms the sandbox cache from the host's own cache before a run (docs/caches.md, "Warm from
// the host"): the content-addressed entries the sandbox cache is missing are copied (a
// reflink where the file system has one) from the host cache, which the command cannot
// write, into the entry's tools/ tree, which it CAN write. So every destination step goes
// through a directory descriptor: each component is opened O_DIRECTORY|O_NOFOLLOW relative
// to its parent's descriptor (/proc/self/fd/N/name), a file is created O_CREAT|O_EXCL under
// a temporary name and renamed over the final name within the pinned directory; a link the
// command planted is never followed, a non-directory where a directory should be is skipped.
// The host side is walked the same way and only regular files are read, so a link planted in
// the host cache cannot make cordon copy a file the command may not read. Never hard links:
// the copy is a new inode, so a write inside the sandbox cannot reach the host's file. Linux.
import {
  closeSync,
  constants,
  copyFileSync,
  type Dirent,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { CacheSeed } from './layout.ts';

export interface SeedResult {
  readonly tool: string;
  readonly source: string;
  /** Files copied this time (missing from the sandbox cache). */
  readonly files: number;
  readonly bytes: number;
  /** Destination entries skipped because they were not what cordon expects (a link, a file). */
  readonly skipped: number;
  /** Why seeding stopped early (ENOSPC, an unreadable source, ...). */
  readonly error?: string | undefined;
}

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
/** Names in a content-addressed cache: algorithm names and hex digests, never a dot. */
const ENTRY_NAME = /^[A-Za-z0-9_-]{1,160}$/;
/** content-v2/<algo>/<2 hex>/<2 hex>/<file> is the deepest npm goes. */
const MAX_DEPTH = 5;

function fdPath(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** Opens `name` in the directory `parentFd` as a directory, never following a link. */
function openDirAt(parentFd: number, name: string): number | undefined {
  try {
    return openSync(fdPath(parentFd, name), DIR_FLAGS);
  } catch {
    return undefined; // missing, a link (ELOOP) or not a directory (ENOTDIR)
  }
}

/** Creates (if missing) and opens a destination directory; undefined if something else is there. */
function ensureDirAt(parentFd: number, name: string, uid: number, create = true): number | undefined {
  try {
    if (create) mkdirSync(fdPath(parentFd, name), { mode: 0o700 });
  } catch {
    // EEXIST (as anything: a planted link is caught by O_NOFOLLOW below)
  }
  const fd = openDirAt(parentFd, name);
  if (fd === undefined) return undefined;
  if (uid >= 0 && fstatSync(fd).uid !== uid) {
    closeSync(fd);
    return undefined;
  }
  return fd;
}

function listDir(fd: number): Dirent[] {
  return readdirSync(fdPath(fd), { withFileTypes: true });
}

interface Counters {
  files: number;
  bytes: number;
  skipped: number;
  serial: number;
  /** Source directory (relative) → "mtimeNs:ino", read before it was listed (seed-npm.json). */
  stamps: Map<string, string>;
  /** A source directory changed too recently for its mtime to prove the next run anything. */
  racy: boolean;
}

/** A directory modified within this window may still change in the same timestamp tick. */
const RACY_NS = 2_000_000_000n;

function stampOf(fd: number, count: Counters): string {
  const st = fstatSync(fd, { bigint: true });
  if (BigInt(Date.now()) * 1_000_000n - st.mtimeNs < RACY_NS) count.racy = true;
  return `${st.mtimeNs}:${st.ino}`;
}

/** Copies one regular file from srcDir into dstDir under `name` (anything else is left out). */
function copyEntry(srcDirFd: number, dstDirFd: number, name: string, count: Counters): void {
  let srcFd: number;
  try {
    srcFd = openSync(
      fdPath(srcDirFd, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch {
    return; // vanished, or a link: not copied
  }
  const temp = `.cordon-seed-${process.pid}-${count.serial++}`;
  try {
    const st = fstatSync(srcFd);
    // The copy keeps the mode: never a set-id file (npm's entries are plain 0444/0644).
    if (!st.isFile() || (st.mode & 0o7000) !== 0) return;
    // O_CREAT|O_EXCL on the temporary name (COPYFILE_EXCL): a planted link there fails, never followed.
    copyFileSync(fdPath(srcFd), fdPath(dstDirFd, temp), constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    renameSync(fdPath(dstDirFd, temp), fdPath(dstDirFd, name));
    count.files++;
    count.bytes += st.size;
  } catch (error) {
    try {
      unlinkSync(fdPath(dstDirFd, temp));
    } catch {
      // never created
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') count.skipped++;
    else throw error;
  } finally {
    closeSync(srcFd);
  }
}

/** Mirrors what dst lacks of src, depth-first; both are pinned directory descriptors. */
function mirror(srcFd: number, dstFd: number, rel: string, uid: number, count: Counters): void {
  const depth = rel.split('/').length;
  count.stamps.set(rel, stampOf(srcFd, count));
  const present = new Map<string, Dirent>();
  for (const d of listDir(dstFd)) present.set(d.name, d);
  for (const entry of listDir(srcFd)) {
    if (!ENTRY_NAME.test(entry.name)) continue;
    const there = present.get(entry.name);
    if (entry.isDirectory() && depth < MAX_DEPTH) {
      if (there !== undefined && !there.isDirectory()) {
        count.skipped++;
        continue;
      }
      const s = openDirAt(srcFd, entry.name);
      if (s === undefined) continue;
      const d = ensureDirAt(dstFd, entry.name, uid, there === undefined);
      try {
        if (d === undefined) count.skipped++;
        else mirror(s, d, `${rel}/${entry.name}`, uid, count);
      } finally {
        closeSync(s);
        if (d !== undefined) closeSync(d);
      }
    } else if (entry.isFile() && there === undefined) {
      copyEntry(srcFd, dstFd, entry.name, count);
    }
  }
}

/** Opens an absolute path one component at a time, none of them a link. */
function openDirPath(path: string): number | undefined {
  let fd: number | undefined = openSync('/', DIR_FLAGS);
  for (const part of path.split('/').filter(Boolean)) {
    const next: number | undefined = openDirAt(fd, part);
    closeSync(fd);
    if (next === undefined) return undefined;
    fd = next;
  }
  return fd;
}

interface SeedState {
  readonly source: string;
  /** Source directories (relative, '.' the root) → "mtimeNs:ino" when they were listed. */
  readonly dirs: Record<string, string>;
  /** Destination part directories → inode: one the command removed and re-made is re-filled. */
  readonly targets: Record<string, string>;
}

function readState(path: string): SeedState | undefined {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as SeedState;
    return typeof data.source === 'string' && typeof data.dirs === 'object' ? data : undefined;
  } catch {
    return undefined;
  }
}

function targetInodes(seed: CacheSeed): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of seed.parts) {
    const st = lstatSync(`${seed.target}/${part}`, { bigint: true, throwIfNoEntry: false });
    out[part] = st?.isDirectory() ? `${st.ino}` : 'missing';
  }
  return out;
}

/**
 * Whether nothing was added to the host cache since the last complete copy: every directory
 * an entry is created in gets a new mtime, so equal stamps on all of them mean no new entry.
 */
function unchangedSince(seed: CacheSeed, state: SeedState | undefined): boolean {
  if (!state || state.source !== seed.source) return false;
  const now = targetInodes(seed);
  if (seed.parts.some((p) => now[p] === 'missing' || state.targets[p] !== now[p])) return false;
  const dirs = Object.entries(state.dirs);
  if (dirs.length === 0) return false;
  for (const [rel, stamp] of dirs) {
    const st = lstatSync(rel === '.' ? seed.source : `${seed.source}/${rel}`, {
      bigint: true,
      throwIfNoEntry: false,
    });
    if (!st?.isDirectory() || `${st.mtimeNs}:${st.ino}` !== stamp) return false;
  }
  return true;
}

/** Temp name + rename in the entry directory (not writable inside the sandbox). */
function writeState(path: string, state: SeedState): void {
  const temp = `${path}.cordon-${process.pid}`;
  try {
    writeFileSync(temp, JSON.stringify(state), { mode: 0o600, flag: 'wx' });
    renameSync(temp, path);
  } catch {
    rmSync(temp, { force: true });
  }
}

/**
 * Copies into `seed.target` what it lacks of `seed.source`'s `parts`. `toolsDir` has been
 * created and checked (prepare.ts) and is not writable inside the sandbox; everything below it is.
 */
export function seedFromHost(seed: CacheSeed, toolsDir: string, uid: number): SeedResult {
  const count: Counters = { files: 0, bytes: 0, skipped: 0, serial: 0, stamps: new Map(), racy: false };
  const result = (error?: string): SeedResult => ({
    tool: seed.tool,
    source: seed.source,
    files: count.files,
    bytes: count.bytes,
    skipped: count.skipped,
    ...(error === undefined ? {} : { error }),
  });
  const fds: number[] = [];
  try {
    if (unchangedSince(seed, readState(seed.state))) return result();
    rmSync(seed.state, { force: true });
    const src = openDirPath(seed.source);
    if (src === undefined) return result(`cannot open '${seed.source}' as a directory`);
    fds.push(src);
    count.stamps.set('.', stampOf(src, count));
    let dst = openDirPath(toolsDir);
    if (dst === undefined) return result(`cannot open '${toolsDir}' as a directory`);
    fds.push(dst);
    for (const part of seed.targetBelowTools) {
      const next = ensureDirAt(dst, part, uid);
      if (next === undefined) {
        count.skipped++;
        return result();
      }
      fds.push(next);
      dst = next;
    }
    for (const part of seed.parts) {
      const s = openDirAt(src, part);
      if (s === undefined) continue;
      fds.push(s);
      const d = ensureDirAt(dst, part, uid);
      if (d === undefined) {
        count.skipped++;
        continue;
      }
      fds.push(d);
      mirror(s, d, part, uid, count);
    }
    // Only a complete copy is remembered; after a skip or a racy stamp the next run walks again.
    if (count.skipped === 0 && !count.racy)
      writeState(seed.state, {
        source: seed.source,
        dirs: Object.fromEntries(count.stamps),
        targets: targetInodes(seed),
      });
    return result();
  } catch (error) {
    return result((error as NodeJS.ErrnoException).code ?? String(error));
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
