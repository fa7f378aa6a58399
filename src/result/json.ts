// Every JSON document cordon prints or writes, typed, and stamped from the one schema version:
// the run result (types.ts), the --report progress records, explain, doctor, cache, and the
// error object. Pure.

import type { PlannedLimit } from '../limits/types.ts';
import { RESULT_SCHEMA_VERSION } from '../options/defaults.ts';
import type { BackendName, Plan } from '../plan/types.ts';

export const SCHEMA_VERSION = RESULT_SCHEMA_VERSION;

export type Versioned<T> = { readonly version: typeof SCHEMA_VERSION } & T;

export function stamp<T extends object>(body: T): Versioned<T> {
  return { version: SCHEMA_VERSION, ...body };
}

/** What a failed cordon prints with --json (exit 125). */
export type ErrorJson = Versioned<{ readonly error: { readonly code: string; readonly message: string } }>;

/** The --report file before the result: 'pending' (planned) and 'running' (started). */
export type ReportProgressJson = Versioned<{
  readonly status: 'pending' | 'running';
  readonly started: boolean;
  readonly pid?: number | undefined;
  readonly command: readonly string[];
  readonly cwd: string;
  readonly backend: BackendName;
}>;

export interface VerdictJson {
  readonly backend: BackendName;
  readonly usable: boolean;
  readonly reason: string;
}

export type ExplainJson = Versioned<{
  readonly platform: string;
  readonly synthetic: boolean;
  readonly profile: string | null;
  readonly network: string | null;
  /** The network allowlist (--allow-net, profile allowNet); [] when none. */
  readonly allowNet: readonly string[];
  readonly privateTmp: boolean | null;
  readonly rules: readonly { readonly path: string; readonly access: string; readonly source: string }[];
  readonly backend: BackendName;
  readonly verdicts: readonly VerdictJson[];
  /** When auto fell from bubblewrap to Landlock: one line naming what is lost. */
  readonly fallback?: string | undefined;
  readonly droppedEnv: readonly string[];
  readonly cache: {
    readonly mode: string;
    readonly dir: string;
    readonly redirects: readonly unknown[];
    readonly sanitized: readonly unknown[];
    /** Host caches copied in before a run (docs/caches.md, "Warm from the host"). */
    readonly seeds: readonly unknown[];
  } | null;
  readonly limits: readonly PlannedLimit[];
  /** Each configurable setting, its value (null: cordon's default) and where it came from. */
  readonly settings: readonly {
    readonly name: string;
    readonly value: string | null;
    readonly source: string;
  }[];
  readonly plan: Plan;
  readonly refusal?: string | undefined;
}>;

export interface DoctorCheckJson {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly fix?: string | undefined;
}

export type DoctorJson = Versioned<{
  readonly platform: string;
  readonly checks: readonly DoctorCheckJson[];
  readonly backends: readonly VerdictJson[];
}>;

export interface CacheEntryJson {
  readonly name: string;
  readonly path: string;
  readonly bytes: number;
}

export type CacheShowJson = Versioned<{
  readonly root: string;
  readonly bytes: number;
  readonly workspaceEntry: string;
  readonly entries: readonly CacheEntryJson[];
}>;

export type CacheClearJson = Versioned<{
  readonly root: string;
  readonly cleared: number;
  readonly bytes: number;
}>;
