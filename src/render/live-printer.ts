// The streaming printer (text mode): chunks of the command's stdout/stderr, in the order they
// were read, become the bytes to write now. Each stream's head is written as it arrives while
// the combined head stays within half the budget; after that (or when the reader is too slow)
// the rest is held: a bounded rolling tail per stream. At the end a held part that still fits
// is written whole; otherwise the exact `[... N bytes omitted ...]` marker and the tail.
// Invariants (test/property/live-printer.test.ts): per stream, what is written is
// toValidUtf8(prefix) [+ marker + toValidUtf8(suffix)], N exact, the total within the budget,
// and output that fits is byte-for-byte the whole-result rendering. Pure: time comes in as
// `nowMs`; terminal lanes go through the allow-list filter, log lanes are only observed.
import { splitBudget } from './budget.ts';
import { HeldTail } from './held-tail.ts';
import {
  type HoldReason,
  Lane,
  ownLinePrefix,
  renderHeartbeat,
  renderHoldNotice,
  type StreamName,
} from './live-lane.ts';
import type { LivePrinterOptions, LiveSummary, LiveWrite } from './live-types.ts';
import { TerminalFilter } from './terminal-filter.ts';
import { fitPrefix, fitSuffix, scanUnit, tailStart, toValidUtf8 } from './utf8.ts';
import { renderOmissionMarker } from './window.ts';

export type { StreamName } from './live-lane.ts';

export type { LivePrinterOptions, LiveSummary, LiveWrite } from './live-types.ts';

export class LivePrinter {
  readonly #opts: LivePrinterOptions;
  readonly #lanes: Record<StreamName, Lane>;
  #phase: 'stream' | 'hold' | 'ended' = 'stream';
  #holdReason: HoldReason = 'budget';
  #room = 0; // budget left for held parts and markers once holding
  #noticed = false;
  #lastWriteAtMs: number;
  #lastByte: Record<'terminal' | 'log', number> = { terminal: 0x0a, log: 0x0a };
  // Both log lanes' bytes in write order: what one log holding stdout and stderr shows.
  readonly #combinedLog = new TerminalFilter('observe');

  constructor(opts: LivePrinterOptions) {
    this.#opts = opts;
    this.#lanes = {
      stdout: new Lane('stdout', opts.terminal.stdout),
      stderr: new Lane('stderr', opts.terminal.stderr),
    };
    this.#lastWriteAtMs = opts.startedAtMs;
  }

  get holding(): boolean {
    return this.#phase === 'hold';
  }

  /** At the start of a line on the terminal (where a spinner may be drawn). */
  get atTerminalLineStart(): boolean {
    return this.#lastByte.terminal === 0x0a;
  }

  /** A chunk of the command's output, as read. */
  push(stream: StreamName, chunk: Uint8Array, nowMs: number): LiveWrite[] {
    if (this.#phase === 'ended' || chunk.length === 0) return [];
    const lane = this.#lanes[stream];
    lane.totalBytes += chunk.length;
    const writes: LiveWrite[] = [];
    if (this.#opts.budgetBytes === 0) {
      this.#output(writes, lane, lane.sanitizer.push(chunk), nowMs);
      return writes;
    }
    let rest: Uint8Array = chunk;
    if (this.#phase === 'stream') {
      const data = lane.carry.length > 0 ? Buffer.concat([lane.carry, chunk]) : chunk;
      const printed = this.#lanes.stdout.printedRendered + this.#lanes.stderr.printedRendered;
      const fit = fitPrefix(data, this.#headBudget() - printed, true);
      if (fit.rawBytes > 0) {
        this.#output(writes, lane, toValidUtf8(data.subarray(0, fit.rawBytes)), nowMs);
        lane.printedRaw += fit.rawBytes;
        lane.printedRendered += fit.renderedBytes;
      }
      rest = data.subarray(fit.rawBytes);
      lane.carry = Buffer.alloc(0);
      if (rest.length === 0) return writes;
      if (!scanUnit(rest, 0).complete) {
        lane.carry = Buffer.from(rest); // an incomplete character: wait for the next chunk
        return writes;
      }
      this.#startHold('budget');
    }
    this.#holdBytes(lane, rest);
    this.#maybeNotice(writes, nowMs);
    return writes;
  }

  /** The reader is not keeping up: stop writing the command's bytes until the end. */
  holdBack(nowMs: number): LiveWrite[] {
    if (this.#phase !== 'stream' || this.#opts.budgetBytes === 0) return [];
    this.#startHold('slow-reader');
    const writes: LiveWrite[] = [];
    this.#maybeNotice(writes, nowMs);
    return writes;
  }

  /** When the next heartbeat is due, if one can be. */
  nextHeartbeatAtMs(): number | undefined {
    if (this.#phase !== 'hold' || this.#opts.heartbeatMs === 0) return undefined;
    return this.#lastWriteAtMs + this.#opts.heartbeatMs;
  }

  /** A heartbeat line on stderr when output has been held back and silent for the interval. */
  tick(nowMs: number): LiveWrite[] {
    const due = this.nextHeartbeatAtMs();
    if (due === undefined || nowMs < due) return [];
    const seen = this.#lanes.stdout.totalBytes + this.#lanes.stderr.totalBytes;
    const elapsed = Math.floor((nowMs - this.#opts.startedAtMs) / 1000) * 1000;
    return this.ownLines([renderHeartbeat(elapsed, seen)], nowMs);
  }

  /** The command is done: what is left of each stream (whole, or marker + tail). */
  end(nowMs: number): LiveWrite[] {
    if (this.#phase === 'ended') return [];
    const writes: LiveWrite[] = [];
    const lanes = [this.#lanes.stdout, this.#lanes.stderr];
    if (this.#opts.budgetBytes === 0) {
      for (const lane of lanes) this.#output(writes, lane, lane.sanitizer.flush(), nowMs);
      this.#phase = 'ended';
      return writes;
    }
    if (lanes.some((l) => l.carry.length > 0)) {
      if (this.#phase === 'stream') this.#startHold('budget');
      for (const lane of lanes) if (lane.carry.length > 0) this.#holdBytes(lane, lane.carry);
    }
    if (this.#phase === 'hold') {
      const [outShare, errShare] = splitBudget(
        this.#lanes.stdout.held?.wholeRenderedBytes(),
        this.#lanes.stderr.held?.wholeRenderedBytes(),
        this.#room,
      );
      this.#endLane(writes, this.#lanes.stdout, outShare, nowMs);
      this.#endLane(writes, this.#lanes.stderr, errShare, nowMs);
    }
    this.#phase = 'ended';
    return writes;
  }

  /** cordon's own lines on stderr, each after ending strings, resetting attributes, a fresh line. */
  ownLines(lines: readonly string[], nowMs: number): LiveWrite[] {
    if (lines.length === 0) return [];
    const writes: LiveWrite[] = [];
    const lane = this.#lanes.stderr;
    const text = lines.map((l) => `${l}\n`).join('');
    this.#own(
      writes,
      lane,
      Buffer.from(ownLinePrefix(lane, this.#views(lane), this.#lastByte, true) + text),
      'line',
      nowMs,
    );
    return writes;
  }

  /** An omission marker already rendered into a whole result (--no-stream), as cordon's own line. */
  mark(stream: StreamName, marker: string, nowMs: number): LiveWrite[] {
    const writes: LiveWrite[] = [];
    const lane = this.#lanes[stream];
    this.#own(
      writes,
      lane,
      Buffer.from(ownLinePrefix(lane, this.#views(lane), this.#lastByte, false) + marker),
      'marker',
      nowMs,
    );
    return writes;
  }

  summary(): Record<StreamName, LiveSummary> {
    const of = (l: Lane) => ({
      headBytes: l.truncated ? l.printedRaw : l.totalBytes,
      tailBytes: l.tailBytes,
      omittedBytes: l.omittedBytes,
      truncated: l.truncated,
      totalBytes: l.totalBytes,
    });
    return { stdout: of(this.#lanes.stdout), stderr: of(this.#lanes.stderr) };
  }

  #headBudget(): number {
    return Math.floor(this.#opts.budgetBytes / 2);
  }

  #startHold(reason: HoldReason): void {
    this.#phase = 'hold';
    this.#holdReason = reason;
    const printed = this.#lanes.stdout.printedRendered + this.#lanes.stderr.printedRendered;
    this.#room = this.#opts.budgetBytes - printed;
    for (const lane of [this.#lanes.stdout, this.#lanes.stderr]) {
      // The tail never needs more raw bytes than its rendered share (+3 to realign on a character).
      lane.held = new HeldTail(this.#room + 3, lane.terminal ? lane.out : undefined);
      if (lane.carry.length > 0) {
        lane.held.push(lane.carry);
        lane.carry = Buffer.alloc(0);
      }
    }
  }

  #holdBytes(lane: Lane, bytes: Uint8Array): void {
    lane.held!.push(bytes);
  }

  // The notice goes out once truncation is certain: the held parts can no longer all be shown
  // whole. Until then the end may still print everything, byte-for-byte.
  #maybeNotice(writes: LiveWrite[], nowMs: number): void {
    if (this.#noticed || this.#phase !== 'hold') return;
    const need = (l: Lane) => l.held?.wholeRenderedBytes() ?? Number.POSITIVE_INFINITY;
    if (need(this.#lanes.stdout) + need(this.#lanes.stderr) <= this.#room) return;
    this.#noticed = true;
    const notice = renderHoldNotice(this.#holdReason, this.#headBudget(), this.#opts.budgetBytes);
    writes.push(...this.ownLines([notice], nowMs));
  }

  #endLane(writes: LiveWrite[], lane: Lane, share: number, nowMs: number): void {
    const held = lane.held;
    if (!held || held.totalBytes === 0) return;
    const whole = held.wholeRenderedBytes();
    if (whole !== undefined && whole <= share) {
      this.#output(writes, lane, toValidUtf8(held.bytes()), nowMs);
      return;
    }
    lane.truncated = true;
    // Sized for the worst case (everything omitted), as the whole-result rendering does.
    const marker = renderOmissionMarker(lane.totalBytes);
    if (share < Buffer.byteLength(marker)) {
      lane.omittedBytes = lane.totalBytes - lane.printedRaw;
      return; // no room even for the marker: the metadata line still counts what was omitted
    }
    const buf = held.bytes();
    const fit = fitSuffix(buf, held.evicted ? tailStart(buf) : 0, share - Buffer.byteLength(marker));
    lane.tailBytes = fit.rawBytes;
    lane.omittedBytes = lane.totalBytes - lane.printedRaw - fit.rawBytes;
    const tailAt = buf.length - fit.rawBytes;
    this.#own(
      writes,
      lane,
      Buffer.from(
        ownLinePrefix(lane, this.#views(lane), this.#lastByte, false) +
          renderOmissionMarker(lane.omittedBytes),
      ),
      'marker',
      nowMs,
    );
    // A terminal lane's filter resumes in the stream's true state at the tail (across the cut).
    const filter = held.filterAt(buf.subarray(0, tailAt));
    const tail = toValidUtf8(buf.subarray(tailAt));
    this.#write(writes, lane, filter ? filter.write(tail) : lane.out.write(tail), 'output', nowMs);
  }

  #output(writes: LiveWrite[], lane: Lane, valid: Buffer, nowMs: number): void {
    if (valid.length === 0) return;
    this.#write(writes, lane, lane.out.write(valid), 'output', nowMs);
  }

  #views(lane: Lane): TerminalFilter[] {
    if (lane.terminal) return [];
    const logs = [this.#lanes.stdout, this.#lanes.stderr].filter((l) => !l.terminal).map((l) => l.out);
    return [...logs, this.#combinedLog];
  }

  #own(writes: LiveWrite[], lane: Lane, bytes: Buffer, kind: 'marker' | 'line', nowMs: number): void {
    // A terminal's attributes are one device's; a log's open string only that file's.
    if (lane.terminal) {
      for (const l of [this.#lanes.stdout, this.#lanes.stderr]) if (l.terminal) l.out.noteReset();
    } else {
      lane.out.noteReset();
      this.#combinedLog.noteReset();
    }
    this.#write(writes, lane, bytes, kind, nowMs);
  }

  #write(writes: LiveWrite[], lane: Lane, bytes: Buffer, kind: LiveWrite['kind'], nowMs: number): void {
    if (bytes.length === 0) return;
    writes.push({ stream: lane.name, bytes, kind });
    if (!lane.terminal) this.#combinedLog.write(bytes); // observe mode: tracks state only
    this.#lastByte[lane.terminal ? 'terminal' : 'log'] = bytes[bytes.length - 1]!;
    this.#lastWriteAtMs = nowMs;
  }
}
