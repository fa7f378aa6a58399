// Flag values → RunOptions (the flags are defined once, in flag-table.ts). Every bad value
// becomes a CordonError naming the flag and the fix.
import { CordonError } from '../errors.ts';
import { parseDuration, parseSize } from '../options/parse-units.ts';
import { type RunOptions, STOP_SIGNALS, type StopSignal } from '../options/types.ts';
import type { BackendRequest } from '../plan/choose.ts';
import { BACKEND_NAMES } from '../plan/types.ts';
import { readEnvFile } from './env-file.ts';
import type { RawFlags } from './flag-table.ts';
import { parseLimitFlags } from './limit-flags.ts';

export type { RawFlags } from './flag-table.ts';

export interface CliRunOptions {
  readonly run: RunOptions;
  readonly json: boolean;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly report: string | undefined;
  /** Text mode streams the output live (default); false: --no-stream, the whole result at the end. */
  readonly stream: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseBackend(value: string | undefined): BackendRequest {
  if (value === undefined) return 'auto';
  if (value === 'auto' || (BACKEND_NAMES as readonly string[]).includes(value))
    return value as BackendRequest;
  throw new CordonError(
    'unknown-backend',
    `unknown backend for --backend: '${value}' — use auto, ${BACKEND_NAMES.join(', ')}`,
  );
}

export function parseSignal(value: string): StopSignal {
  const name = /^\d+$/.test(value) ? undefined : `SIG${value.toUpperCase().replace(/^SIG/, '')}`;
  if (name !== undefined && (STOP_SIGNALS as readonly string[]).includes(name)) return name as StopSignal;
  throw new CordonError(
    'bad-flag',
    `unknown signal for --signal: '${value}' — use one of ${STOP_SIGNALS.map((s) => s.slice(3)).join(', ')}`,
  );
}

export function parseEnvFlags(values: readonly string[]): { keep: string[]; set: Record<string, string> } {
  const keep: string[] = [];
  const set: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const name = eq === -1 ? value : value.slice(0, eq);
    if (!ENV_NAME.test(name)) {
      throw new CordonError(
        'bad-env',
        `invalid name for --env: '${name}' — use NAME to keep a variable or NAME=VALUE to set one`,
      );
    }
    if (eq === -1) keep.push(name);
    else set[name] = value.slice(eq + 1);
  }
  return { keep, set };
}

export function toRunOptions(flags: RawFlags): CliRunOptions {
  if (flags.quiet && flags.verbose) throw new CordonError('bad-flag', 'choose one of --quiet and --verbose');
  const env = parseEnvFlags(flags.env ?? []);
  const fromFiles = Object.assign({}, ...(flags.envFile ?? []).map(readEnvFile)) as Record<string, string>;
  const run: RunOptions = {
    cwd: flags.cwd,
    timeoutMs:
      flags.timeout === undefined ? undefined : parseDuration(flags.timeout, '--timeout', true) || undefined,
    killAfterMs:
      flags.killAfter === undefined ? undefined : parseDuration(flags.killAfter, '--kill-after', true),
    timeoutSignal: flags.signal === undefined ? undefined : parseSignal(flags.signal),
    maxOutputBytes: flags.maxOutput === undefined ? undefined : parseSize(flags.maxOutput, '--max-output'),
    backend: parseBackend(flags.backend),
    profile: flags.profile,
    read: flags.read ?? [],
    write: flags.write ?? [],
    deny: flags.deny ?? [],
    network: flags.net,
    allowUnix: flags.allowUnix ?? [],
    allowNet: flags.allowNet ?? [],
    keepEnv: env.keep,
    setEnv: { ...fromFiles, ...env.set },
    clearEnv: flags.clearEnv ?? false,
    bestEffort: flags.bestEffort ?? false,
    reportDenials: (flags.verbose ?? false) || (flags.json ?? false),
    changes: flags.changes ?? false,
    ...parseLimitFlags(flags),
  };
  return {
    run,
    json: flags.json ?? false,
    quiet: flags.quiet ?? false,
    verbose: flags.verbose ?? false,
    report: flags.report,
    stream: flags.stream ?? true,
  };
}
