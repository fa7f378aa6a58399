// Native addons inside the single executable (SEA assets, e.g. koffi.node). One is written once
// to a private per-user directory (0700, ours, no ancestor others can tamper with), named by its
// SHA-256, and compared byte for byte with the executable's copy on EVERY load: a sandboxed
// command able to write there cannot get other code loaded by a later run. On Linux the checked
// descriptor itself is loaded (/proc/self/fd/N), so the file cannot be swapped between the check
// and the load. The hash is computed at build time (scripts/bundle.mjs), not at start-up.
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { getAsset } from 'node:sea';
import { CordonError } from '../errors.ts';

export interface NativeDirInputs {
  readonly platform: NodeJS.Platform;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

/** Where extracted addons live: the per-user cache, never a temp directory. */
export function resolveNativeDir({ platform, env, home }: NativeDirInputs): string {
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'];
    return join(local && isAbsolute(local) ? local : join(home, 'AppData', 'Local'), 'cordon', 'native');
  }
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'cordon', 'native');
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'cordon', 'native');
}

function refuse(dir: string, problem: string): never {
  throw new CordonError(
    'native-module',
    `cannot use '${dir}' for cordon's native module: ${problem} — set XDG_CACHE_HOME (Windows: LOCALAPPDATA) to a directory only you can write`,
  );
}

/** Create (0700) and check the directory: ours, not a symlink, no ancestor others can tamper with. */
export function ensurePrivateDir(dir: string): void {
  if (process.platform === 'win32') {
    mkdirSync(dir, { recursive: true }); // per-user profile ACLs; no POSIX modes to check
    return;
  }
  // Every existing ancestor must be owned by root or us, and writable by nobody else unless it
  // is sticky (/tmp, /var/tmp: others cannot rename or delete what we own in it).
  const me = process.getuid?.();
  for (let up = dirname(dir); ; up = dirname(up)) {
    let st: { uid: number; mode: number } | undefined;
    try {
      st = lstatSync(up);
    } catch {
      // not there yet: created below, 0700
    }
    if (st !== undefined) {
      if (st.uid !== 0 && st.uid !== me) refuse(dir, `its ancestor '${up}' belongs to uid ${st.uid}`);
      if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)
        refuse(dir, `its ancestor '${up}' is writable by others`);
    }
    if (dirname(up) === up) break;
  }
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    refuse(dir, `cannot create it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const st = lstatSync(dir);
  if (!st.isDirectory()) refuse(dir, 'not a directory (a symlink?)');
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) refuse(dir, `owned by uid ${st.uid}, not ${uid}`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Open `file` and return the descriptor only if it is ours and equal to `bytes`. */
function openIfIntact(file: string, bytes: Uint8Array): number | undefined {
  const size = bytes.length;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    const ok = st.isFile() && st.size === size && (uid === undefined || st.uid === uid);
    if (ok) {
      const buf = Buffer.allocUnsafe(size);
      let off = 0;
      while (off < size) {
        const n = readSync(fd, buf, off, size - off, off);
        if (n === 0) break;
        off += n;
      }
      if (off === size && buf.equals(bytes)) return fd;
    }
  } catch {
    // unreadable: treated as missing and rewritten
  }
  closeSync(fd);
  return undefined;
}

function writeAtomically(dir: string, file: string, bytes: Uint8Array): void {
  const tmp = join(dir, `.${process.pid}-${Date.now().toString(36)}.tmp`); // O_EXCL below
  const fd = openSync(tmp, 'wx', 0o500);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

export interface VerifiedNative {
  /** What to pass to dlopen: /proc/self/fd/N on Linux, the file elsewhere. */
  readonly loadPath: string;
  readonly file: string;
  readonly fd: number;
}

/** Extract `bytes` as `name` into `dir` unless an intact copy is there; return it opened. */
export function openVerifiedNative(
  name: string,
  bytes: Uint8Array,
  dir: string,
  hash: string,
): VerifiedNative {
  try {
    ensurePrivateDir(dir);
  } catch (error) {
    // No usable per-user cache dir (a read-only or foreign HOME): extract into a fresh
    // private (0700) directory of our own for this run instead. mkdtemp creates it with a
    // random name, so nothing another user or a sandboxed command planted can be there.
    if (!/cannot create it/.test(String((error as Error).message))) throw error;
    dir = mkdtempSync(join(tmpdir(), 'cordon-native-'));
  }
  const dot = name.lastIndexOf('.');
  const file = join(
    dir,
    `${dot > 0 ? name.slice(0, dot) : name}-${hash.slice(0, 32)}${dot > 0 ? name.slice(dot) : ''}`,
  );
  let fd = openIfIntact(file, bytes);
  if (fd === undefined) {
    writeAtomically(dir, file, bytes);
    fd = openIfIntact(file, bytes);
  }
  if (fd === undefined) refuse(dir, `'${file}' does not match the executable's copy after writing it`);
  return { loadPath: process.platform === 'linux' ? `/proc/self/fd/${fd}` : file, file, fd };
}

// SHA-256 of each asset, filled in by the single-executable build (define); absent elsewhere.
declare const __CORDON_NATIVE_HASHES__: Readonly<Record<string, string>> | undefined;

// Addons already loaded in this process (dlopen once; later requires get the same exports).
const loaded = new Map<string, unknown>();

/** Load the native addon stored in the executable as asset `name`; returns its exports. */
export function loadNativeAsset(name: string): unknown {
  if (loaded.has(name)) return loaded.get(name);
  const bytes = new Uint8Array(getAsset(name));
  const dir = resolveNativeDir({ platform: process.platform, env: process.env, home: homedir() });
  const hash = typeof __CORDON_NATIVE_HASHES__ === 'object' ? __CORDON_NATIVE_HASHES__[name] : undefined;
  if (!hash) throw new CordonError('internal', `no build-time hash for the asset '${name}' — rebuild cordon`);
  const native = openVerifiedNative(name, bytes, dir, hash);
  const mod = { exports: {} as unknown };
  try {
    process.dlopen(mod, native.loadPath);
  } finally {
    closeSync(native.fd);
  }
  loaded.set(name, mod.exports);
  return mod.exports;
}
