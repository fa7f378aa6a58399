// Probing the machine into a HostInfo. Only what a run needs is probed (bwrap and Landlock
// on request); nothing is cached on disk, where a sandboxed command could tamper with it.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
} from 'node:fs';
import { homedir, release, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isSea } from 'node:sea';
import { unixHelperAvailable } from '../backends/bwrap/supervised.ts';
import { probeLandlockAbi } from '../native/landlock.ts';
import type { Platform } from '../policy/types.ts';
import { findBwrap } from './bwrap-find.ts';
import { configDir } from './config-dir.ts';
import { findOnPath, isRootOwnedFile, kernelAtLeast, realpathLenient } from './fs-facts.ts';
import { type NodeRuntime, nodeRuntime } from './node-runtime.ts';
import { findOwnCode } from './own-code.ts';
import { pathKind } from './path-kind.ts';

export { findOnPath, isRootOwnedFile, kernelAtLeast, realpathLenient } from './fs-facts.ts';

import { probeWindowsHost } from './probe-win32.ts';
import { probeDarwinUserDirs } from './seatbelt-probe.ts';
import type { BwrapInfo, HostInfo, LandlockInfo } from './types.ts';

export { pathKind };

export interface ProbeOptions {
  readonly bwrap?: boolean;
  readonly landlock?: boolean;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Version and full trial for bwrap (doctor, explain); runs use the one-call fast probe. */
  readonly detailed?: boolean;
  /** The run's working directory: a bwrap on PATH inside it is never trusted. */
  readonly cwd?: string | undefined;
}

const LINUX_SYSTEM_ROOTS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix/store',
  '/run/current-system/sw',
];

// The read-only system roots of a Mac: the OS, /private/etc (behind /etc), the databases and
// /private/var/select (which /bin/sh reads to pick its shell), and the package managers' trees.
const DARWIN_SYSTEM_ROOTS = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library',
  '/Applications',
  '/private/etc',
  '/private/var/db',
  '/private/var/select',
  '/opt/homebrew',
  '/opt/local',
  '/nix/store',
];

/** At most 256 KiB (a .git/config with many remotes and submodules); never a FIFO's wait. */
function readSmallText(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const buf = Buffer.alloc(256 * 1024);
    let n = 0;
    for (let got = 1; got > 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const USERNS_BLOCKED =
  /setting up uid map|No permissions to create a? ?new namespace|Operation not permitted|Failed RTM_NEW|Permission denied|Creating new namespace failed/i;

/**
 * `detailed` (doctor): the version and a trial with every namespace cordon uses (~30 ms).
 * `fast` (every run): one trial, `--unshare-user --disable-userns` (~14 ms), which answers the
 * two questions a run needs — can bwrap create a user namespace here, and does it know
 * --disable-userns — without the version call or a network namespace.
 */
export function probeBwrap(
  env: Readonly<Record<string, string | undefined>>,
  mode: 'fast' | 'detailed' = 'detailed',
  writableGuess: readonly string[] = [],
): BwrapInfo | undefined {
  // Chosen before anything is executed: never a bwrap a sandboxed run could have planted.
  const path = findBwrap({ pathVar: env['PATH'], writableGuess }).chosen;
  return path === undefined ? undefined : probeBwrapAt(path, mode);
}

/** The trial (and, detailed, the version) of the bubblewrap at `path`, already trusted. */
export function probeBwrapAt(path: string, mode: 'fast' | 'detailed' = 'detailed'): BwrapInfo {
  const trialRun = (args: string[]) =>
    spawnSync(path, [...args, '--ro-bind', '/', '/', '--', '/bin/true'], {
      encoding: 'utf8',
      env: {},
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 5000,
    });
  const failure = (trial: ReturnType<typeof trialRun>, versionText: string) => {
    const stderr = (trial.stderr ?? '').trim().split('\n')[0] ?? '';
    return USERNS_BLOCKED.test(stderr)
      ? `bubblewrap cannot create user namespaces here (${stderr}): on Ubuntu 24.04 allow it with an AppArmor profile for ${path} (see README), elsewhere enable unprivileged user namespaces`
      : `bubblewrap${versionText ? ` ${versionText}` : ''} failed its trial run (${stderr || `exit ${trial.status}`})`;
  };
  if (mode === 'fast') {
    let trial = trialRun(['--unshare-user', '--disable-userns']);
    let supportsDisableUserns = true;
    if (trial.status !== 0 && /unknown option|unrecognized/i.test(trial.stderr ?? '')) {
      supportsDisableUserns = false;
      trial = trialRun(['--unshare-user']);
    }
    const base = { path, version: '', supportsDisableUserns, supportsOverlay: false };
    if (trial.status === 0) return { ...base, usable: true };
    return { ...base, usable: false, unusableReason: failure(trial, '') };
  }
  const version = spawnSync(path, ['--version'], {
    encoding: 'utf8',
    env: {},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const versionText = (version.stdout ?? '').trim().replace(/^bubblewrap\s+/, '') || 'unknown';
  const trial = trialRun([
    '--unshare-user',
    '--unshare-pid',
    '--unshare-net',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ]);
  const [major = 0, minor = 0] = versionText.split('.').map(Number);
  const atLeast = (ma: number, mi: number) => major > ma || (major === ma && minor >= mi);
  const base = {
    path,
    version: versionText,
    supportsDisableUserns: atLeast(0, 8),
    supportsOverlay: atLeast(0, 10),
  };
  if (trial.status === 0) return { ...base, usable: true };
  return { ...base, usable: false, unusableReason: failure(trial, versionText) };
}

/** Where a sandboxed run usually writes: a bwrap found on PATH there is not trusted. */
export function bwrapWritableGuess(cwd: string | undefined): string[] {
  return [
    ...new Set([
      realpathLenient(cwd ?? process.cwd()),
      realpathLenient(homedir()),
      realpathLenient(tmpdir()),
    ]),
  ];
}

export function probeLandlock(): LandlockInfo {
  try {
    // Lazy: koffi costs ~20 ms; only runs that consider Landlock pay it.
    return { abi: probeLandlockAbi() };
  } catch (error) {
    return { abi: 0, reason: `cannot call landlock_create_ruleset: ${(error as Error).message}` };
  }
}

/**
 * cordon's per-user state directories, created (0700) if missing so a sandboxed command can
 * never be the one to create them: ~/.cache/cordon (compile cache, native module), the
 * XDG_CACHE_HOME one, and the platform cache dir's (sandbox cache on macOS and Windows).
 */
function ensureStateDirs(platform: Platform, env: Readonly<Record<string, string | undefined>>): string[] {
  const home = homedir();
  const bases = [join(home, '.cache')];
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg?.startsWith('/')) bases.push(xdg);
  if (platform === 'darwin') bases.push(join(home, 'Library', 'Caches'));
  if (platform === 'win32' && env['LOCALAPPDATA']) bases.push(env['LOCALAPPDATA']);
  // The config dir (cli/config.ts) too: its config.yaml sets every run's defaults.
  const config = configDir(env, platform);
  bases.push(dirname(config));
  const dirs: string[] = [];
  const me = typeof process.getuid === 'function' ? process.getuid() : -1;
  for (const base of bases) {
    const dir = join(base, 'cordon');
    try {
      // The config dir's parent (~/.config) is made too if missing: else a command run in the
      // home directory could create the config file that sets the next run's defaults.
      if (base === dirname(config) && pathKind(base) === 'missing') mkdirSync(base, { mode: 0o700 });
      // Never create state under a directory others control (cordon refuses to use it anyway).
      const st = lstatSync(base);
      const foreign = st.uid !== 0 && st.uid !== me;
      if (platform !== 'win32' && (foreign || ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0)))
        continue;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (pathKind(dir) === 'dir') dirs.push(realpathLenient(dir));
    } catch {
      // read-only home: nothing a sandbox could plant there either
    }
  }
  return [...new Set(dirs)];
}

/** The running Node for {node}; a single executable has no Node of its own to expose. */
function probeNodeRuntime(
  env: Readonly<Record<string, string | undefined>>,
  home: string,
): NodeRuntime | undefined {
  if (isSea()) return undefined;
  const executable = realpathLenient(process.execPath);
  const first = findOnPath('node', env['PATH']);
  const pathDir =
    first && realpathLenient(first) === executable ? realpathLenient(dirname(first)) : undefined;
  return nodeRuntime({ executable, home, pathDir });
}

export function probeHost(options: ProbeOptions = {}): HostInfo {
  const env = options.env ?? process.env;
  const platform = process.platform as Platform;
  if (platform === 'win32') return probeWindowsHost(env);
  const roots = platform === 'linux' ? LINUX_SYSTEM_ROOTS : platform === 'darwin' ? DARWIN_SYSTEM_ROOTS : [];
  const systemRoots = roots.filter((p) => pathKind(p) !== 'missing').map(realpathLenient);
  const home = realpathLenient(homedir());
  return {
    platform,
    arch: process.arch,
    uid: typeof process.getuid === 'function' ? process.getuid() : -1,
    home,
    tmpdir: realpathLenient(tmpdir()),
    systemRoots: [...new Set(systemRoots)],
    stateDirs: ensureStateDirs(platform, env),
    darwinUserDirs: platform === 'darwin' ? probeDarwinUserDirs(tmpdir(), realpathLenient) : undefined,
    ownCode: findOwnCode(),
    systemLinks: roots.flatMap((p) =>
      pathKind(p) === 'symlink' ? [{ path: p, target: readlinkSync(p) }] : [],
    ),
    bwrap:
      options.bwrap && platform === 'linux'
        ? probeBwrap(env, options.detailed ? 'detailed' : 'fast', bwrapWritableGuess(options.cwd))
        : undefined,
    landlock: options.landlock && platform === 'linux' ? probeLandlock() : undefined,
    seccompNotify: platform === 'linux' && kernelAtLeast(release(), 5, 9) && unixHelperAvailable(),
    node: probeNodeRuntime(env, home),
    setpriv: platform === 'linux' && pathKind('/usr/bin/setpriv') === 'file' ? '/usr/bin/setpriv' : undefined,
    statusReporter: platform === 'linux' && isRootOwnedFile('/usr/bin/perl') ? '/usr/bin/perl' : undefined,
    realpath: realpathLenient,
    kind: pathKind,
    readText: readSmallText,
    listDir: (path) => {
      try {
        return readdirSync(path).sort();
      } catch {
        return undefined;
      }
    },
    readlink: (path) => {
      try {
        return readlinkSync(path);
      } catch {
        return undefined;
      }
    },
  };
}
