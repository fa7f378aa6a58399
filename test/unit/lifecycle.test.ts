// The shared lifecycle: the deadline (timeout and AbortSignal → one stop reason; first signal,
// grace, then force, through an injected kill) and the bounded drain. Fake timers; no processes.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forwardedSignal, startDeadline } from '../../src/exec/deadline.ts';
import { drainWithin } from '../../src/exec/drain.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('deadline', () => {
  it('timeout: TERM, then KILL after the grace', () => {
    const kills: string[] = [];
    const d = startDeadline({ timeoutMs: 100, graceMs: 50, kill: (s) => kills.push(s) });
    vi.advanceTimersByTime(99);
    expect([d.reason, kills]).toEqual([undefined, []]);
    vi.advanceTimersByTime(1);
    expect([d.reason, kills]).toEqual(['timeout', ['SIGTERM']]);
    vi.advanceTimersByTime(50);
    expect(kills).toEqual(['SIGTERM', 'SIGKILL']);
    d.dispose();
  });

  it('an abort forwards the signal named in its reason; a plain abort sends TERM', () => {
    const kills: string[] = [];
    const c = new AbortController();
    const d = startDeadline({ signal: c.signal, graceMs: 10, kill: (s) => kills.push(s) });
    c.abort({ signal: 'SIGINT' });
    expect([d.reason, kills]).toEqual(['cancel', ['SIGINT']]);
    expect(forwardedSignal(undefined)).toBe('SIGTERM');
    expect(forwardedSignal({ signal: 'SIGUSR1' })).toBe('SIGTERM');
    expect(forwardedSignal({ signal: 'SIGHUP' })).toBe('SIGHUP');
    d.dispose();
  });

  it('the first stop reason wins: a timeout after a cancel changes nothing', () => {
    const kills: string[] = [];
    const c = new AbortController();
    const d = startDeadline({ timeoutMs: 20, signal: c.signal, graceMs: 1000, kill: (s) => kills.push(s) });
    c.abort();
    vi.advanceTimersByTime(30);
    expect([d.reason, kills]).toEqual(['cancel', ['SIGTERM']]);
    d.dispose();
  });

  it('an already aborted signal stops at once; grace 0 forces at once (a Windows job)', () => {
    const kills: string[] = [];
    const c = new AbortController();
    c.abort();
    const d = startDeadline({ signal: c.signal, graceMs: 0, kill: (s) => kills.push(s) });
    expect([d.reason, kills]).toEqual(['cancel', ['SIGTERM', 'SIGKILL']]);
    d.dispose();
  });

  it('dispose (the command exited) stops every timer and listener', () => {
    const kills: string[] = [];
    const c = new AbortController();
    const d = startDeadline({ timeoutMs: 10, signal: c.signal, graceMs: 10, kill: (s) => kills.push(s) });
    d.dispose();
    vi.advanceTimersByTime(100);
    c.abort();
    expect([d.reason, kills]).toEqual([undefined, []]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('drain', () => {
  it('true when the pipes close within the window, false when they do not', async () => {
    const quick = drainWithin(Promise.resolve(), 100);
    await expect(quick).resolves.toBe(true);
    const never = drainWithin(new Promise(() => {}), 100);
    vi.advanceTimersByTime(100);
    await expect(never).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
