// The streaming printer's data: what it writes, how it is configured, what it reports. Pure.
import type { StreamName } from './live-lane.ts';

export interface LiveWrite {
  readonly stream: StreamName;
  readonly bytes: Buffer;
  /**
   * 'output': the command's bytes; 'marker': the omission marker (with any prefix) on the
   * stream it belongs to; 'line': cordon's own lines on stderr (notice, heartbeat, metadata).
   */
  readonly kind: 'output' | 'marker' | 'line';
}

export interface LivePrinterOptions {
  /** Combined rendered budget (--max-output); 0 = everything streams. */
  readonly budgetBytes: number;
  /** Which outputs are terminals (their bytes go through the allow-list filter). */
  readonly terminal: { readonly stdout: boolean; readonly stderr: boolean };
  /** Heartbeat interval while output is held back; 0 = none (a spinner shows progress). */
  readonly heartbeatMs: number;
  readonly startedAtMs: number;
}

export interface LiveSummary {
  /** Raw bytes of the stream written as its head (and, when not truncated, everything). */
  readonly headBytes: number;
  /** Raw bytes written after the marker. */
  readonly tailBytes: number;
  readonly omittedBytes: number;
  readonly truncated: boolean;
  readonly totalBytes: number;
}
