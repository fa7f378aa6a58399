// RunResult: everything a run produced, as data. The CLI turns it into text or JSON and an
// exit status; the library returns it. Schema changes bump RESULT_SCHEMA_VERSION.
import type { ChangeReport } from '../changes/types.ts';
import type { LimitHit, LimitMechanism, LimitName } from '../limits/types.ts';
import type { NotEnforced } from '../plan/types.ts';

export type RunStatus =
  | 'exited'
  | 'signaled'
  | 'timed-out'
  | 'limit-exceeded'
  | 'cancelled'
  | 'not-found'
  | 'not-executable'
  | 'spawn-failed'
  | 'running';

export interface StreamResult {
  /** Rendered text (valid UTF-8, fits the budget). */
  readonly text: string;
  /** Bytes the command wrote to this stream. */
  readonly totalBytes: number;
  /** Raw bytes left out of `text`. */
  readonly omittedBytes: number;
  readonly truncated: boolean;
}

export interface Annotation {
  readonly kind: 'denial' | 'note' | 'warning';
  readonly message: string;
  readonly operation?: string | undefined;
  readonly path?: string | undefined;
  readonly rule?: string | undefined;
  readonly fix?: string | undefined;
  readonly certainty?: 'certain' | 'possible' | undefined;
}

/** The sandbox cache a run used (docs/caches.md): its entry and the variables pointed at it. */
/** With a network allowlist: the hosts allowed and the connections cordon's proxy refused. */
export interface NetworkSummary {
  readonly allowed: readonly string[];
  readonly refused: readonly {
    readonly host: string;
    readonly port: number;
    readonly method: string;
    readonly reason: string;
    readonly fix: string;
  }[];
}

export interface CacheSummary {
  /** 'unavailable': the profile asked for one but it could not be created (see reason). */
  readonly mode: 'shared' | 'workspace' | 'unavailable';
  readonly dir: string | null;
  /** Names of the environment variables cordon set to redirect tool caches (never values). */
  readonly env: readonly string[];
  readonly reason?: string;
  /** Copied from the host's caches into this entry before the run (missing entries only). */
  readonly seeded?: readonly {
    readonly tool: string;
    readonly source: string;
    readonly files: number;
    readonly bytes: number;
    readonly error?: string | undefined;
  }[];
}

export interface RunResult {
  readonly version: number;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly backend: string;
  readonly profile: string;
  /** Whether the command was executed at all: false means nothing ran and a retry is safe. */
  readonly started: boolean;
  readonly status: RunStatus;
  /** The command's own exit code; null when it was killed by a signal or never ran. */
  readonly exitCode: number | null;
  /** Signal name when killed by a signal (including cordon's own timeout kill). */
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** What cordon exits with for this run: the code, 124, 128+N, 126, 127. */
  readonly exitStatus: number;
  readonly durationMs: number;
  readonly stdout: StreamResult;
  readonly stderr: StreamResult;
  readonly droppedEnv: readonly string[];
  /** null when the profile's cache is off or there is no sandbox. */
  readonly cache: CacheSummary | null;
  readonly annotations: readonly Annotation[];
  readonly notEnforced: readonly NotEnforced[];
  /** Every resource limit of the run and the mechanism that enforced it ([] when none). */
  readonly limits: readonly { name: LimitName; value: number; mechanism: LimitMechanism; source: string }[];
  /** The limit that ended the run (status limit-exceeded), else null. */
  readonly limit: LimitHit | null;
  /** With the changes option: what the command created, modified and deleted. */
  readonly changes?: ChangeReport | undefined;
  /** With a network allowlist (--allow-net): allowed hosts and refused connections. */
  readonly network?: NetworkSummary | undefined;
}
