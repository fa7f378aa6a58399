// The streaming printer on worked examples: what it writes now, when it holds back and says
// so, the heartbeat on the injected clock, the slow-reader hold-back, and the end.
import { describe, expect, it } from 'vitest';
import { LivePrinter, type LiveWrite } from '../../src/render/live-printer.ts';

const printer = (budgetBytes: number, terminal = false) =>
  new LivePrinter({
    budgetBytes,
    terminal: { stdout: terminal, stderr: terminal },
    heartbeatMs: 30_000,
    startedAtMs: 0,
  });
const show = (ws: LiveWrite[]) => ws.map((w) => `${w.stream}/${w.kind}:${w.bytes.toString()}`);

describe('live printer', () => {
  it('streams the head, holds the middle with one notice, ends with the exact marker and the tail', () => {
    const p = printer(100);
    expect(show(p.push('stdout', Buffer.from('a'.repeat(30)), 0))).toEqual([
      `stdout/output:${'a'.repeat(30)}`,
    ]);
    expect(show(p.push('stderr', Buffer.from('e\n'), 1))).toEqual(['stderr/output:e\n']);
    // 18 bytes of room left in the head (half of 100), the rest is held; not yet certain to be cut.
    expect(show(p.push('stdout', Buffer.from('b'.repeat(40)), 2))).toEqual([
      `stdout/output:${'b'.repeat(18)}`,
    ]);
    const notice = show(p.push('stdout', Buffer.from('c'.repeat(60)), 3));
    expect(notice).toEqual([
      // stdout's head ended mid-line: the notice starts on a fresh one
      'stderr/line:\ncordon: holding back the middle of the output (the output passed 50 B, half of --max-output 100 B); the tail follows when the command ends\n',
    ]);
    expect(p.push('stdout', Buffer.from('\nlast line\n'), 4)).toEqual([]);
    const end = show(p.end(5));
    // stdout's share is the 50 B left; the marker is sized for the worst case (29 B): 21 B of tail.
    expect(end).toEqual([
      'stdout/marker:\n[... 72 bytes omitted ...]\n',
      `stdout/output:${'c'.repeat(10)}\nlast line\n`,
    ]);
    expect(p.summary().stdout).toEqual({
      headBytes: 48,
      tailBytes: 21,
      omittedBytes: 72,
      truncated: true,
      totalBytes: 141,
    });
  });

  it('prints a held part whole at the end when it still fits: byte-for-byte, no notice', () => {
    const p = printer(100);
    const writes = [...p.push('stdout', Buffer.from('x'.repeat(70)), 0), ...p.end(1)];
    expect(writes.map((w) => [w.kind, w.bytes.length])).toEqual([
      ['output', 50],
      ['output', 20],
    ]);
  });

  it('beats every 30 s of silence while holding back (injected clock), never while streaming', () => {
    const p = printer(10);
    expect(p.tick(60_000)).toEqual([]);
    p.push('stdout', Buffer.from('0123456789abcdef'), 60_000);
    expect(p.nextHeartbeatAtMs()).toBe(90_000);
    expect(p.tick(89_999)).toEqual([]);
    expect(show(p.tick(90_000))).toEqual([
      'stderr/line:cordon: still running · 1.5m · 16 B of output so far, held back (the tail follows when the command ends)\n',
    ]);
    expect(p.tick(100_000)).toEqual([]);
    expect(p.nextHeartbeatAtMs()).toBe(120_000);
  });

  it('a slow reader: holds back from then on, says why once the cut is certain', () => {
    const p = printer(1000);
    p.push('stdout', Buffer.from('head\n'), 0);
    expect(p.holdBack(1)).toEqual([]);
    expect(p.push('stdout', Buffer.from('held\n'), 2)).toEqual([]);
    const w = show(p.push('stdout', Buffer.from('z'.repeat(2000)), 3));
    expect(w[0]).toContain('the reader of the output is not keeping up');
  });

  it('--max-output 0 streams everything and never holds back', () => {
    const p = printer(0);
    const big = Buffer.alloc(100_000, 0x61);
    expect(p.push('stdout', big, 0).map((w) => w.bytes.length)).toEqual([100_000]);
    expect(p.holdBack(1)).toEqual([]);
    expect(p.push('stdout', Buffer.from([0xe2, 0x82]), 2)).toEqual([]); // half a character waits
    expect(show(p.end(3))).toEqual(['stdout/output:\ufffd']);
  });

  it("own lines after the command's SGR 8 and an open OSC: ST, reset, fresh line on a log; reset on a terminal", () => {
    const log = printer(0);
    log.push('stdout', Buffer.from('cordon: exit 0\n\x1b[8m\x1b]0;x'), 0);
    expect(show(log.ownLines(['cordon: exit 1'], 1))).toEqual([
      'stderr/line:\x1b\\\x1b[0m\ncordon: exit 1\n',
    ]);
    const tty = printer(0, true);
    expect(show(tty.push('stdout', Buffer.from('cordon: exit 0\n\x1b[8m\x1b]0;x'), 0))).toEqual([
      'stdout/output:cordon: exit 0\n\x1b[8m',
    ]);
    expect(show(tty.ownLines(['cordon: exit 1'], 1))).toEqual(['stderr/line:\x1b[0m\ncordon: exit 1\n']);
  });

  it('a terminal tail that starts inside an OSC whose start was cut off is still dropped up to its end', () => {
    const p = printer(80, true);
    const writes = [
      ...p.push('stdout', Buffer.from(`ok\n\x1b]52;c;${'A'.repeat(200)}`), 0),
      ...p.push('stdout', Buffer.from('\x07visible\n'), 1),
      ...p.end(2),
    ];
    const text = writes.filter((w) => w.kind === 'output').map((w) => w.bytes.toString());
    expect(text).toEqual(['ok\n', 'visible\n']);
  });

  it('own lines also end a string that only the two streams together open (2>&1 into one log)', () => {
    const p = printer(0);
    p.push('stdout', Buffer.from('\x1b'), 0);
    p.push('stderr', Buffer.from(']0;x'), 1);
    expect(show(p.ownLines(['cordon: exit 0'], 2))).toEqual(['stderr/line:\x1b\\\ncordon: exit 0\n']);
  });
});
