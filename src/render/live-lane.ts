// One stream's state in the streaming printer, and the text of cordon's own lines there: the
// prefix that puts each on a clean, fresh line, the held-back notice and the heartbeat.
import { formatBytes, formatDuration } from '../options/parse-units.ts';
import type { HeldTail } from './held-tail.ts';
import { TerminalFilter } from './terminal-filter.ts';
import { Utf8Sanitizer } from './utf8-stream.ts';

export type StreamName = 'stdout' | 'stderr';
export type HoldReason = 'budget' | 'slow-reader';

export class Lane {
  readonly out: TerminalFilter;
  readonly sanitizer = new Utf8Sanitizer(); // unlimited budget only
  carry: Buffer = Buffer.alloc(0); // incomplete character at the head's end
  totalBytes = 0;
  printedRaw = 0;
  printedRendered = 0;
  held: HeldTail | undefined;
  tailBytes = 0;
  omittedBytes = 0;
  truncated = false;

  constructor(
    readonly name: StreamName,
    readonly terminal: boolean,
  ) {
    this.out = new TerminalFilter(terminal ? 'filter' : 'observe');
  }
}

const SGR_RESET = '\x1b[0m';

// Before a line of cordon's own. A terminal only ever got complete allowed sequences, so an
// attribute reset and a fresh line do; a log got the command's bytes unchanged, so an open
// string is ended (ST), a half-read sequence cancelled (CAN), attributes reset — each only
// when needed, so clean output stays byte-for-byte what it was. `views`: what a viewer of
// each log file, and of both streams in one log (2>&1), is inside of. `marker` lines bring
// their own leading newline.
export function ownLinePrefix(
  lane: Lane,
  views: readonly TerminalFilter[],
  lastByte: Record<'terminal' | 'log', number>,
  freshLine: boolean,
): string {
  const kind = lane.terminal ? 'terminal' : 'log';
  let prefix = '';
  if (lane.terminal) prefix = SGR_RESET;
  else {
    if (views.some((v) => v.inString)) prefix += '\x1b\\';
    else if (views.some((v) => v.inSequence)) prefix += '\x18';
    if (views.some((v) => v.attributesDirty)) prefix += SGR_RESET;
  }
  if (freshLine && lastByte[kind] !== 0x0a) prefix += '\n';
  return prefix;
}

export function renderHoldNotice(reason: HoldReason, headBytes: number, budgetBytes: number): string {
  const why =
    reason === 'budget'
      ? `the output passed ${formatBytes(headBytes)}, half of --max-output ${formatBytes(budgetBytes)}`
      : 'the reader of the output is not keeping up';
  return `cordon: holding back the middle of the output (${why}); the tail follows when the command ends`;
}

export function renderHeartbeat(elapsedMs: number, seenBytes: number): string {
  return `cordon: still running · ${formatDuration(elapsedMs)} · ${formatBytes(seenBytes)} of output so far, held back (the tail follows when the command ends)`;
}
