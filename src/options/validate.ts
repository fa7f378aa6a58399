// The library's boundary: run(command, options) and explain() check every input once, before
// anything reaches a timer, a stream or a spawn, in the manner of execa's option checks. A bad
// value is a CordonError ('bad-command' / 'bad-option') naming the option, the value and what
// is accepted; an unknown option name is rejected with the closest valid one. Pure.
import type { ChangesLimits } from '../changes/types.ts';
import { CordonError } from '../errors.ts';
import { BACKEND_NAMES } from '../plan/types.ts';
import { type RunOptions, STOP_SIGNALS } from './types.ts';

const MAX_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout's largest delay (~24.8 days)
const MAX_OUTPUT_BYTES = 2 ** 40;

type Check = (value: unknown) => string | undefined; // what is accepted, when value is not

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const boolean: Check = (v) => (typeof v === 'boolean' ? undefined : 'true or false');
const text: Check = (v) =>
  typeof v === 'string' && v !== '' && !v.includes('\0') ? undefined : 'a non-empty string';
const paths: Check = (v) =>
  Array.isArray(v) && v.every((p) => text(p) === undefined) ? undefined : 'an array of non-empty strings';
const fn: Check = (v) => (typeof v === 'function' ? undefined : 'a function');
const integer =
  (min: number, max: number, what: string): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max ? undefined : what;

const CHECKS: { readonly [K in keyof Required<RunOptions>]: Check } = {
  cwd: text,
  timeoutMs: integer(
    0,
    MAX_TIMEOUT_MS,
    `an integer number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, or 0 for none`,
  ),
  maxOutputBytes: integer(0, MAX_OUTPUT_BYTES, 'an integer number of bytes up to 1 TiB (0 = unlimited)'),
  killAfterMs: integer(0, MAX_TIMEOUT_MS, `an integer number of milliseconds from 0 to ${MAX_TIMEOUT_MS}`),
  timeoutSignal: (v) =>
    (STOP_SIGNALS as readonly unknown[]).includes(v) ? undefined : `one of ${STOP_SIGNALS.join(', ')}`,
  backend: (v) =>
    v === 'auto' || (BACKEND_NAMES as readonly unknown[]).includes(v)
      ? undefined
      : `one of auto, ${BACKEND_NAMES.join(', ')}`,
  profile: text,
  read: paths,
  write: paths,
  deny: paths,
  allowUnix: paths,
  allowNet: paths,
  network: boolean,
  env: (v) =>
    isObject(v) && Object.values(v).every((x) => x === undefined || typeof x === 'string')
      ? undefined
      : 'an object of string values',
  keepEnv: paths,
  setEnv: (v) =>
    isObject(v) && Object.values(v).every((x) => typeof x === 'string')
      ? undefined
      : 'an object of string values',
  clearEnv: boolean,
  signal: (v) => (v instanceof AbortSignal ? undefined : 'an AbortSignal'),
  bestEffort: boolean,
  reportDenials: boolean,
  onStart: fn,
  changes: (v) => {
    if (typeof v === 'boolean') return undefined;
    const limits: (keyof ChangesLimits)[] = ['maxFiles', 'maxDepth', 'timeMs'];
    const ok =
      isObject(v) &&
      Object.entries(v).every(
        ([k, x]) =>
          (limits as string[]).includes(k) &&
          (x === undefined || (typeof x === 'number' && Number.isInteger(x) && x >= 0)),
      );
    return ok ? undefined : 'true, false, or { maxFiles, maxDepth, timeMs } with non-negative integers';
  },
  onProgress: fn,
  onOutput: fn,
  pids: integer(0, 4_194_304, 'an integer number of processes from 1 to 4194304, or 0 for none'),
  memoryBytes: integer(0, MAX_OUTPUT_BYTES, 'an integer number of bytes up to 1 TiB, or 0 for none'),
  cpuTimeMs: integer(
    0,
    MAX_TIMEOUT_MS,
    `an integer number of milliseconds up to ${MAX_TIMEOUT_MS}, or 0 for none`,
  ),
  fileSizeBytes: integer(0, MAX_OUTPUT_BYTES, 'an integer number of bytes up to 1 TiB, or 0 for none'),
};

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = here;
    }
  }
  return row[b.length]!;
}

const show = (v: unknown): string => {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'function') return 'a function';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

export function validateCommand(command: unknown): readonly string[] {
  if (typeof command === 'string')
    throw new CordonError(
      'bad-command',
      `the command must be an argv array, not a string: got '${command}' — pass ${JSON.stringify(command.trim().split(/\s+/))}, or ['sh', '-c', ${JSON.stringify(command)}] for a shell`,
    );
  if (!Array.isArray(command) || command.some((a) => typeof a !== 'string' || a.includes('\0')))
    throw new CordonError(
      'bad-command',
      `the command must be an array of strings without NUL bytes: got ${show(command)} — e.g. ['npm', 'test']`,
    );
  if (command.length === 0 || command[0] === '')
    throw new CordonError(
      'missing-command',
      "no command given — pass an argv array, e.g. run(['npm', 'test'])",
    );
  return command;
}

/** The options as given, checked; `timeoutMs: 0` means no timeout (as the CLI's --timeout 0). */
export function validateRunOptions(options: unknown): RunOptions {
  if (options === undefined) return {};
  if (!isObject(options))
    throw new CordonError(
      'bad-option',
      `options must be an object: got ${show(options)} — e.g. { timeoutMs: 30000 }`,
    );
  const names = Object.keys(CHECKS);
  for (const [key, value] of Object.entries(options)) {
    const check = (CHECKS as Record<string, Check | undefined>)[key];
    if (!check) {
      const closest = [...names].sort((a, b) => distance(key, a) - distance(key, b))[0]!;
      throw new CordonError('bad-option', `unknown option '${key}' — did you mean '${closest}'?`);
    }
    if (value === undefined) continue;
    const accepted = check(value);
    if (accepted !== undefined)
      throw new CordonError(
        'bad-option',
        `invalid value for option ${key}: ${show(value)} — use ${accepted}`,
      );
  }
  const checked = options as RunOptions;
  return checked.timeoutMs === 0 ? { ...checked, timeoutMs: undefined } : checked;
}
