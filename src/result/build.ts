// The result builder: a launcher's outcome + the prepared run → RunResult. Pure: the status,
// the annotations (status notes, the backend's own, rules not enforced, denials recognised in
// stderr), annotations joined to stderr inside the budget, rendering, and the result object.
import type { LaunchResult } from '../backends/types.ts';
import type { ChangeReport } from '../changes/types.ts';
import { denialAnnotations } from '../denials/for-run.ts';
import type { CollectedStream } from '../exec/collector.ts';
import { RESULT_SCHEMA_VERSION } from '../options/defaults.ts';
import type { BackendRequest } from '../plan/choose.ts';
import { describeLandlockFallback } from '../plan/linux/fallback.ts';
import type { PreparedRun } from '../prepare.ts';
import { renderStreams } from '../render/budget.ts';
import { classifyOutcome } from './classify.ts';
import type { Annotation, CacheSummary, RunResult, RunStatus } from './types.ts';

export interface ResultInput {
  readonly prepared: PreparedRun;
  readonly launch: LaunchResult;
  /** Combined stdout+stderr budget in rendered bytes; 0 = unlimited. */
  readonly budget: number;
  /** What the caller asked for ('auto' unless named): the Landlock fallback line depends on it. */
  readonly requestedBackend: BackendRequest;
  /** The network switch came from a flag (denial hints name the flag, not the profile). */
  readonly networkFromFlag: boolean;
  readonly changes?: ChangeReport | undefined;
  /** The exit status table (exec/exit-status.ts: it needs the host's signal numbers). */
  readonly exitStatusOf: (status: RunStatus, exitCode: number | null, signal: string | null) => number;
}

export function runAnnotations(input: ResultInput, status: RunStatus): Annotation[] {
  const { prepared, launch } = input;
  const { outcome } = launch;
  const annotations: Annotation[] = [];
  if (status === 'not-found')
    annotations.push({ kind: 'note', message: `command not found: ${prepared.command[0]}` });
  if (status === 'not-executable')
    annotations.push({ kind: 'note', message: `command is not executable: ${prepared.command[0]}` });
  if (status === 'spawn-failed')
    annotations.push({
      kind: 'warning',
      message: `could not start the command: ${outcome.failureMessage ?? 'unknown error'}`,
    });
  annotations.push(...launch.annotations);
  const fallback = describeLandlockFallback(input.requestedBackend, prepared.choice);
  if (fallback) annotations.push({ kind: 'warning', message: fallback });
  for (const ne of prepared.plan.notEnforced)
    annotations.push({ kind: 'warning', message: `not enforced: ${ne.access} ${ne.path} (${ne.reason})` });
  if (outcome.started)
    annotations.push(
      ...denialAnnotations({
        policy: prepared.policy,
        plan: prepared.plan,
        host: prepared.host,
        networkFromFlag: input.networkFromFlag,
        stderr: outcome.stderr,
        stdout: outcome.stdout,
        known: annotations,
      }),
    );
  return annotations;
}

/** Annotations join the end of stderr before rendering, inside the same budget. */
export function withAnnotations(
  stderr: CollectedStream,
  annotations: readonly Annotation[],
): CollectedStream {
  if (annotations.length === 0) return stderr;
  const text = Buffer.from(annotations.map((a) => `cordon: ${a.message}\n`).join(''));
  return {
    head: stderr.head,
    tail: Buffer.concat([stderr.tail, text]),
    totalBytes: stderr.totalBytes + text.length,
  };
}

export function cacheSummary(prepared: PreparedRun): CacheSummary | null {
  if (prepared.cache)
    return {
      mode: prepared.cache.mode,
      dir: prepared.cache.entry,
      env: prepared.cache.redirects.map((r) => r.name),
      ...(prepared.cacheSeeded?.length
        ? {
            seeded: prepared.cacheSeeded.map(({ tool, source, files, bytes, error }) => ({
              tool,
              source,
              files,
              bytes,
              ...(error === undefined ? {} : { error }),
            })),
          }
        : {}),
    };
  if (prepared.cacheWarning)
    return { mode: 'unavailable', dir: null, env: [], reason: prepared.cacheWarning };
  return null;
}

export function buildResult(input: ResultInput): RunResult {
  const { prepared, launch } = input;
  const { outcome } = launch;
  const status = classifyOutcome(outcome, launch.execFailure, launch.limit !== undefined);
  const annotations = runAnnotations(input, status);
  const rendered = renderStreams(outcome.stdout, withAnnotations(outcome.stderr, annotations), input.budget);
  const exitCode =
    status === 'exited' || (status === 'limit-exceeded' && !outcome.signal) ? outcome.exitCode : null;
  return {
    version: RESULT_SCHEMA_VERSION,
    command: [...prepared.command],
    cwd: prepared.cwd,
    backend: prepared.plan.backend,
    profile: prepared.policy?.profile ?? 'none',
    started: outcome.started && status !== 'not-found' && status !== 'not-executable',
    status,
    exitCode,
    signal: outcome.signal,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    exitStatus: input.exitStatusOf(status, exitCode, outcome.signal),
    durationMs: Math.round(outcome.durationMs),
    stdout: {
      text: rendered.stdout.text.toString('utf8'),
      totalBytes: outcome.stdout.totalBytes,
      omittedBytes: rendered.stdout.omittedBytes,
      truncated: rendered.stdout.truncated,
    },
    stderr: {
      text: rendered.stderr.text.toString('utf8'),
      totalBytes: outcome.stderr.totalBytes,
      omittedBytes: rendered.stderr.omittedBytes,
      truncated: rendered.stderr.truncated,
    },
    droppedEnv: prepared.env.dropped,
    cache: cacheSummary(prepared),
    annotations,
    notEnforced: prepared.plan.notEnforced,
    limits: (prepared.plan.limits?.limits ?? []).map((l) => ({
      name: l.name,
      value: l.value,
      mechanism: l.mechanism,
      source: l.source,
    })),
    limit: launch.limit ?? null,
    ...(input.changes ? { changes: input.changes } : {}),
    ...(launch.network ? { network: launch.network } : {}),
  };
}
