// HostInfo: the only way machine facts reach the pure core (policy resolution and plan
// builders). probe.ts builds the real one; tests and `explain --platform` build synthetic ones.
import type { Platform } from '../policy/types.ts';
import type { NodeRuntime } from './node-runtime.ts';

export type PathKind = 'dir' | 'file' | 'symlink' | 'other' | 'missing';

export interface BwrapInfo {
  readonly path: string;
  readonly version: string;
  /** Whether a trial sandbox with a new user namespace started; the reason when not. */
  readonly usable: boolean;
  readonly unusableReason?: string;
  readonly supportsDisableUserns: boolean;
  readonly supportsOverlay: boolean;
}

export interface LandlockInfo {
  /** 0 when the kernel has no Landlock or it is disabled. */
  readonly abi: number;
  readonly reason?: string;
}

/** Whether cordon itself runs inside a Windows job object (Task Scheduler, OpenSSH, CI agents). */
export interface WindowsJobInfo {
  readonly inJob: boolean;
  /** The enclosing job has JOB_OBJECT_LIMIT_BREAKAWAY_OK: a child may leave it (CREATE_BREAKAWAY_FROM_JOB). */
  readonly breakawayAllowed: boolean;
}

/**
 * Where cordon can create a per-run cgroup (resource limits). cgroup2: one directory under
 * `parent`; cgroup1 (hybrid hosts whose pids/memory controllers sit on v1 hierarchies): one
 * directory per controller, each a child of cordon's own cgroup in that hierarchy.
 */
export interface CgroupInfo {
  readonly version: 1 | 2 | 0;
  readonly usable: boolean;
  /** Why not, when not usable (names the fix). */
  readonly reason?: string | undefined;
  /** cgroup2: the directory per-run cgroups are created in (created on first use). */
  readonly parent?: string | undefined;
  /** cgroup1: per controller, cordon's own cgroup directory. */
  readonly v1?:
    | { readonly pids: string; readonly memory: string; readonly cpuacct: string; readonly freezer: string }
    | undefined;
  /** Swap can be bounded (memory.swap.max / memory.memsw.limit_in_bytes exists). */
  readonly swap: boolean;
}

export interface HostInfo {
  readonly platform: Platform;
  readonly arch: string;
  /** -1 where the notion does not apply (Windows). */
  readonly uid: number;
  readonly home: string;
  readonly tmpdir: string;
  /** Existing read-only system roots behind the {system} token. */
  readonly systemRoots: readonly string[];
  /**
   * macOS: the per-user temp and cache dirs (confstr _CS_DARWIN_USER_TEMP_DIR / _CACHE_DIR,
   * canonical). They ignore TMPDIR; Foundation, clang's module cache and xcrun use them.
   */
  readonly darwinUserDirs?:
    | { readonly temp?: string | undefined; readonly cache?: string | undefined }
    | undefined;
  /**
   * System paths that are symlinks on this host (merged-/usr: /bin → usr/bin, /lib64 →
   * usr/lib64), with the link text. A sandbox built on an empty root recreates them, or the
   * dynamic loader's /lib64 path would not exist.
   */
  /**
   * cordon's own per-user state directories (compile cache, extracted native module, sandbox
   * cache), existing and canonical. Kept read-only inside every writable root: code cordon
   * loads later must never be writable by a sandboxed command.
   */
  readonly stateDirs?: readonly string[] | undefined;
  /**
   * cordon's own code on this machine (dist/, bin/, koffi, the Node binary, the .bin directory
   * it was started from), canonical. Kept read-only inside every writable root; a backend that
   * cannot do that refuses, even with --best-effort.
   */
  readonly ownCode?: readonly { readonly path: string; readonly what: string }[] | undefined;
  readonly systemLinks?: readonly { readonly path: string; readonly target: string }[] | undefined;
  readonly bwrap?: BwrapInfo | undefined;
  /** The running Node's files behind the {node} token; undefined in a single executable. */
  readonly node?: NodeRuntime | undefined;
  readonly landlock?: LandlockInfo | undefined;
  /**
   * Seccomp user notification with SECCOMP_IOCTL_NOTIF_ADDFD, pidfd_getfd and openat2
   * (Linux 5.9+), and this build ships the supervisor helper (not a single executable): the
   * unix-socket supervisor of the bubblewrap backend can run.
   */
  readonly seccompNotify?: boolean | undefined;
  /**
   * util-linux setpriv, used as `setpriv --pdeathsig KILL -- CMD` so an unconfined (none)
   * command dies with cordon even if cordon is SIGKILLed (Node cannot run code between fork
   * and exec). Undefined where it is missing.
   */
  readonly setpriv?: string | undefined;
  /**
   * A root-owned perl (perl-base) that runs as the command's parent inside bubblewrap and
   * reports exit vs signal exactly (plan/linux/status-reporter.ts). Undefined where missing
   * or not root-owned all the way up.
   */
  readonly statusReporter?: string | undefined;
  /** Linux: the cgroup facts, probed only when a run asks for pids, memory or CPU time. */
  readonly cgroup?: CgroupInfo | undefined;
  /** Windows: cordon's own job membership (IsProcessInJob); undefined elsewhere and when unknown. */
  readonly windowsJob?: WindowsJobInfo | undefined;
  /** Canonical form: realpath of the longest existing prefix, the rest appended logically. */
  realpath(path: string): string;
  /** lstat kind: a symlink is reported as 'symlink', never followed. */
  kind(path: string): PathKind;
  /** Small text files (a .git pointer file, a git config); undefined when unreadable. */
  readText(path: string): string | undefined;
  /** Names in a directory (Landlock grants / entry by entry to leave /dev out); undefined when unreadable. */
  listDir?(path: string): readonly string[] | undefined;
  /** A symlink's own text (never followed); undefined when not a link or unreadable. */
  readlink?(path: string): string | undefined;
}
