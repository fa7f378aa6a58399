// Renders one collected stream into at most `budgetBytes` rendered bytes: the whole content
// when it fits (byte-for-byte when it is valid UTF-8), otherwise a head, an inline marker
// "[... N bytes omitted ...]" with N the exact count of raw bytes dropped, and a tail.
// Cuts fall on UTF-8 unit boundaries; invalid bytes render as U+FFFD and are counted as such.
import type { CollectedStream } from '../exec/collector.ts';
import { fitPrefix, fitSuffix, renderedSize, tailStart, toValidUtf8 } from './utf8.ts';

export interface RenderedStream {
  readonly text: Buffer;
  readonly totalBytes: number;
  readonly omittedBytes: number;
  readonly truncated: boolean;
}

export function renderOmissionMarker(omittedBytes: number): string {
  return `\n[... ${omittedBytes} bytes omitted ...]\n`;
}

/** Rendered size of the stream if shown whole, or undefined when bytes are already missing. */
export function measureWhole(stream: CollectedStream): number | undefined {
  const kept = stream.head.length + stream.tail.length;
  if (kept !== stream.totalBytes) return undefined;
  return renderedSize(stream.head) + renderedSize(stream.tail) + seamExtra(stream);
}

// Head and tail buffers are contiguous when nothing was dropped; a character split across
// them must be measured as one unit.
function seamExtra(stream: CollectedStream): number {
  if (stream.tail.length === 0 || stream.head.length === 0) return 0;
  const whole = Buffer.concat([stream.head, stream.tail]);
  return renderedSize(whole) - renderedSize(stream.head) - renderedSize(stream.tail);
}

/** budgetBytes = Infinity renders everything. */
export function renderWindow(stream: CollectedStream, budgetBytes: number): RenderedStream {
  const gap = stream.totalBytes - stream.head.length - stream.tail.length;
  const whole =
    gap === 0
      ? stream.tail.length === 0
        ? stream.head
        : Buffer.concat([stream.head, stream.tail])
      : undefined;
  if (whole !== undefined) {
    const size = renderedSize(whole);
    if (size <= budgetBytes) {
      return { text: toValidUtf8(whole), totalBytes: stream.totalBytes, omittedBytes: 0, truncated: false };
    }
  }
  const head = whole ?? stream.head;
  const tail = whole ?? stream.tail;
  // The marker's digits depend on what is omitted; size it for the worst case (everything).
  const markerBytes = Buffer.byteLength(renderOmissionMarker(stream.totalBytes));
  if (budgetBytes < markerBytes) {
    return {
      text: Buffer.alloc(0),
      totalBytes: stream.totalBytes,
      omittedBytes: stream.totalBytes,
      truncated: true,
    };
  }
  const room = budgetBytes - markerBytes;
  const headShare = Math.floor(room / 2);
  // Head first with its share; the tail takes the rest (it holds the summary people look for).
  let headFit = fitPrefix(head, headShare, true);
  const tailOffset = whole !== undefined ? 0 : tailStart(tail);
  let tailFit = fitSuffix(tail, tailOffset, room - headFit.renderedBytes);
  if (whole !== undefined) {
    // One buffer: head and tail must not overlap.
    if (headFit.rawBytes + tailFit.rawBytes > whole.length)
      tailFit = fitSuffix(whole, headFit.rawBytes, room - headFit.renderedBytes);
  } else if (tailFit.renderedBytes < room - headFit.renderedBytes) {
    // Tail shorter than its share: give the head the unused room.
    headFit = fitPrefix(head, room - tailFit.renderedBytes, true);
  }
  const headBytes = head.subarray(0, headFit.rawBytes);
  const tailBytes = tail.subarray(tail.length - tailFit.rawBytes);
  const omittedBytes = stream.totalBytes - headFit.rawBytes - tailFit.rawBytes;
  const text = Buffer.concat([
    toValidUtf8(headBytes),
    Buffer.from(renderOmissionMarker(omittedBytes)),
    toValidUtf8(tailBytes),
  ]);
  return { text, totalBytes: stream.totalBytes, omittedBytes, truncated: true };
}
