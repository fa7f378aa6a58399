// The status line is parsed strictly, and without a report bwrap's 128+N is flagged ambiguous.
import { describe, expect, it } from 'vitest';
import { applyStatusReport } from '../../src/backends/bwrap/status.ts';
import type { SpawnOutcome } from '../../src/exec/spawn.ts';
import { parseStatusLine } from '../../src/plan/linux/status-reporter.ts';

const empty = { head: Buffer.alloc(0), tail: Buffer.alloc(0), totalBytes: 0 };
const exited = (code: number): SpawnOutcome => ({
  started: true,
  exitCode: code,
  signal: null,
  timedOut: false,
  cancelled: false,
  durationMs: 1,
  stdout: empty,
  stderr: empty,
});

describe('status reporter', () => {
  it('parses exactly one well-formed line', () => {
    expect(parseStatusLine('exit 0\n')).toEqual({ kind: 'exit', code: 0 });
    expect(parseStatusLine('signal 9\n')).toEqual({ kind: 'signal', signal: 9 });
    for (const bad of [
      '',
      'exit 0',
      'exit 256\n',
      'signal 0\n',
      'signal 65\n',
      'exit 1\nexit 2\n',
      ' exit 1\n',
      'exit -1\n',
    ])
      expect(parseStatusLine(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('a report turns 137 into SIGKILL or keeps it an exit; none leaves it, with a note', () => {
    expect(applyStatusReport(exited(137), 'signal 9\n', true).outcome).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
    });
    expect(applyStatusReport(exited(137), 'exit 137\n', true)).toEqual({
      outcome: exited(137),
      annotations: [],
    });
    const none = applyStatusReport(exited(137), undefined, false);
    expect(none.outcome).toEqual(exited(137));
    expect(none.annotations).toEqual([
      {
        kind: 'note',
        message:
          'exit 137 may also mean killed by SIGKILL: bubblewrap reports a signal death as 128+N, and no status reporter (/usr/bin/perl, root-owned) was available here',
      },
    ]);
    expect(applyStatusReport(exited(1), 'garbage', true)).toEqual({ outcome: exited(1), annotations: [] });
  });
});
