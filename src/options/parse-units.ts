// Parsing of human units on flags: durations (500ms, 30s, 10m, 1h) and sizes (64KiB, 1MiB, 0).
// Pure: text in, number out, CordonError naming the value and the accepted forms otherwise.
import { CordonError } from '../errors.ts';

// As GNU timeout takes them: a bare number is seconds, and d (days) is a unit too.
const DURATION_UNITS_MS: Record<string, number> = {
  '': 1000,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const MAX_TIMEOUT_MS = 2 ** 31 - 1; // setTimeout's largest delay (~24.8 days)

/**
 * Milliseconds. `allowZero`: 0 is accepted and returned as 0 (--timeout 0 = no timeout, as
 * GNU timeout; --kill-after 0 = KILL at once).
 */
export function parseDuration(text: string, flag = '--timeout', allowZero = false): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) {
    throw new CordonError(
      'bad-duration',
      `invalid duration for ${flag}: '${text}' — use seconds or a number with a unit: 90, 500ms, 30s, 10m, 1h, 2d${allowZero ? ' (0 = none)' : ''}`,
    );
  }
  const ms = Math.round(Number(match[1]) * DURATION_UNITS_MS[match[2] ?? '']!);
  if ((ms === 0 && allowZero) || (ms > 0 && ms <= MAX_TIMEOUT_MS)) return ms;
  throw new CordonError(
    'bad-duration',
    `invalid duration for ${flag}: '${text}' — it must be ${allowZero ? '0 or more' : 'more than 0'} and at most 596h`,
  );
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
};

/** Returns bytes; 0 means unlimited. */
export function parseSize(text: string, flag = '--max-output'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text.trim());
  const unit = match ? SIZE_UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new CordonError(
      'bad-size',
      `invalid size for ${flag}: '${text}' — use bytes or a unit such as 64KiB, 1MiB, 2GiB (0 = unlimited)`,
    );
  }
  const bytes = Math.floor(Number(match[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes > 2 ** 40) {
    throw new CordonError('bad-size', `invalid size for ${flag}: '${text}' — at most 1TiB`);
  }
  return bytes;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)}s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(ms % 60_000 === 0 ? 0 : 1)}m`;
  return `${(ms / 3_600_000).toFixed(ms % 3_600_000 === 0 ? 0 : 1)}h`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
