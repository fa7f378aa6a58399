// One escape-sequence parser, two uses. 'filter' (the output is a terminal): an allow-list —
// printable text, CR/LF/TAB/BS, SGR and cursor/erase CSI pass; OSC, DCS, APC, PM, SOS, other
// escapes, mode changes, queries, C1 controls and other C0 controls are dropped; a sequence is
// written only once complete, so the terminal is never left inside one. 'observe' (a pipe or a
// file): bytes pass unchanged and the parser only tracks what a viewer of the log would be in
// (an open string, a half-read sequence, non-default attributes). State carries across chunks.

export type FilterMode = 'filter' | 'observe';

type State = 'ground' | 'esc' | 'escInter' | 'csi' | 'csiIgnore' | 'string' | 'stringEsc';

const ESC = 0x1b;
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const CSI_MAX = 64;
// Cursor movement and position (CUU..CHA, CUP, HVP, VPA, HPA, HPR, VPR), erase (ED, EL, ECH), SGR.
const ALLOWED_FINALS = new Set([...'ABCDEFGHfd`aeJKXm'].map((c) => c.charCodeAt(0)));

function isPassedC0(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0d || b === 0x08;
}

export class TerminalFilter {
  readonly #mode: FilterMode;
  #state: State = 'ground';
  #isOsc = false;
  #csi: number[] = [];
  #utf8Need = 0; // continuation bytes still expected after a passed lead byte
  #pendingC2 = false; // a 0xC2 lead held to see whether a C1 control follows
  #dirty = false; // non-default attributes in effect on the output side

  constructor(mode: FilterMode) {
    this.#mode = mode;
  }

  /** Inside OSC/DCS/APC/PM/SOS (observe mode: the log is; filter mode: the stream is). */
  get inString(): boolean {
    return this.#state === 'string' || this.#state === 'stringEsc';
  }

  /** Inside an escape or control sequence that has not reached its final byte. */
  get inSequence(): boolean {
    return (
      this.#state === 'esc' ||
      this.#state === 'escInter' ||
      this.#state === 'csi' ||
      this.#state === 'csiIgnore'
    );
  }

  /** An SGR other than a reset was passed and not reset since. */
  get attributesDirty(): boolean {
    return this.#dirty;
  }

  /**
   * cordon wrote its own line after ending strings and resetting attributes: the output side
   * is clean again. In observe mode that is also the parser's state (the log's bytes); in
   * filter mode the stream's own parse state goes on (the terminal never saw the string).
   */
  noteReset(): void {
    this.#dirty = false;
    if (this.#mode === 'observe') {
      this.#state = 'ground';
      this.#csi = [];
    }
  }

  /** Filter mode: the bytes to write; observe mode: the same bytes, after tracking state. */
  write(bytes: Uint8Array): Buffer {
    if (this.#mode === 'observe') {
      this.#observe(bytes);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    const out = Buffer.allocUnsafe(bytes.length + CSI_MAX + 8);
    let n = 0;
    const emit = (b: number) => {
      out[n++] = b;
    };
    // Some transitions hand the same byte on to the next state (#step returns true).
    for (let i = 0; i < bytes.length; i++) while (this.#step(bytes[i]!, emit)) {}
    return Buffer.from(out.subarray(0, n));
  }

  /** Runs the parser over bytes without writing anything (the held-back middle). */
  advance(bytes: Uint8Array): void {
    const none = () => {};
    for (let i = 0; i < bytes.length; i++) while (this.#step(bytes[i]!, none)) {}
  }

  /** An independent copy in the same state. */
  clone(): TerminalFilter {
    const copy = new TerminalFilter(this.#mode);
    copy.#state = this.#state;
    copy.#isOsc = this.#isOsc;
    copy.#csi = [...this.#csi];
    copy.#utf8Need = this.#utf8Need;
    copy.#pendingC2 = this.#pendingC2;
    copy.#dirty = this.#dirty;
    return copy;
  }

  // Observe mode only tracks state, so text without ESC in ground state is skipped whole.
  #observe(bytes: Uint8Array): void {
    let i = 0;
    if (this.#state === 'ground') {
      const at = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).indexOf(ESC);
      if (at === -1) return;
      i = at;
    }
    const none = () => {};
    for (; i < bytes.length; i++) {
      while (this.#step(bytes[i]!, none)) {}
    }
  }

  /** One byte; returns true when the byte must be processed again in the new state. */
  #step(b: number, emit: (b: number) => void): boolean {
    const filtering = this.#mode === 'filter';
    switch (this.#state) {
      case 'ground':
        if (b === ESC) {
          this.#pendingC2 = false;
          this.#utf8Need = 0;
          this.#state = 'esc';
          return false;
        }
        if (filtering) this.#ground(b, emit);
        return false;
      case 'esc':
      case 'escInter':
        return this.#escape(b, emit);
      case 'csi':
      case 'csiIgnore':
        return this.#csiByte(b, emit);
      case 'string':
        if (b === ESC) this.#state = 'stringEsc';
        else if (b === CAN || b === SUB || (b === BEL && this.#isOsc)) this.#state = 'ground';
        return false;
      case 'stringEsc':
        if (b === 0x5c) {
          this.#state = 'ground';
          return false;
        }
        // ESC inside a string ends it and starts a new escape.
        this.#state = 'esc';
        return true;
    }
  }

  #ground(b: number, emit: (b: number) => void): void {
    if (this.#pendingC2) {
      this.#pendingC2 = false;
      if (b >= 0x80 && b <= 0x9f) return; // C1 control encoded in UTF-8: dropped
      if (b >= 0xa0 && b <= 0xbf) {
        emit(0xc2);
        emit(b);
        return;
      }
      // lone 0xC2: dropped; b is handled below
    }
    if (this.#utf8Need > 0) {
      if (b >= 0x80 && b <= 0xbf) {
        this.#utf8Need--;
        emit(b);
        return;
      }
      this.#utf8Need = 0;
    }
    if (b < 0x80) {
      if ((b >= 0x20 && b < 0x7f) || isPassedC0(b)) emit(b);
      return;
    }
    if (b === 0xc2) this.#pendingC2 = true;
    else if (b >= 0xc3 && b <= 0xdf) this.#lead(b, 1, emit);
    else if (b >= 0xe0 && b <= 0xef) this.#lead(b, 2, emit);
    else if (b >= 0xf0 && b <= 0xf4) this.#lead(b, 3, emit);
    // other bytes (stray continuations, C0/C1 in 8 bits, 0xC0/0xC1/0xF5..) are dropped
  }

  #lead(b: number, need: number, emit: (b: number) => void): void {
    this.#utf8Need = need;
    emit(b);
  }

  #escape(b: number, emit: (b: number) => void): boolean {
    const filtering = this.#mode === 'filter';
    if (b === CAN || b === SUB) {
      this.#state = 'ground';
      return false;
    }
    if (b === ESC) {
      this.#state = 'esc';
      return false;
    }
    if (b < 0x20) {
      if (filtering && isPassedC0(b)) emit(b); // C0 controls act inside escapes
      return false;
    }
    if (b >= 0x80) {
      this.#state = 'ground';
      return true;
    }
    if (b >= 0x20 && b <= 0x2f) {
      this.#state = 'escInter';
      return false;
    }
    if (b === 0x7f) return false;
    if (this.#state === 'esc') {
      if (b === 0x5b) {
        this.#state = 'csi';
        this.#csi = [];
        return false;
      }
      if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
        this.#state = 'string';
        this.#isOsc = b === 0x5d;
        return false;
      }
    }
    this.#state = 'ground'; // any other escape (charsets, RIS, DECSC, keypad, DECID…): dropped
    return false;
  }

  #csiByte(b: number, emit: (b: number) => void): boolean {
    const filtering = this.#mode === 'filter';
    if (b === CAN || b === SUB) {
      this.#state = 'ground';
      return false;
    }
    if (b === ESC) {
      this.#state = 'esc';
      return false;
    }
    if (b < 0x20) {
      if (filtering && isPassedC0(b)) emit(b);
      return false;
    }
    if (b === 0x7f) return false;
    if (b >= 0x80) {
      this.#state = 'ground';
      return true;
    }
    if (b >= 0x40) {
      if (this.#state === 'csi') this.#finishCsi(b, emit);
      this.#state = 'ground';
      return false;
    }
    if (this.#state === 'csi') {
      if (this.#csi.length >= CSI_MAX) this.#state = 'csiIgnore';
      else this.#csi.push(b);
    }
    return false;
  }

  #finishCsi(final: number, emit: (b: number) => void): void {
    const params = this.#csi;
    this.#csi = [];
    // Only plain numeric parameters: a private marker (<=>?) or an intermediate makes it a
    // mode change, a query or something else not on the list.
    const plain = params.every((p) => (p >= 0x30 && p <= 0x39) || p === 0x3b || p === 0x3a);
    if (!plain || !ALLOWED_FINALS.has(final)) return;
    if (final === 0x6d) this.#dirty = !params.every((p) => p === 0x30 || p === 0x3b);
    if (this.#mode !== 'filter') return;
    emit(ESC);
    emit(0x5b);
    for (const p of params) emit(p);
    emit(final);
  }
}
