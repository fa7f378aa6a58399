// Text-mode rendering of a RunResult: the metadata line (and, with --verbose, the details).

import { formatLimitValue, limitLabel } from '../limits/types.ts';
import { formatBytes, formatDuration } from '../options/parse-units.ts';
import type { RunResult } from '../result/types.ts';

export function renderMetaLine(result: RunResult, timeoutMs: number | undefined): string {
  const parts: string[] = [];
  switch (result.status) {
    case 'exited':
      parts.push(`exit ${result.exitCode}`);
      break;
    case 'signaled':
      parts.push(`killed by ${result.signal} (exit ${result.exitStatus})`);
      break;
    case 'timed-out':
      parts.push(`timed out after ${timeoutMs !== undefined ? formatDuration(timeoutMs) : '?'} (exit 124)`);
      break;
    case 'cancelled':
      parts.push(`cancelled (exit ${result.exitStatus})`);
      break;
    case 'limit-exceeded':
      parts.push(
        result.limit
          ? `${limitLabel(result.limit.name)} limit ${formatLimitValue(result.limit.name, result.limit.value)} reached`
          : 'limit reached',
      );
      parts.push(result.signal ? `killed (exit ${result.exitStatus})` : `exit ${result.exitStatus}`);
      break;
    case 'not-found':
      parts.push('command not found (exit 127)');
      break;
    case 'not-executable':
      parts.push('command not executable (exit 126)');
      break;
    default:
      parts.push(`${result.status} (exit ${result.exitStatus})`);
  }
  parts.push(formatDuration(result.durationMs));
  parts.push(result.backend === 'none' ? 'no sandbox' : `${result.backend}, ${result.profile}`);
  const omitted = result.stdout.omittedBytes + result.stderr.omittedBytes;
  if (omitted > 0) parts.push(`${formatBytes(omitted)} omitted`);
  const denials = result.annotations.filter((a) => a.kind === 'denial').length;
  if (denials > 0) parts.push(`${denials} denial${denials === 1 ? '' : 's'}`);
  if (result.notEnforced.length > 0)
    parts.push(`${result.notEnforced.length} rule${result.notEnforced.length === 1 ? '' : 's'} not enforced`);
  return `cordon: ${parts.join(' · ')}`;
}
