// Exit status mapping, one table for the CLI and the library:
//   the command's own code; 124 timeout; 128+N killed by signal N; 125 cordon's own error;
//   126 found but not executable; 127 not found; 130 cancelled through an AbortSignal.
import { constants } from 'node:os';
import type { RunStatus } from '../result/types.ts';

export const EXIT_TIMEOUT = 124;
export const EXIT_CORDON_ERROR = 125;
export const EXIT_NOT_EXECUTABLE = 126;
export const EXIT_NOT_FOUND = 127;
export const EXIT_CANCELLED = 130;

export function signalNumber(signal: string): number {
  return (constants.signals as Record<string, number>)[signal] ?? 0;
}

export function toExitStatus(status: RunStatus, exitCode: number | null, signal: string | null): number {
  switch (status) {
    case 'timed-out':
      return EXIT_TIMEOUT;
    case 'cancelled':
      return EXIT_CANCELLED;
    case 'not-found':
      return EXIT_NOT_FOUND;
    case 'not-executable':
      return EXIT_NOT_EXECUTABLE;
    case 'spawn-failed':
      return EXIT_CORDON_ERROR;
    case 'signaled':
      return 128 + (signal ? signalNumber(signal) : 0);
    case 'limit-exceeded':
      // As the kill itself would: 128+N when killed, the command's own code otherwise.
      return signal ? 128 + signalNumber(signal) : (exitCode ?? EXIT_CORDON_ERROR);
    default:
      return exitCode ?? EXIT_CORDON_ERROR;
  }
}
