// The launcher side of the status reporter (plan/linux/status-reporter.ts): a pipe whose write
// end goes into the sandbox as plan.statusFd, read without blocking after bwrap has exited
// (by then every writer is gone: the reporter, bwrap, the whole pid namespace), and the
// outcome corrected with what it reports. A missing or malformed report leaves bwrap's own
// code, which for 128+N is ambiguous: the launcher says so.
import { closeSync, constants as fsConstants, openSync, readSync } from 'node:fs';
import { constants } from 'node:os';
import type { SpawnOutcome } from '../../exec/spawn.ts';
import { createPipe } from '../../native/linux.ts';
import { parseStatusLine } from '../../plan/linux/status-reporter.ts';
import type { Annotation } from '../../result/types.ts';

export interface StatusChannel {
  /** The write end, passed to bwrap (closed by the runner after the spawn). */
  readonly writeFd: number;
  /** Reads the report and closes the read end; undefined when there is none. */
  read(): string | undefined;
}

export function openStatusChannel(): StatusChannel {
  const [readFd, writeFd] = createPipe();
  return {
    writeFd,
    read() {
      // A second, non-blocking description of the same pipe: never wait for a writer.
      let fd: number | undefined;
      try {
        fd = openSync(`/proc/self/fd/${readFd}`, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
        const buf = Buffer.alloc(64);
        let n = 0;
        for (let got = 1; got > 0 && n < buf.length; n += got)
          got = readSync(fd, buf, n, buf.length - n, null);
        return buf.subarray(0, n).toString('latin1');
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) closeSync(fd);
        closeSync(readFd);
      }
    },
  };
}

const SIGNAL_NAMES = new Map(
  Object.entries(constants.signals).map(([name, n]) => [n as number, name as NodeJS.Signals]),
);

/** The outcome as the reporter saw it, plus a note when bwrap's 128+N could not be resolved. */
export function applyStatusReport(
  outcome: SpawnOutcome,
  report: string | undefined,
  reporterUsed: boolean,
): { outcome: SpawnOutcome; annotations: Annotation[] } {
  if (!outcome.started || outcome.signal !== null || outcome.exitCode === null)
    return { outcome, annotations: [] };
  const parsed = report === undefined ? undefined : parseStatusLine(report);
  if (parsed?.kind === 'signal') {
    const name = SIGNAL_NAMES.get(parsed.signal);
    if (name) return { outcome: { ...outcome, exitCode: null, signal: name }, annotations: [] };
  }
  if (parsed?.kind === 'exit') return { outcome: { ...outcome, exitCode: parsed.code }, annotations: [] };
  const code = outcome.exitCode;
  const sig = SIGNAL_NAMES.get(code - 128);
  if (code > 128 && sig && !outcome.timedOut && !outcome.cancelled)
    return {
      outcome,
      annotations: [
        {
          kind: 'note',
          message: `exit ${code} may also mean killed by ${sig}: bubblewrap reports a signal death as 128+N, and ${reporterUsed ? "cordon's status reporter did not report" : 'no status reporter (/usr/bin/perl, root-owned) was available here'}`,
        },
      ],
    };
  return { outcome, annotations: [] };
}
