// The deadline of a run: a timeout and an AbortSignal become one stop reason, and stopping is
// "first signal, a grace period, then force" through an injected kill, so every launcher (the
// POSIX spawner, the Windows job) stops a command the same way. Timers only; no processes here.

export type StopReason = 'timeout' | 'cancel';

export interface DeadlineRequest {
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The first signal of a timeout (a cancellation forwards its own). Default SIGTERM. */
  readonly timeoutSignal?: NodeJS.Signals | undefined;
  /** Between the first signal and the forced kill. 0 forces at once. */
  readonly graceMs: number;
  /** Sends `first` (the grace has just begun) or 'SIGKILL' (the grace is over). */
  readonly kill: (signal: NodeJS.Signals) => void;
}

export interface Deadline {
  /** Why the command is being stopped; undefined while it runs on. */
  readonly reason: StopReason | undefined;
  /** The command has exited on its own (or was stopped): no more signals. */
  dispose(): void;
}

/** An abort reason of the form { signal: 'SIGINT' } forwards that signal first; otherwise SIGTERM. */
export function forwardedSignal(reason: unknown): NodeJS.Signals {
  if (typeof reason === 'object' && reason !== null && 'signal' in reason) {
    const sig = (reason as { signal: unknown }).signal;
    if (sig === 'SIGINT' || sig === 'SIGTERM' || sig === 'SIGHUP') return sig;
  }
  return 'SIGTERM';
}

export function startDeadline(request: DeadlineRequest): Deadline {
  let reason: StopReason | undefined;
  let disposed = false;
  let timeoutTimer: ReturnType<typeof setTimeout> | undefined;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;

  const stop = (why: StopReason, first: NodeJS.Signals) => {
    if (disposed || reason !== undefined) return;
    reason = why;
    clearTimeout(timeoutTimer);
    request.kill(first);
    if (request.graceMs <= 0 && first !== 'SIGKILL') request.kill('SIGKILL');
    else graceTimer = setTimeout(() => request.kill('SIGKILL'), request.graceMs);
  };
  const onAbort = () => stop('cancel', forwardedSignal(request.signal?.reason));

  if (request.timeoutMs !== undefined)
    timeoutTimer = setTimeout(() => stop('timeout', request.timeoutSignal ?? 'SIGTERM'), request.timeoutMs);
  request.signal?.addEventListener('abort', onAbort, { once: true });
  if (request.signal?.aborted) onAbort();

  return {
    get reason() {
      return reason;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      request.signal?.removeEventListener('abort', onAbort);
    },
  };
}
