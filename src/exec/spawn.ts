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
  /** Every chunk of the command's output as it is read (live output); `chunk` is valid only during the call. */
  readonly onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
  /** Linux: give the command real pipes instead of Node's socketpairs (see createPipe). */
  readonly realPipes?: boolean | undefined;
  /** Bounded wait after exit for pipes held open by leftovers. */
  readonly drainMs?: number | undefined;
  readonly killGraceMs?: number | undefined;
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
  const drainMs = request.drainMs ?? DRAIN_AFTER_EXIT_MS;
  const graceMs = request.killGraceMs ?? KILL_GRACE_MS;

  return new Promise((resolve) => {
    if (request.signal?.aborted) {
      resolve({
        started: false,
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: true,
        durationMs: 0,
        stdout: stdout.snapshot(),
        stderr: stderr.snapshot(),
      });
      return;
    }
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
    const outStream: Readable = pipes ? readerFor(pipes.out[0]) : child.stdout!;
    const errStream: Readable = pipes ? readerFor(pipes.err[0]) : child.stderr!;
    let settled = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;
    let timedOut = false;
    let cancelled = false;
    let stopping = false;
    let openPipes = 2;
    let drainTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    const pid = child.pid;

    const onData = (collector: StreamCollector, name: 'stdout' | 'stderr') => (chunk: Buffer) => {
      collector.push(chunk);
      request.onOutput?.(name, chunk);
      request.onProgress?.(stdout.totalBytes + stderr.totalBytes);
    };
    outStream.on('data', onData(stdout, 'stdout'));
    errStream.on('data', onData(stderr, 'stderr'));
    const onPipeClosed = () => {
      openPipes--;
      if (openPipes === 0 && exited) finish();
    };
    outStream.on('close', onPipeClosed);
    errStream.on('close', onPipeClosed);
    // A destroyed pipe can emit EPIPE/ECONNRESET; the outcome is already decided by then.
    outStream.on('error', () => {});
    errStream.on('error', () => {});

    // An abort reason of the form { signal: 'SIGINT' } forwards that signal first (the CLI
    // passes on what it received); otherwise the group gets SIGTERM.
    const abortListener = () => stop('cancel', forwardedSignal(request.signal?.reason));
    request.signal?.addEventListener('abort', abortListener, { once: true });

    if (request.timeoutMs !== undefined) {
      timeoutTimer = setTimeout(() => stop('timeout'), request.timeoutMs);
    }

    function stop(reason: 'timeout' | 'cancel', first: NodeJS.Signals = 'SIGTERM'): void {
      if (exited || stopping) return;
      stopping = true;
      if (reason === 'timeout') timedOut = true;
      else cancelled = true;
      if (pid !== undefined) {
        killTree(pid, request.subreaper, first);
        killTimer = setTimeout(() => killTree(pid, request.subreaper, 'SIGKILL'), graceMs);
      }
    }

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (pid !== undefined) return; // errors after a successful spawn are pipe noise
      const failure: SpawnFailure =
        error.code === 'ENOENT'
          ? 'not-found'
          : error.code === 'EACCES' || error.code === 'ENOEXEC' || error.code === 'EISDIR'
            ? 'not-executable'
            : 'spawn-failed';
      settle({
        started: false,
        failure,
        failureMessage: error.message,
        exitCode: null,
        signal: null,
        timedOut: false,
        cancelled: false,
        durationMs: performance.now() - startedAt,
        stdout: stdout.snapshot(),
        stderr: stderr.snapshot(),
      });
    });

    if (pid !== undefined) request.onStart?.(pid);

    child.once('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      if (openPipes === 0) {
        finish();
        return;
      }
      // Leftovers may hold the pipes: read what arrives for a bounded window, then stop.
      drainTimer = setTimeout(finish, drainMs);
    });

    function finish(): void {
      if (settled) return;
      if (pid !== undefined) killTree(pid, request.subreaper, 'SIGKILL');
      outStream.destroy();
      errStream.destroy();
      settle({
        started: true,
        pid,
        exitCode,
        signal: exitSignal,
        timedOut,
        cancelled,
        durationMs: performance.now() - startedAt,
        stdout: stdout.snapshot(),
        stderr: stderr.snapshot(),
      });
    }

    function settle(outcome: SpawnOutcome): void {
      if (settled) return;
      settled = true;
      outStream.destroy();
      errStream.destroy();
      clearTimeout(drainTimer);
      clearTimeout(killTimer);
      clearTimeout(timeoutTimer);
      request.signal?.removeEventListener('abort', abortListener);
      resolve(outcome);
    }
  });
}

function forwardedSignal(reason: unknown): NodeJS.Signals {
  if (typeof reason === 'object' && reason !== null && 'signal' in reason) {
    const sig = (reason as { signal: unknown }).signal;
    if (sig === 'SIGINT' || sig === 'SIGTERM' || sig === 'SIGHUP') return sig;
  }
  return 'SIGTERM';
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

function readerFor(fd: number): Readable {
  return new Socket({ fd, readable: true, writable: false });
}
