// Text mode's output side: live streaming (the default) and the whole-result rendering
// (--no-stream). Drives the pure LivePrinter with the real clock, the terminal checks, an
// ordered non-blocking writer, a spinner on a terminal (erased before any output, drawn only
// at the start of a line) or heartbeat lines elsewhere, and the slow-reader hold-back.
// Everything cordon writes to a terminal goes through the allow-list filter (render/terminal-filter.ts).
import { isatty } from 'node:tty';
import { renderChangeLines } from '../changes/report.ts';
import { LIVE_HEARTBEAT_MS, LIVE_WRITE_QUEUE_BYTES } from '../options/defaults.ts';
import { formatBytes, formatDuration } from '../options/parse-units.ts';
import { LivePrinter, type LiveWrite, type StreamName } from '../render/live-printer.ts';
import { renderOmissionMarker } from '../render/window.ts';
import type { RunResult } from '../result/types.ts';
import { OrderedWriter } from './live-writer.ts';
import { renderMetaLine } from './text.ts';

const FD: Record<StreamName, number> = { stdout: 1, stderr: 2 };
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface TextOptions {
  readonly budgetBytes: number;
  readonly quiet: boolean;
  readonly verbose: boolean;
  readonly timeoutMs: number | undefined;
}

export interface LiveOutput {
  readonly onOutput: (stream: StreamName, chunk: Buffer) => void;
  /** After the run: the rest of each stream, then the trailer lines; resolves once written. */
  finish(result: RunResult): Promise<void>;
}

class Screen {
  readonly writer = new OrderedWriter();
  readonly terminal = { stdout: isatty(1), stderr: isatty(2) };
  #spinnerShown = false;

  send(writes: readonly LiveWrite[]): void {
    for (const w of writes) {
      if (this.#spinnerShown && this.terminal[w.stream]) this.clearSpinner();
      this.writer.write(FD[w.stream], w.bytes);
    }
  }

  drawSpinner(text: string): void {
    const columns = process.stderr.columns ?? 80;
    const line = text.length > columns - 3 ? `${text.slice(0, columns - 4)}…` : text;
    this.writer.write(2, Buffer.from(`\r${line}\x1b[K`));
    this.#spinnerShown = true;
  }

  clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#spinnerShown = false;
    this.writer.write(2, Buffer.from('\r\x1b[K'));
  }
}

export function startLiveOutput(options: TextOptions): LiveOutput {
  const screen = new Screen();
  const startedAt = Date.now();
  const spinnerOn = !options.quiet && screen.terminal.stderr && (process.stderr.columns ?? 0) >= 20;
  const printer = new LivePrinter({
    budgetBytes: options.budgetBytes,
    terminal: screen.terminal,
    heartbeatMs: spinnerOn ? 0 : LIVE_HEARTBEAT_MS,
    startedAtMs: startedAt,
  });
  let seen = 0;
  let lastOutputAt = 0;
  let heartbeat: NodeJS.Timeout | undefined;
  // One timer at a time: the due time only moves later, so a timer that fires early re-arms.
  const scheduleHeartbeat = () => {
    if (heartbeat) return;
    const due = printer.nextHeartbeatAtMs();
    if (due === undefined) return;
    heartbeat = setTimeout(
      () => {
        heartbeat = undefined;
        screen.send(printer.tick(Date.now()));
        scheduleHeartbeat();
      },
      Math.max(0, due - Date.now()),
    );
    heartbeat.unref();
  };
  let frame = 0;
  const spinner = spinnerOn
    ? setInterval(() => {
        // Only at the start of a line (erasing would take a partial line with it) and not in
        // the middle of a burst of output.
        if (!printer.atTerminalLineStart || Date.now() - lastOutputAt < 200) return;
        const elapsed = formatDuration(Math.floor((Date.now() - startedAt) / 1000) * 1000);
        const held = printer.holding ? ', the middle held back' : '';
        screen.drawSpinner(
          `${FRAMES[frame++ % FRAMES.length]} running ${elapsed} · ${formatBytes(seen)} of output${held}`,
        );
      }, 100)
    : undefined;
  spinner?.unref();

  return {
    onOutput(stream, chunk) {
      const now = Date.now();
      seen += chunk.length;
      lastOutputAt = now;
      screen.send(printer.push(stream, chunk, now));
      if (screen.writer.pendingBytes > LIVE_WRITE_QUEUE_BYTES && !printer.holding)
        screen.send(printer.holdBack(now));
      scheduleHeartbeat();
    },
    async finish(result) {
      clearInterval(spinner);
      clearTimeout(heartbeat);
      screen.clearSpinner();
      const now = Date.now();
      let summary = printer.summary();
      if (
        summary.stdout.totalBytes + summary.stderr.totalBytes === 0 &&
        result.stdout.totalBytes + result.stderr.totalBytes > 0
      ) {
        // A launcher without the onOutput hook (Windows, for now): the whole result instead.
        await screen.writer.drained();
        return printWholeText(result, options);
      }
      screen.send(printer.end(now));
      summary = printer.summary();
      const shown: RunResult = {
        ...result,
        stdout: {
          ...result.stdout,
          omittedBytes: summary.stdout.omittedBytes,
          truncated: summary.stdout.truncated,
        },
        stderr: {
          ...result.stderr,
          omittedBytes: summary.stderr.omittedBytes,
          truncated: summary.stderr.truncated,
        },
      };
      // Annotations are not part of the streamed stderr: they follow as cordon's own lines.
      const annotations = result.annotations.map((a) => `cordon: ${a.message}`);
      screen.send(printer.ownLines([...annotations, ...(await trailerLines(shown, options, screen))], now));
      await screen.writer.drained();
    },
  };
}

/** --no-stream: today's whole-result text (bounded head + marker + tail), then the trailer. */
export async function printWholeText(result: RunResult, options: TextOptions): Promise<void> {
  const screen = new Screen();
  const printer = new LivePrinter({
    budgetBytes: 0,
    terminal: screen.terminal,
    heartbeatMs: 0,
    startedAtMs: 0,
  });
  for (const stream of ['stdout', 'stderr'] as const) {
    const s = result[stream];
    const text = Buffer.from(s.text);
    // A truncated stream's marker is cordon's own line: strings end before it (the last
    // occurrence — the tail comes after it and holds no more than the command wrote there).
    const marker = s.truncated ? text.lastIndexOf(renderOmissionMarker(s.omittedBytes)) : -1;
    if (marker === -1) screen.send(printer.push(stream, text, 0));
    else {
      const markerText = renderOmissionMarker(s.omittedBytes);
      screen.send(printer.push(stream, text.subarray(0, marker), 0));
      screen.send(printer.mark(stream, markerText, 0));
      screen.send(printer.push(stream, text.subarray(marker + Buffer.byteLength(markerText)), 0));
    }
  }
  screen.send(printer.end(0));
  screen.send(printer.ownLines(await trailerLines(result, options, screen), 0));
  await screen.writer.drained();
}

async function trailerLines(result: RunResult, options: TextOptions, screen: Screen): Promise<string[]> {
  const lines: string[] = [];
  if (result.changes) lines.push(...renderChangeLines(result.changes, result.cwd).map((l) => `cordon: ${l}`));
  if (!options.quiet) {
    // chalk is loaded only when there is colour to add: a pipe or NO_COLOR gets the plain line.
    const meta = renderMetaLine(result, options.timeoutMs);
    const color = screen.terminal.stderr && !process.env['NO_COLOR'];
    lines.push(color ? (await import('./style.ts')).styleMeta(meta, true) : meta);
    if (options.verbose) for (const a of result.annotations) lines.push(`cordon: [${a.kind}] ${a.message}`);
  }
  return lines;
}
