// What the streaming printer holds of one stream once it stops writing: the last `capacity`
// raw bytes (a chunk deque, copies), the exact total, and — until bytes had to be dropped —
// the exact rendered size of everything held, so the end can tell whether it fits whole.
// For a terminal lane it also keeps the allow-list filter's state at the deque's start, so the
// tail is filtered in the stream's true state however the cut falls.
import type { TerminalFilter } from './terminal-filter.ts';
import { Utf8Sanitizer } from './utf8-stream.ts';

export class HeldTail {
  readonly #capacity: number;
  #chunks: Buffer[] = [];
  #first = 0;
  #bytes = 0;
  #total = 0;
  #evicted = false;
  #counter: Utf8Sanitizer | undefined = new Utf8Sanitizer();
  #rendered = 0;
  readonly #shadow: { sanitizer: Utf8Sanitizer; filter: TerminalFilter } | undefined;

  /** `filter`: the terminal lane's filter as the held part begins (cloned, not changed). */
  constructor(capacityBytes: number, filter: TerminalFilter | undefined) {
    this.#capacity = Math.max(1, capacityBytes);
    this.#shadow = filter ? { sanitizer: new Utf8Sanitizer(), filter: filter.clone() } : undefined;
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** Some held bytes were dropped (the tail starts somewhere inside what was held). */
  get evicted(): boolean {
    return this.#evicted;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    if (this.#counter) this.#rendered += this.#counter.push(chunk).length;
    let bytes = chunk;
    if (bytes.length > this.#capacity) {
      // Everything held goes first, in order, then the front of this chunk.
      for (const c of this.#chunks.slice(this.#first)) this.#evict(c);
      this.#chunks = [];
      this.#first = 0;
      this.#bytes = 0;
      this.#evict(bytes.subarray(0, bytes.length - this.#capacity));
      bytes = bytes.subarray(bytes.length - this.#capacity);
    }
    this.#chunks.push(Buffer.from(bytes));
    this.#bytes += bytes.length;
    while (this.#bytes > this.#capacity) {
      const front = this.#chunks[this.#first]!;
      const excess = this.#bytes - this.#capacity;
      if (front.length <= excess) {
        this.#evict(front);
        this.#first++;
        this.#bytes -= front.length;
      } else {
        this.#evict(front.subarray(0, excess));
        this.#chunks[this.#first] = front.subarray(excess);
        this.#bytes -= excess;
      }
    }
    if (this.#first > 64 && this.#first * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }

  /** Rendered size of everything held, shown whole; undefined once bytes were dropped. */
  wholeRenderedBytes(): number | undefined {
    if (!this.#counter) return undefined;
    // At the end an incomplete last character renders as one U+FFFD.
    return this.#rendered + (this.#counter.pendingBytes > 0 ? 3 : 0);
  }

  /** The bytes still held, in order. */
  bytes(): Buffer {
    return Buffer.concat(this.#chunks.slice(this.#first), this.#bytes);
  }

  /** Terminal lanes: the filter advanced over `skipped` (the held bytes before the tail). */
  filterAt(skipped: Uint8Array): TerminalFilter | undefined {
    if (!this.#shadow) return undefined;
    this.#shadow.filter.advance(this.#shadow.sanitizer.push(skipped));
    return this.#shadow.filter;
  }

  #evict(bytes: Uint8Array): void {
    this.#evicted = true;
    this.#counter = undefined;
    if (this.#shadow) this.#shadow.filter.advance(this.#shadow.sanitizer.push(bytes));
  }
}
