// Per-stream collector: a copied head (prefix) and a fixed-capacity rolling tail (suffix).
// Invariants: retained bytes <= headCapacity + tailCapacity whatever the total or the chunk
// count; head and tail never overlap (the tail only holds bytes after the head); every byte
// kept is a copy, so no reference to a source chunk survives `push`.
// capacity 0 means unlimited: everything is kept in the head.

export interface CollectedStream {
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly totalBytes: number;
}

export class StreamCollector {
  readonly #unlimited: boolean;
  readonly #capacity: number;
  #headChunks: Buffer[] = [];
  #headBytes = 0;
  #ring: Buffer | undefined;
  #ringStart = 0; // index of the oldest byte in the ring
  #ringBytes = 0;
  #totalBytes = 0;

  constructor(capacityBytes: number) {
    this.#unlimited = capacityBytes === 0;
    this.#capacity = capacityBytes;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  get retainedBytes(): number {
    return this.#headBytes + this.#ringBytes;
  }

  push(chunk: Uint8Array): void {
    this.#totalBytes += chunk.length;
    let rest = chunk;
    if (this.#unlimited || this.#headBytes < this.#capacity) {
      const room = this.#unlimited ? rest.length : Math.min(rest.length, this.#capacity - this.#headBytes);
      if (room > 0) {
        this.#headChunks.push(Buffer.from(rest.subarray(0, room)));
        this.#headBytes += room;
        rest = rest.subarray(room);
      }
    }
    if (rest.length > 0) this.#pushTail(rest);
  }

  #pushTail(bytes: Uint8Array): void {
    const cap = this.#capacity;
    if (cap === 0) return;
    this.#ring ??= Buffer.allocUnsafe(cap);
    const ring = this.#ring;
    let src = bytes;
    if (src.length >= cap) {
      src = src.subarray(src.length - cap);
      ring.set(src, 0);
      this.#ringStart = 0;
      this.#ringBytes = cap;
      return;
    }
    // write position: end of current content
    let writeAt = (this.#ringStart + this.#ringBytes) % cap;
    const first = Math.min(src.length, cap - writeAt);
    ring.set(src.subarray(0, first), writeAt);
    if (first < src.length) ring.set(src.subarray(first), 0);
    writeAt = (writeAt + src.length) % cap;
    const newBytes = this.#ringBytes + src.length;
    if (newBytes > cap) {
      this.#ringBytes = cap;
      this.#ringStart = writeAt;
    } else {
      this.#ringBytes = newBytes;
    }
  }

  snapshot(): CollectedStream {
    const head = Buffer.concat(this.#headChunks, this.#headBytes);
    let tail: Buffer;
    if (!this.#ring || this.#ringBytes === 0) {
      tail = Buffer.alloc(0);
    } else {
      const cap = this.#capacity;
      const end = this.#ringStart + this.#ringBytes;
      tail =
        end <= cap
          ? Buffer.from(this.#ring.subarray(this.#ringStart, end))
          : Buffer.concat([this.#ring.subarray(this.#ringStart), this.#ring.subarray(0, end - cap)]);
    }
    return { head, tail, totalBytes: this.#totalBytes };
  }
}
