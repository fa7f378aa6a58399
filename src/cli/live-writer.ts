// Ordered, non-blocking writes to cordon's stdout and stderr for live output: one queue for
// both descriptors (so a combined log keeps the order the chunks were read in), one write in
// flight at a time on libuv's thread pool, so a reader that blocks never blocks the event loop
// that drains the command. EPIPE (the reader went away) closes that descriptor for good: its
// queued and later bytes are dropped, everything else goes on.
import { write } from 'node:fs';

interface Entry {
  readonly fd: number;
  bytes: Buffer;
}

const COALESCE_BYTES = 256 * 1024;

export class OrderedWriter {
  #queue: Entry[] = [];
  #busy = false;
  #pendingBytes = 0;
  readonly #closed = new Set<number>();
  #idle: (() => void)[] = [];

  /** Bytes queued or in flight. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  isClosed(fd: number): boolean {
    return this.#closed.has(fd);
  }

  write(fd: number, bytes: Buffer): void {
    if (bytes.length === 0 || this.#closed.has(fd)) return;
    const last = this.#queue.at(-1);
    // Coalesce with the last queued entry (not the one in flight, which is already taken).
    if (
      last &&
      last.fd === fd &&
      last.bytes.length + bytes.length <= COALESCE_BYTES &&
      this.#queue.length > 0
    )
      last.bytes = Buffer.concat([last.bytes, bytes]);
    else this.#queue.push({ fd, bytes });
    this.#pendingBytes += bytes.length;
    this.#pump();
  }

  /** Resolves once everything queued so far is written (or dropped). */
  drained(): Promise<void> {
    if (!this.#busy && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #pump(): void {
    if (this.#busy) return;
    const entry = this.#queue.shift();
    if (!entry) {
      const idle = this.#idle;
      this.#idle = [];
      for (const resolve of idle) resolve();
      return;
    }
    this.#busy = true;
    write(entry.fd, entry.bytes, 0, entry.bytes.length, null, (error, written) => {
      this.#busy = false;
      if (error) {
        if (error.code === 'EAGAIN') {
          // A non-blocking descriptor (set by whoever shares it): try again shortly.
          this.#queue.unshift(entry);
          this.#busy = true;
          setTimeout(() => {
            this.#busy = false;
            this.#pump();
          }, 5);
          return;
        }
        this.#close(entry);
      } else {
        this.#pendingBytes -= written;
        if (written < entry.bytes.length)
          this.#queue.unshift({ fd: entry.fd, bytes: entry.bytes.subarray(written) });
      }
      this.#pump();
    });
  }

  #close(entry: Entry): void {
    this.#closed.add(entry.fd);
    this.#pendingBytes -= entry.bytes.length;
    this.#queue = this.#queue.filter((e) => {
      if (e.fd !== entry.fd) return true;
      this.#pendingBytes -= e.bytes.length;
      return false;
    });
  }
}
