// Collects Seatbelt denials during a run on macOS: starts `/usr/bin/log stream` (ndjson, only
// kernel sandbox messages carrying cordon's tag) before the command, and after it has exited
// waits briefly for the log to catch up, stops the stream and returns the denials seen.
// Best effort: when `log` is missing or does not become ready in time, there is no monitor
// and the run goes on without denial reports. Not yet exercised on a Mac.
import { spawn } from 'node:child_process';
import { buildLogStreamArgs, LOG_PATH, parseLogStreamLine, type SeatbeltViolation } from './violations.ts';

const READY_TIMEOUT_MS = 2000;
/** Denials reach the log stream shortly after they happen. */
const FLUSH_GRACE_MS = 150;
const MAX_VIOLATIONS = 1000;
/** `log stream` prints this (on stdout or stderr) once its filter is installed. */
const READY_PREFIX = 'Filtering the log data';

export interface SeatbeltLogMonitor {
  /** Stops the stream and returns the denials seen since start, in arrival order. */
  stop(): Promise<SeatbeltViolation[]>;
}

/** `logPath` is for tests only (a fake `log`); cordon always uses /usr/bin/log. */
export function startSeatbeltLog(logPath: string = LOG_PATH): Promise<SeatbeltLogMonitor | undefined> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(logPath, buildLogStreamArgs(), { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch {
      resolve(undefined);
      return;
    }
    const violations: SeatbeltViolation[] = [];
    let ready = false;
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (value: SeatbeltLogMonitor | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const monitor: SeatbeltLogMonitor = {
      stop: () =>
        new Promise((done) => {
          setTimeout(() => {
            child.kill('SIGTERM');
            done(violations.slice());
          }, FLUSH_GRACE_MS);
        }),
    };
    const onLines = (buffer: { rest: string }, chunk: Buffer) => {
      buffer.rest += chunk.toString('utf8');
      const lines = buffer.rest.split('\n');
      buffer.rest = lines.pop() ?? '';
      for (const line of lines) {
        if (!ready && line.startsWith(READY_PREFIX)) {
          ready = true;
          settle(monitor);
          continue;
        }
        const v = parseLogStreamLine(line);
        if (v && violations.length < MAX_VIOLATIONS) violations.push(v);
      }
    };
    const out = { rest: '' };
    const err = { rest: '' };
    child.stdout?.on('data', (c: Buffer) => onLines(out, c));
    child.stderr?.on('data', (c: Buffer) => onLines(err, c));
    child.on('error', () => settle(undefined));
    child.on('exit', () => settle(undefined));
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      settle(undefined);
    }, READY_TIMEOUT_MS);
  });
}
