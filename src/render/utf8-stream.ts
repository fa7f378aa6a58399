// Incremental form of toValidUtf8: chunks in, valid UTF-8 out, an incomplete character at the
// end of a chunk held until the next one. The concatenated output of push()…flush() equals
// toValidUtf8 of the concatenated input, whatever the chunking.
import { isUtf8 } from 'node:buffer';
import { scanUnit, toValidUtf8 } from './utf8.ts';

const EMPTY = Buffer.alloc(0);

/** Where the incomplete character ending `bytes` starts, or bytes.length when none does. */
export function incompleteTailStart(bytes: Uint8Array): number {
  // A unit only has continuation bytes after its first byte, and an incomplete one is at most
  // 3 bytes: its start is the last non-continuation byte among the last 3.
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 3; i--) {
    const b = bytes[i]!;
    if ((b & 0xc0) !== 0x80) return scanUnit(bytes, i).complete ? bytes.length : i;
  }
  return bytes.length;
}

export class Utf8Sanitizer {
  #carry: Buffer = EMPTY;

  /** Bytes held back (an incomplete character at the end of what was pushed). */
  get pendingBytes(): number {
    return this.#carry.length;
  }

  push(chunk: Uint8Array): Buffer {
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    const cut = incompleteTailStart(data);
    this.#carry = cut < data.length ? Buffer.from(data.subarray(cut)) : EMPTY;
    const body = data.subarray(0, cut);
    // Always a copy: the caller's chunk may be a read buffer that is reused after this call.
    return isUtf8(body) ? Buffer.from(body) : toValidUtf8(body);
  }

  /** The held incomplete character, as U+FFFD (empty when nothing is held). */
  flush(): Buffer {
    const rest = this.#carry;
    this.#carry = EMPTY;
    return rest.length > 0 ? toValidUtf8(rest) : EMPTY;
  }
}
