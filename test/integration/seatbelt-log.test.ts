// The `log stream` plumbing of backends/seatbelt/log.ts against a fake `log` (a shell script that
// prints the ready banner and ndjson events the way macOS does). The real `log` and real
// denials are for the darwin lane; this checks readiness, line splitting and stopping.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSeatbeltLog } from '../../src/backends/seatbelt/log.ts';
import { makeTempDir } from '../helpers/cli.ts';

function fakeLog(body: string): string {
  const path = join(makeTempDir('cordon-fake-log-'), 'log');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const event = (message: string) =>
  JSON.stringify({ processID: 0, eventMessage: message }).replace(/'/g, `'\\''`);

describe('startSeatbeltLog (fake log)', () => {
  it('becomes ready on the banner and returns the denials printed before stop', async () => {
    const log = fakeLog(
      [
        `echo 'Filtering the log data using "..."' >&2`,
        'sleep 0.2',
        `printf '%s\\n' '${event('Sandbox: cat(41) deny(1) file-read-data /Users/me/.ssh/id\ncordon-seatbelt')}'`,
        `printf '%s\\n' 'not json'`,
        `printf '%s\\n' '${event('Sandbox: sh(42) deny(1) file-write-create /Users/me/x\ncordon-seatbelt')}'`,
        'exec sleep 30',
      ].join('\n'),
    );
    const monitor = await startSeatbeltLog(log);
    expect(monitor).toBeDefined();
    await new Promise((r) => setTimeout(r, 600));
    expect(await monitor!.stop()).toEqual([
      { process: 'cat', pid: 41, operation: 'file-read-data', target: '/Users/me/.ssh/id' },
      { process: 'sh', pid: 42, operation: 'file-write-create', target: '/Users/me/x' },
    ]);
  });

  it('gives no monitor when log exits before it is ready, or is missing', async () => {
    expect(await startSeatbeltLog(fakeLog('exit 1'))).toBeUndefined();
    expect(await startSeatbeltLog('/nonexistent/log')).toBeUndefined();
  });
});
