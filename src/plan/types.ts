// Plans: a plain, serializable value per backend, built by a pure function of
// (policy, command, HostInfo). exec/ spawns `executable` with `args`; backend-specific
// fields carry what must happen around the spawn (placeholders to create and remove,
// a Landlock ruleset to apply in the child).
import type { LimitsPlan } from '../limits/types.ts';
import type { SeccompOptions } from './linux/seccomp-bpf.ts';
import type { UnixSupervisorPlan } from './linux/unix-sockets.ts';
import type { WindowsSpec } from './windows/spec.ts';

export type BackendName = 'none' | 'bwrap' | 'landlock' | 'seatbelt' | 'windows';
export const BACKEND_NAMES: readonly BackendName[] = ['none', 'bwrap', 'landlock', 'seatbelt', 'windows'];

/** A rule a backend could not enforce, accepted only under --best-effort. */
export interface NotEnforced {
  readonly path: string;
  readonly access: string;
  readonly reason: string;
}

interface PlanBase {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly notEnforced: readonly NotEnforced[];
  /** Resource limits and how each is enforced (src/limits/); absent when none is asked for. */
  readonly limits?: LimitsPlan | undefined;
}

export interface NonePlan extends PlanBase {
  readonly backend: 'none';
  /**
   * The command is wrapped in `setpriv --pdeathsig KILL` so it dies with cordon; setpriv's own
   * exec failures (126/127 and its message) then mean not-executable / not-found.
   */
  readonly parentDeathWrapper: boolean;
}

export interface BwrapPlan extends PlanBase {
  readonly backend: 'bwrap';
  /**
   * bwrap creates a pid namespace and is its init: when it exits the kernel kills every
   * process left in it, so no orphan can outlive the run and no subreaper is needed.
   */
  readonly ownsPidNamespace: boolean;
  /**
   * The descriptor (inside the sandbox) of the status reporter's pipe, which the launcher
   * passes after the data and seccomp descriptors; undefined when the command runs without
   * the reporter (its exit 128+N is then ambiguous).
   */
  readonly statusFd?: number | undefined;
  /**
   * Mount points that do not exist on the host but must be covered (a missing denied path
   * inside a writable root, or a missing protected gitdir target). cordon creates each one
   * itself (O_CREAT|O_EXCL relative to the pinned parent directory) before bwrap starts and
   * removes exactly that entry afterwards (src/backends/bwrap/placeholders.ts).
   */
  readonly placeholders: readonly { path: string; kind: 'file' | 'dir' }[];
  /**
   * How many empty data descriptors the launcher passes as fds 3, 4, ...: each masked file
   * is `--perms 0000 --ro-bind-data FD path` (an empty, unreadable, read-only file). bwrap
   * reads and closes them before the command starts.
   */
  readonly dataFds: number;
  /**
   * The seccomp program (sock_filter bytes, base64) bwrap loads with `--seccomp FD`, passed
   * on the descriptor right after the data descriptors. Set when the network is off.
   */
  readonly seccompProgram?: string | undefined;
  /** The unix-socket supervisor runs in place of bwrap (plan/linux/unix-sockets.ts). */
  readonly unixSupervisor?: UnixSupervisorPlan | undefined;
}

export interface LandlockRule {
  readonly path: string;
  readonly access: 'read' | 'write';
  /** 'file' for anything that is not a directory: Landlock takes only file rights there. */
  readonly kind: 'dir' | 'file';
  /** LANDLOCK_ACCESS_FS_* bits granted beneath `path` (a subset of handledFs). */
  readonly rights: number;
  /** 'policy' for a rule of the policy; 'implicit' for /proc and the standard devices. */
  readonly origin: 'policy' | 'implicit';
}

export interface LandlockPlan extends PlanBase {
  readonly backend: 'landlock';
  readonly abi: number;
  /** landlock_ruleset_attr: handled_access_fs, handled_access_net (ABI >= 4), scoped (ABI >= 6). */
  readonly handledFs: number;
  readonly handledNet: number;
  readonly scoped: number;
  readonly rules: readonly LandlockRule[];
  readonly network: 'on' | 'off';
  /** The seccomp filter installed with the ruleset (see plan/linux/seccomp-bpf.ts). */
  readonly seccomp?: SeccompOptions | undefined;
  /** Create a fresh 0700 dir in `parent` (writable, TMPDIR points at it) and delete it after. */
  readonly privateTmp?: { parent: string; prefix: string } | undefined;
}

export interface SeatbeltPlan extends PlanBase {
  readonly backend: 'seatbelt';
  /** The complete SBPL text passed with -p (static base + generated rules; no paths in it). */
  readonly profile: string;
  /** Every -D parameter: name → canonical path, in the order they appear in args. */
  readonly params: Readonly<Record<string, string>>;
  /**
   * The per-run private temp dir (TMPDIR) and the parameter that carries it. While `path`
   * ends in the mkdtemp template `XXXXXX` the launcher must create the directory (0700) and
   * substitute it (withPrivateTmpDir) before spawning, then remove it after the run.
   */
  readonly privateTmp?: { readonly path: string; readonly param: string } | undefined;
  /**
   * The network allowlist: the profile allows outbound only to localhost:PROXY_PORT_PLACEHOLDER
   * until the launcher starts the proxy and substitutes its port (withProxyPort).
   */
  readonly proxy?: { readonly allow: readonly string[] } | undefined;
}

export interface WindowsPlan extends PlanBase {
  readonly backend: 'windows';
  /** The lpCommandLine string, quoted by the MSVCRT / CommandLineToArgvW rules. */
  readonly commandLine: string;
  /** Everything the launcher does around CreateProcessAsUserW (see plan/windows/spec.ts). */
  readonly spec: WindowsSpec;
}

export type Plan = NonePlan | BwrapPlan | LandlockPlan | SeatbeltPlan | WindowsPlan;
