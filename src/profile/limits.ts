// The profile's `limits:` key: { pids, memory, cpuTime, fileSize }, each a value or `off`. Pure.
import { CordonError } from '../errors.ts';
import { LIMIT_NAMES, type LimitName, type ResourceLimits } from '../limits/types.ts';
import { parseDuration, parseSize } from '../options/parse-units.ts';

function fail(file: string, key: string, problem: string): never {
  throw new CordonError('bad-profile', `invalid profile ${file}: limits.${key}: ${problem}`);
}

function parseOne(file: string, key: LimitName, value: unknown): number {
  if (value === 'off' || value === false || value === 0) return 0;
  if (key === 'pids') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > 4_194_304)
      fail(file, key, `'${String(value)}' is not a number of processes — use e.g. 256, or off`);
    return value;
  }
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string')
    fail(
      file,
      key,
      `'${String(value)}' is not allowed — use ${key === 'cpuTime' ? '30s, 10m' : '256MiB, 2GiB'} or off`,
    );
  try {
    return key === 'cpuTime' ? parseDuration(text, `limits.${key}`) : parseSize(text, `limits.${key}`);
  } catch (error) {
    return fail(file, key, (error as Error).message.replace(/^invalid [a-z]+ for [^:]+: /, ''));
  }
}

export function parseProfileLimits(file: string, value: unknown): ResourceLimits | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new CordonError(
      'bad-profile',
      `invalid profile ${file}: limits: must be a mapping with ${LIMIT_NAMES.join(', ')}`,
    );
  const out: { [K in LimitName]?: number } = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (!(LIMIT_NAMES as readonly string[]).includes(key))
      throw new CordonError(
        'bad-profile',
        `invalid profile ${file}: limits.${key}: unknown key '${key}' — allowed keys: ${LIMIT_NAMES.join(', ')}`,
      );
    out[key as LimitName] = parseOne(file, key as LimitName, v);
  }
  return out;
}
