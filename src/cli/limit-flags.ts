// --pids, --memory, --cpu-time, --file-size → RunOptions. 0 (or `off`) removes a profile's limit.
import { CordonError } from '../errors.ts';
import { parseDuration, parseSize } from '../options/parse-units.ts';
import type { RunOptions } from '../options/types.ts';
import type { RawFlags } from './flag-table.ts';

const off = (text: string) => text.trim() === 'off' || text.trim() === 'none';

export function parsePidsFlag(text: string): number {
  if (off(text)) return 0;
  const t = text.trim();
  const n = /^\d+$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > 4_194_304)
    throw new CordonError(
      'bad-flag',
      `invalid number for --pids: '${text}' — use a whole number of processes, e.g. --pids 256 (0 = none)`,
    );
  return n;
}

export function parseLimitFlags(
  flags: RawFlags,
): Pick<RunOptions, 'pids' | 'memoryBytes' | 'cpuTimeMs' | 'fileSizeBytes'> {
  const size = (v: string | undefined, flag: string) =>
    v === undefined ? undefined : off(v) ? 0 : parseSize(v, flag);
  return {
    pids: flags.pids === undefined ? undefined : parsePidsFlag(flags.pids),
    memoryBytes: size(flags.memory, '--memory'),
    cpuTimeMs:
      flags.cpuTime === undefined
        ? undefined
        : off(flags.cpuTime)
          ? 0
          : parseDuration(flags.cpuTime, '--cpu-time', true),
    fileSizeBytes: size(flags.fileSize, '--file-size'),
  };
}
