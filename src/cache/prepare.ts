// Makes the sandbox cache real before a run: creates its directories private to the user
// (0700), refuses any that another user owns, that is group/world-writable or that is a
// symlink, and writes the sanitized config copies without following links. Impure; the
// layout is decided in layout.ts.
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { CordonError } from '../errors.ts';
import { parentOf } from '../policy/access.ts';
import type { CacheLayout } from './layout.ts';
import { sanitizeNpmrc } from './npmrc.ts';

/**
 * The directory must be a real directory (not a link), owned by `uid`, and not writable by
 * group or others. `uid` -1 (Windows) skips the owner and mode checks: there the directory
 * inherits the ACL of the user's profile directory.
 */
export function checkPrivateDir(path: string, uid: number): void {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new CordonError(
      'unsafe-cache',
      `cannot use the sandbox cache directory '${path}': ${code} — check its permissions, or set the profile's cache: off`,
    );
  }
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new CordonError(
      'unsafe-cache',
      `refusing the sandbox cache directory '${path}': it is ${st.isSymbolicLink() ? 'a symlink' : 'not a directory'} — remove it (cordon recreates it), or set the profile's cache: off`,
    );
  }
  if (uid < 0) return;
  if (st.uid !== uid) {
    throw new CordonError(
      'unsafe-cache',
      `refusing the sandbox cache directory '${path}': it belongs to uid ${st.uid}, not to you (uid ${uid}) — remove it, or point XDG_CACHE_HOME at a directory of your own`,
    );
  }
  if ((st.mode & 0o022) !== 0) {
    throw new CordonError(
      'unsafe-cache',
      `refusing the sandbox cache directory '${path}': it is writable by ${st.mode & 0o002 ? 'everyone' : 'its group'} (mode ${(st.mode & 0o777).toString(8)}) — chmod 700 it, or remove it`,
    );
  }
}

/** Thrown inside this module when a directory cannot be created (not ours to fix silently). */
class CacheUnavailable extends Error {}

function ensurePrivateDir(path: string, uid: number): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    if (code !== 'EEXIST') throw new CacheUnavailable(`cannot create '${path}': ${code}`);
  }
  try {
    lstatSync(path);
  } catch (error) {
    throw new CacheUnavailable(`cannot use '${path}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  checkPrivateDir(path, uid);
}

/**
 * Creates and checks every directory from <root>/.. (the cordon dir) down to the entry's
 * parts. Returns why the cache is unavailable when a directory cannot be created (a home that
 * is read-only or not the caller's: the run goes on without a cache, which confines no less);
 * throws CordonError when one exists but is unsafe (another owner, group/world-writable, a link).
 */
export function prepareCacheDirs(layout: CacheLayout, uid: number): string | undefined {
  const cordonDir = parentOf(layout.root);
  try {
    // The directories above cordon's own (e.g. ~/.cache) are the user's; create them if missing.
    mkdirSync(parentOf(cordonDir), { recursive: true, mode: 0o700 });
  } catch {
    // reported by ensurePrivateDir below with the path that failed
  }
  try {
    for (const dir of [cordonDir, layout.root, layout.entry, layout.toolsDir, layout.configDir])
      ensurePrivateDir(dir, uid);
  } catch (error) {
    if (error instanceof CacheUnavailable) return error.message;
    throw error;
  }
  return undefined;
}

/** Reads `source` with cordon's rights; an unreadable file gives an empty copy, never an error. */
function readOrEmpty(source: string): string {
  try {
    return readFileSync(source, 'utf8');
  } catch {
    return '';
  }
}

/** Writes next to the target and renames over it: a link at the target is replaced, not followed. */
function writeReplacing(target: string, text: string): void {
  const temp = `${target}.cordon-${process.pid}`;
  rmSync(temp, { force: true });
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  renameSync(temp, target);
}

export function writeSanitizedCopies(layout: CacheLayout): void {
  for (const copy of layout.copies) {
    if (copy.kind === 'npmrc') writeReplacing(copy.target, sanitizeNpmrc(readOrEmpty(copy.source)).text);
  }
}

/** Undefined when the cache is ready; otherwise why it is unavailable (see prepareCacheDirs). */
export function prepareSandboxCache(layout: CacheLayout, uid: number): string | undefined {
  const unavailable = prepareCacheDirs(layout, uid);
  if (unavailable === undefined) writeSanitizedCopies(layout);
  return unavailable;
}
