// Wrappers (bwrap, setpriv, cordon's Landlock helper) exec the command themselves; when that
// exec fails they print one line and exit with a known code. Each launcher names its line.
import type { CollectedStream } from '../exec/collector.ts';

/** The last 512 bytes of a collected stream, as text. */
export function lastText(stream: CollectedStream): string {
  const tail = stream.tail.length > 0 ? stream.tail : stream.head;
  return tail.subarray(Math.max(0, tail.length - 512)).toString('utf8');
}

/**
 * Matches the wrapper's own exec-failure line at the very end of stderr and maps its reason:
 * `notFound` names the reason that means "no such file"; every other match is not-executable.
 */
export function matchExecFailure(
  stderr: CollectedStream,
  pattern: RegExp,
  notFound: string,
): 'not-found' | 'not-executable' | undefined {
  const match = pattern.exec(lastText(stderr));
  if (!match) return undefined;
  return match[1] === notFound ? 'not-found' : 'not-executable';
}
