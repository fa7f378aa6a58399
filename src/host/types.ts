// HostInfo: the only way machine facts reach the pure core (policy resolution and plan
// builders). probe.ts builds the real one; tests and `explain --platform` build synthetic ones.
import type { Platform } from '../policy/types.ts';

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
  readonly landlock?: LandlockInfo | undefined;
  readonly seccomp?: boolean | undefined;
  /**
   * util-linux setpriv, used as `setpriv --pdeathsig KILL -- CMD` so an unconfined (none)
   * command dies with cordon even if cordon is SIGKILLed (Node cannot run code between fork
   * and exec). Undefined where it is missing.
   */
  readonly setpriv?: string | undefined;
  /** Canonical form: realpath of the longest existing prefix, the rest appended logically. */
  realpath(path: string): string;
  /** lstat kind: a symlink is reported as 'symlink', never followed. */
  kind(path: string): PathKind;
  /** Small text files (a .git pointer file); undefined when unreadable. */
  readText(path: string): string | undefined;
}
