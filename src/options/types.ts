// Options of a run, as the library takes them (the CLI maps its flags onto these).
import type { ChangesLimits } from '../changes/types.ts';
import type { BackendRequest } from '../plan/choose.ts';

/** Signals a timeout may send first (GNU timeout's -s). */
export const STOP_SIGNALS = [
  'SIGTERM',
  'SIGINT',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
  'SIGALRM',
  'SIGKILL',
] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface RunOptions {
  /** Where the command runs and what {cwd} means. Default: the process's cwd. */
  readonly cwd?: string | undefined;
  /** Kill the command (TERM, grace, KILL) after this many milliseconds; exit status 124. */
  readonly timeoutMs?: number | undefined;
  /** After the first signal of a timeout or cancellation, KILL this many ms later. Default 2000. */
  readonly killAfterMs?: number | undefined;
  /** The first signal a timeout sends (a cancellation forwards its own). Default SIGTERM. */
  readonly timeoutSignal?: StopSignal | undefined;
  /** Combined stdout+stderr budget in rendered bytes; 0 = unlimited. Default 64 KiB. */
  readonly maxOutputBytes?: number | undefined;
  /** 'auto' (default) picks the best enforcing backend; 'none' runs unconfined. */
  readonly backend?: BackendRequest | undefined;
  /** Built-in profile name or a profile file path. Default: workspace. */
  readonly profile?: string | undefined;
  readonly read?: readonly string[] | undefined;
  readonly write?: readonly string[] | undefined;
  readonly deny?: readonly string[] | undefined;
  /** Overrides the profile's network switch. */
  readonly network?: boolean | undefined;
  /**
   * Hosts the command may connect to, HOST[:PORT] ('*.example.com', IP literals, localhost),
   * through cordon's filtering proxy; everything else stays off (--allow-net). Not with network: true.
   */
  readonly allowNet?: readonly string[] | undefined;
  /** Unix sockets on the host the command may connect to (bubblewrap backend; --allow-unix). */
  readonly allowUnix?: readonly string[] | undefined;
  /** Base environment (default: process.env). Credential-like names are dropped from it. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Names to keep even if they look like credentials. */
  readonly keepEnv?: readonly string[] | undefined;
  /** Variables to set. */
  readonly setEnv?: Readonly<Record<string, string>> | undefined;
  /** Start from an empty environment but for PATH, HOME, LANG, TERM, TMPDIR. */
  readonly clearEnv?: boolean | undefined;
  /** Cancels the run: the same cleanup as a timeout; the result says cancelled. */
  readonly signal?: AbortSignal | undefined;
  /** Enforce what the backend can and list the rest instead of refusing. */
  readonly bestEffort?: boolean | undefined;
  /**
   * Collect what the sandbox denied during the run and report it as annotations (macOS
   * Seatbelt, from the system log). The CLI turns it on with --verbose and --json.
   */
  readonly reportDenials?: boolean | undefined;
  /** Called once the command has been started (pid of the spawned process). */
  readonly onStart?: ((info: { pid: number; backend: string }) => void) | undefined;
  /** Report what the command created, modified and deleted under the writable roots (RunResult.changes). */
  readonly changes?: boolean | ChangesLimits | undefined;
  /**
   * Resource limits (README "Resource limits"); each overrides the profile's `limits:` key, 0
   * removes it. pids: processes + threads of the run; memoryBytes: RAM (swap bounded to 0);
   * cpuTimeMs: CPU time of every process of the run together; fileSizeBytes: the largest file
   * the command may write (RLIMIT_FSIZE). pids, memory and CPU time need a cgroup: without one
   * they are refused unless bestEffort.
   */
  readonly pids?: number | undefined;
  readonly memoryBytes?: number | undefined;
  readonly cpuTimeMs?: number | undefined;
  readonly fileSizeBytes?: number | undefined;
  /** Called as output arrives (total bytes seen on both streams). */
  readonly onProgress?: ((bytesSeen: number) => void) | undefined;
  /**
   * Called with every chunk of the command's output as it is read, in order, unbounded (the
   * result's bounded head and tail are unchanged). For live display; it must not throw. The
   * chunk is valid only during the call (its memory may be reused): copy it to keep it. Not
   * yet called on Windows.
   */
  readonly onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
}
