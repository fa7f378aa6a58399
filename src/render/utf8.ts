// UTF-8 scanning shared by the renderer: split bytes into units (a valid character, or one
// maximal invalid subpart that renders as U+FFFD, 3 bytes), so cuts never split a character
// and rendered sizes are known exactly before any text is produced.

import { isUtf8 } from 'node:buffer';

const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/** Length of the unit starting at i and whether it is a valid character. */
export function scanUnit(
  bytes: Uint8Array,
  i: number,
): { length: number; valid: boolean; complete: boolean } {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return { length: 1, valid: true, complete: true };
  let need: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) need = 1;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    need = 2;
    if (b0 === 0xe0) lo = 0xa0;
    if (b0 === 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    need = 3;
    if (b0 === 0xf0) lo = 0x90;
    if (b0 === 0xf4) hi = 0x8f;
  } else return { length: 1, valid: false, complete: true };
  let j = 1;
  for (; j <= need; j++) {
    if (i + j >= bytes.length) return { length: j, valid: false, complete: false };
    const b = bytes[i + j]!;
    const min = j === 1 ? lo : 0x80;
    const max = j === 1 ? hi : 0xbf;
    if (b < min || b > max) return { length: j, valid: false, complete: true };
  }
  return { length: need + 1, valid: true, complete: true };
}

/** Rendered size (after U+FFFD replacement) of bytes, scanning as one run. */
export function renderedSize(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return bytes.length;
  let size = 0;
  for (let i = 0; i < bytes.length; ) {
    const u = scanUnit(bytes, i);
    size += u.valid ? u.length : 3;
    i += u.length;
  }
  return size;
}

/** Whether bytes are entirely valid UTF-8 (fast path via the built-in validator). */
export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/** Bytes with each invalid unit replaced by U+FFFD. */
export function toValidUtf8(bytes: Uint8Array): Buffer {
  if (isUtf8(bytes)) return Buffer.from(bytes);
  const parts: Uint8Array[] = [];
  let runStart = 0;
  for (let i = 0; i < bytes.length; ) {
    const u = scanUnit(bytes, i);
    if (!u.valid) {
      if (i > runStart) parts.push(bytes.subarray(runStart, i));
      parts.push(REPLACEMENT);
      runStart = i + u.length;
    }
    i += u.length;
  }
  if (runStart < bytes.length) parts.push(bytes.subarray(runStart));
  return Buffer.concat(parts);
}

/**
 * Longest prefix of `bytes` whose rendered size fits `budget`, never ending inside a unit.
 * When `dropIncompleteEnd`, a truncated character at the very end is left out (it continues
 * in the omitted gap rather than being rendered as U+FFFD).
 */
export function fitPrefix(
  bytes: Uint8Array,
  budget: number,
  dropIncompleteEnd: boolean,
): { rawBytes: number; renderedBytes: number } {
  // Fast path (valid text, the common case): cut at the budget, back off to a character
  // boundary, and take it when the scan below would stop there too; otherwise scan.
  const cut = Math.min(budget, bytes.length);
  let end = cut;
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  if (isUtf8(bytes.subarray(0, end))) {
    if (end === bytes.length) return { rawBytes: end, renderedBytes: end };
    const next = scanUnit(bytes, end);
    if ((next.valid && end + next.length > budget) || (!next.complete && dropIncompleteEnd))
      return { rawBytes: end, renderedBytes: end };
  }
  let raw = 0;
  let rendered = 0;
  while (raw < bytes.length) {
    const u = scanUnit(bytes, raw);
    if (!u.complete && dropIncompleteEnd) break;
    const size = u.valid ? u.length : 3;
    if (rendered + size > budget) break;
    rendered += size;
    raw += u.length;
  }
  return { rawBytes: raw, renderedBytes: rendered };
}

/** Offset where scanning of a tail that may start mid-character should begin (skips up to 3 continuation bytes). */
export function tailStart(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i]! & 0xc0) === 0x80) i++;
  // If 4+ continuation bytes lead, they are invalid anyway; start after the first 3.
  return i;
}

/**
 * Longest suffix of `bytes` (scanned from `start`) whose rendered size fits `budget`,
 * starting on a unit boundary.
 */
export function fitSuffix(
  bytes: Uint8Array,
  start: number,
  budget: number,
): { rawBytes: number; renderedBytes: number } {
  // Fast path: valid text from `start` on (start is a unit boundary): every unit renders as
  // its own bytes, so the suffix starts at the first boundary at or after length - budget.
  if (isUtf8(bytes.subarray(start))) {
    let from = Math.max(start, bytes.length - budget);
    while (from < bytes.length && (bytes[from]! & 0xc0) === 0x80) from++;
    return { rawBytes: bytes.length - from, renderedBytes: bytes.length - from };
  }
  // unit boundaries and sizes, forward scan from start
  const offsets: number[] = [];
  const sizes: number[] = [];
  for (let i = start; i < bytes.length; ) {
    const u = scanUnit(bytes, i);
    offsets.push(i);
    sizes.push(u.valid ? u.length : 3);
    i += u.length;
  }
  let rendered = 0;
  let k = offsets.length;
  while (k > 0 && rendered + sizes[k - 1]! <= budget) {
    rendered += sizes[k - 1]!;
    k--;
  }
  const from = k < offsets.length ? offsets[k]! : bytes.length;
  return { rawBytes: bytes.length - from, renderedBytes: rendered };
}
