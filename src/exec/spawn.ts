// The process runner. Starts one plan with stdin = /dev/null, stdout/stderr on pipes, in its
// own session and process group; collects both streams bounded; enforces the timeout and the
// AbortSignal (TERM to the group, a grace period, then KILL); after the command exits, drains
// the pipes for a bounded window, then closes them and kills whatever the command left.
//
// Why node:child_process and not execa: execa resolves only when every holder of the pipes
// has closed them, so a background grandchild (`sleep 30 & true`) holds it for 30 s; its
// timeout kills only the direct child. Here we act on the child's own 'exit', drain briefly,
// destroy our pipe ends and kill the group ourselves.
import { spawn } from 'node:child_process';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { createPipe } from '../native/linux.ts';
import { DRAIN_AFTER_EXIT_MS, KILL_GRACE_MS } from '../options/defaults.ts';
import { type CollectedStream, StreamCollector } from './collector.ts';
import { startDeadline } from './deadline.ts';
import { drainWithin } from './drain.ts';
import { killTree } from './terminate.ts';

export interface SpawnRequest {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly argv0?: string | undefined;
  /**
   * Descriptors to pass as fds 3, 4, ... (data a wrapper reads, e.g. bwrap's --ro-bind-data
   * and --seccomp). The runner closes its copies right after the spawn.
   */
  readonly extraFds?: readonly number[] | undefined;
  /** Per-stream head and tail capacity; 0 = unlimited. */
  readonly captureBytes: number;
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** This process is a child subreaper: orphans of the command are reparented to it. */
  readonly subreaper: boolean;
  readonly onStart?: ((pid: number) => void) | undefined;
  readonly onProgress?: ((bytesSeen: number) => void) | undefined;
  /** Every chunk as it is read, in arrival order (live output). */
  readonly onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
  /** Linux: give the command real pipes instead of Node's socketpairs (see createPipe). */
  readonly realPipes?: boolean | undefined;
  /** Bounded wait after exit for pipes held open by leftovers. */
  readonly drainMs?: number | undefined;
  readonly killGraceMs?: number | undefined;
  /** The first signal of a timeout. Default SIGTERM. */
  readonly timeoutSignal?: NodeJS.Signals | undefined;
  /**
   * Delivers the first (graceful) signal of a stop; returns false when it reached nothing, and
   * the tree kill is used instead. bwrap needs this: TERM to bwrap ends its pid namespace at once.
   */
  readonly signalGracefully?: ((pid: number, signal: NodeJS.Signals) => boolean) | undefined;
}

export type SpawnFailure = 'not-found' | 'not-executable' | 'spawn-failed';

export interface SpawnOutcome {
  readonly started: boolean;
  readonly failure?: SpawnFailure | undefined;
  readonly failureMessage?: string | undefined;
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  readonly durationMs: number;
  readonly stdout: CollectedStream;
  readonly stderr: CollectedStream;
}

export function spawnPlan(request: SpawnRequest): Promise<SpawnOutcome> {
  const startedAt = performance.now();
  const stdout = new StreamCollector(request.captureBytes);
  const stderr = new StreamCollector(request.captureBytes);
  const snapshot = (fields: Omit<SpawnOutcome, 'durationMs' | 'stdout' | 'stderr'>): SpawnOutcome => ({
    ...fields,
    durationMs: performance.now() - startedAt,
    stdout: stdout.snapshot(),
    stderr: stderr.snapshot(),
  });
  if (request.signal?.aborted)
    return Promise.resolve({
      ...snapshot({ started: false, exitCode: null, signal: null, timedOut: false, cancelled: true }),
      durationMs: 0,
    });

  const dataFds = [...(request.extraFds ?? [])];
  const pipes = request.realPipes ? openRealPipes() : undefined;
  // stdin is /dev/null ('ignore'), always: a sandboxed command must never read the caller's
  // terminal or a pipe the caller holds. detached = setsid(): own session and group.
  const child = spawn(request.executable, [...request.args], {
    stdio: ['ignore', pipes ? pipes.out[1] : 'pipe', pipes ? pipes.err[1] : 'pipe', ...dataFds],
    detached: true,
    env: { ...request.env },
    cwd: request.cwd,
    ...(request.argv0 !== undefined ? { argv0: request.argv0 } : {}),
    windowsHide: true,
  });
  for (const fd of dataFds) closeSync(fd);
  // Our copies of the write ends must go, or the read ends never see end-of-file.
  if (pipes) for (const fd of [pipes.out[1], pipes.err[1]]) closeSync(fd);
  const pid = child.pid;
  // `chunk` may be a reused read buffer: the collector copies what it keeps, and onOutput gets
  // its own copy.
  const onData = (name: 'stdout' | 'stderr', collector: StreamCollector) => (chunk: Buffer) => {
    collector.push(chunk);
    request.onOutput?.(name, Buffer.from(chunk));
    request.onProgress?.(stdout.totalBytes + stderr.totalBytes);
  };
  const outStream: Readable = pipes ? readerFor(pipes.out[0], onData('stdout', stdout)) : child.stdout!;
  const errStream: Readable = pipes ? readerFor(pipes.err[0], onData('stderr', stderr)) : child.stderr!;
  if (!pipes) {
    outStream.on('data', onData('stdout', stdout));
    errStream.on('data', onData('stderr', stderr));
  }
  // A destroyed pipe can emit EPIPE/ECONNRESET; the outcome is already decided by then.
  outStream.on('error', () => {});
  errStream.on('error', () => {});
  const closed = (s: Readable) => new Promise<void>((r) => s.once('close', () => r()));
  const pipesClosed = Promise.all([closed(outStream), closed(errStream)]);

  const deadline = startDeadline({
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    graceMs: request.killGraceMs ?? KILL_GRACE_MS,
    timeoutSignal: request.timeoutSignal,
    kill: (sig) => {
      if (pid === undefined) return;
      if (sig !== 'SIGKILL' && request.signalGracefully?.(pid, sig)) return;
      killTree(pid, request.subreaper, sig);
    },
  });

  return new Promise<SpawnOutcome>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (pid !== undefined) return; // errors after a successful spawn are pipe noise
      deadline.dispose();
      outStream.destroy();
      errStream.destroy();
      const failure: SpawnFailure =
        error.code === 'ENOENT'
          ? 'not-found'
          : error.code === 'EACCES' || error.code === 'ENOEXEC' || error.code === 'EISDIR'
            ? 'not-executable'
            : 'spawn-failed';
      resolve(
        snapshot({
          started: false,
          failure,
          failureMessage: error.message,
          exitCode: null,
          signal: null,
          timedOut: false,
          cancelled: false,
        }),
      );
    });
    if (pid === undefined) return;
    request.onStart?.(pid);
    child.once('exit', (code, signal) => {
      // No new stop once the command has exited; a stop already under way is reported as such.
      const reason = deadline.reason;
      deadline.dispose();
      // Leftovers may hold the pipes: read what arrives for a bounded window, then stop.
      void drainWithin(pipesClosed, request.drainMs ?? DRAIN_AFTER_EXIT_MS).then(() => {
        killTree(pid, request.subreaper, 'SIGKILL');
        outStream.destroy();
        errStream.destroy();
        resolve(
          snapshot({
            started: true,
            pid,
            exitCode: code,
            signal,
            timedOut: reason === 'timeout',
            cancelled: reason === 'cancel',
          }),
        );
      });
    });
  });
}

function openRealPipes(): { out: [number, number]; err: [number, number] } | undefined {
  try {
    const out = createPipe();
    try {
      return { out, err: createPipe() };
    } catch (error) {
      for (const fd of out) closeSync(fd);
      throw error;
    }
  } catch {
    return undefined; // koffi unavailable: Node's socketpairs (only /dev/stderr reopening differs)
  }
}

/** Size of the one read buffer each real pipe reuses for every read. */
const READ_BUFFER_BYTES = 64 * 1024;

/**
 * A non-blocking reader on our end of a real pipe that reads into one fixed buffer, reused for
 * every read (net.Socket's onread), instead of a fresh Buffer per read: memory stays flat
 * whatever the command writes, and no libuv threadpool thread is held.
 */
function readerFor(fd: number, onChunk: (chunk: Buffer) => void): Readable {
  const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  return new Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (bytes: number, buf: Uint8Array) => {
        onChunk(Buffer.from(buf.buffer, buf.byteOffset, bytes));
        return true;
      },
    },
  });
}
