// What every backend's launcher takes and gives back. A launcher owns everything that must
// happen around the spawn of its plan (descriptors, temp dirs, helpers, clean-up) and how its
// wrapper's own failures map to not-found / not-executable; run.ts picks one with an
// exhaustive switch. Plans carry what a launcher needs as typed data, never argv to re-read.
import type { SpawnOutcome } from '../exec/spawn.ts';
import type { LimitHit } from '../limits/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { Annotation, NetworkSummary } from '../result/types.ts';

/** How the calling process runs commands: the CLI and the library differ here, nothing else. */
export interface LaunchMode {
  /** The calling process is a child subreaper (the CLI); the library's host program is not. */
  readonly subreaper: boolean;
}

/**
 * The library: never a subreaper. (Landlock always runs through its helper process, for the
 * CLI too, so cordon is never inside the command's domain.)
 */
export const LIBRARY_MODE: LaunchMode = { subreaper: false };

export interface LaunchContext {
  /** Per-stream head and tail capacity; 0 = unlimited. */
  readonly captureBytes: number;
  readonly timeoutMs?: number | undefined;
  /** The first signal of a timeout; then KILL after killAfterMs. */
  readonly timeoutSignal?: NodeJS.Signals | undefined;
  readonly killAfterMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly mode: LaunchMode;
  /** The resolved policy (undefined for --backend none), for backends that explain denials. */
  readonly policy: SandboxPolicy | undefined;
  /** Collect the sandbox's own denial log (Seatbelt). */
  readonly reportDenials: boolean;
  /** cordon's own environment (Windows needs SystemRoot, SSH_*). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly onStart?: ((pid: number) => void) | undefined;
  readonly onProgress?: ((bytesSeen: number) => void) | undefined;
  readonly onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
}

export interface LaunchResult {
  readonly outcome: SpawnOutcome;
  /**
   * The backend's wrapper (bwrap, setpriv, the Landlock helper) started but reported that it
   * could not exec the command: the result says not-found / not-executable, as a direct
   * spawn would.
   */
  readonly execFailure?: 'not-found' | 'not-executable' | undefined;
  /** What only this backend knows (Seatbelt's denial log, a nested-sandbox failure). */
  readonly annotations: readonly Annotation[];
  /** The resource limit that ended the run (backends/limits.ts): status limit-exceeded. */
  readonly limit?: LimitHit | undefined;
  /** With a network allowlist: what the proxy allowed and refused (src/net/). */
  readonly network?: NetworkSummary | undefined;
}

/** The spawn fields every POSIX launcher passes on unchanged from its context. */
export function commonSpawnFields(ctx: LaunchContext) {
  return {
    captureBytes: ctx.captureBytes,
    timeoutMs: ctx.timeoutMs,
    timeoutSignal: ctx.timeoutSignal,
    killGraceMs: ctx.killAfterMs,
    signal: ctx.signal,
    subreaper: ctx.mode.subreaper,
    onStart: ctx.onStart,
    onProgress: ctx.onProgress,
    onOutput: ctx.onOutput,
  };
}
