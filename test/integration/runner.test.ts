// The runner with real processes (backend none through the library run()): stdin, exit
// statuses, leftovers after exit and after a timeout, big and invalid output, concurrency.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/run.ts';
import {
  countLiveChildren,
  countOpenFds,
  findProcesses,
  processesLeft,
  uniqueMarker,
} from '../helpers/procs.ts';

const isLinux = process.platform === 'linux';
const sh = (script: string) => ['/bin/sh', '-c', script];
const none = { backend: 'none' as const };

describe.runIf(isLinux)('runner (backend none)', () => {
  it('gives the command /dev/null as stdin and only fds 0, 1, 2', async () => {
    // `ls` alone (no pipeline, whose pipes the shell would hold for a moment) lists the shell's fds.
    const r = await run(sh('readlink /proc/self/fd/0; ls /proc/$$/fd'), none);
    expect(r.stdout.text).toBe('/dev/null\n0\n1\n2\n');
  });

  it('keeps the exit code, maps signals to 128+N, not found to 127 and not executable to 126', async () => {
    expect((await run(sh('exit 3'), none)).exitStatus).toBe(3);
    const killed = await run(sh('kill -KILL $$'), none);
    expect([killed.status, killed.signal, killed.exitStatus]).toEqual(['signaled', 'SIGKILL', 137]);
    const termed = await run(sh('kill -TERM $$'), none);
    expect([termed.status, termed.signal, termed.exitStatus]).toEqual(['signaled', 'SIGTERM', 143]);
    const missing = await run(['cordon-no-such-command'], none);
    expect([missing.status, missing.exitStatus, missing.started]).toEqual(['not-found', 127, false]);
    const dir = mkdtempSync(join(tmpdir(), 'cordon-noexec-'));
    writeFileSync(join(dir, 'plain.txt'), 'echo hi\n', { mode: 0o644 });
    const notExec = await run([join(dir, 'plain.txt')], none);
    expect([notExec.status, notExec.exitStatus, notExec.started]).toEqual(['not-executable', 126, false]);
  });

  it('does not wait for a background job that holds the pipes, and kills it', async () => {
    for (const [script, code] of [
      ['sleep MARK & true', 0],
      ['sleep MARK & exit 3', 3],
    ] as const) {
      const marker = uniqueMarker();
      const r = await run(sh(script.replace('MARK', marker)), none);
      expect(r.exitStatus).toBe(code);
      expect(r.durationMs).toBeLessThan(25_000); // a hang would be 30 s; not a timing assertion on speed
      expect(await processesLeft(marker)).toEqual([]);
    }
  });

  it('stops a writer that keeps going after the command exits', async () => {
    const marker = uniqueMarker();
    const r = await run(sh(`(exec -a yes-${marker} yes) & echo started`), { ...none, maxOutputBytes: 1024 });
    expect(r.exitStatus).toBe(0);
    expect(r.stdout.text.startsWith('started\n')).toBe(true);
    expect(findProcesses(`yes-${marker}`)).toEqual([]);
  });

  it('kills the whole group, including a setsid grandchild, on timeout: exit 124', async () => {
    const marker = uniqueMarker();
    const r = await run(sh(`setsid sleep ${marker} & sleep ${marker}`), { ...none, timeoutMs: 300 });
    expect([r.status, r.timedOut, r.exitStatus]).toEqual(['timed-out', true, 124]);
    expect(findProcesses(marker)).toEqual([]);
  });

  it('cancels through an AbortSignal with the same cleanup', async () => {
    const marker = uniqueMarker();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const r = await run(sh(`sleep ${marker}`), { ...none, signal: controller.signal });
    expect([r.status, r.cancelled, r.started]).toEqual(['cancelled', true, true]);
    expect(findProcesses(marker)).toEqual([]);
  });

  it('renders invalid UTF-8 as U+FFFD', async () => {
    const r = await run(['printf', 'ok \\377\\376 end'], none);
    expect(r.stdout.text).toBe('ok \uFFFD\uFFFD end');
    expect(r.stdout.totalBytes).toBe(9);
  });

  it('keeps the final summary line of 300 MB of output', async () => {
    const r = await run(sh('head -c 300000000 /dev/zero | tr "\\0" x; echo; echo SUMMARY-LINE'), {
      ...none,
      maxOutputBytes: 4096,
    });
    expect(r.stdout.totalBytes).toBe(300_000_000 + 1 + 13);
    expect(r.stdout.text.endsWith('\nSUMMARY-LINE\n')).toBe(true);
    expect(r.stdout.truncated).toBe(true);
    expect(Buffer.byteLength(r.stdout.text)).toBeLessThanOrEqual(4096);
    expect(r.stdout.omittedBytes).toBe(
      r.stdout.totalBytes -
        (Buffer.byteLength(r.stdout.text) -
          Buffer.byteLength(`\n[... ${r.stdout.omittedBytes} bytes omitted ...]\n`)),
    );
  });

  it('does not deadlock on 3 MB of stderr with a small stdout', async () => {
    const r = await run(sh('head -c 3000000 /dev/zero | tr "\\0" e >&2; echo out'), {
      ...none,
      maxOutputBytes: 0,
    });
    expect(r.stdout.text).toBe('out\n');
    expect(r.stderr.totalBytes).toBe(3_000_000);
    expect(r.stderr.text.length).toBe(3_000_000);
  });

  it('64 concurrent runs with ~250 KB each keep every byte', async () => {
    const runs = Array.from({ length: 64 }, (_, i) =>
      run(
        sh(
          `i=0; while [ $i -lt 2500 ]; do echo "run ${i} line $i ................................................................................"; i=$((i+1)); done`,
        ),
        {
          ...none,
          maxOutputBytes: 0,
        },
      ),
    );
    const results = await Promise.all(runs);
    results.forEach((r, i) => {
      let expected = '';
      for (let n = 0; n < 2500; n++)
        expected += `run ${i} line ${n} ................................................................................\n`;
      expect(createHash('sha256').update(r.stdout.text).digest('hex')).toBe(
        createHash('sha256').update(expected).digest('hex'),
      );
      expect(r.stdout.totalBytes).toBe(Buffer.byteLength(expected));
    });
  });

  it('50 timeouts in a row leave open descriptors and children at their baseline', async () => {
    await run(['true'], none); // warm up lazily opened handles
    const fds = countOpenFds();
    const children = countLiveChildren();
    for (let i = 0; i < 50; i++) {
      const r = await run(sh('sleep 30'), { ...none, timeoutMs: 20 });
      expect(r.timedOut).toBe(true);
    }
    expect(countOpenFds()).toBe(fds);
    expect(countLiveChildren()).toBe(children);
  });
});
