// Comparison → ChangeReport (the JSON shape) and ChangeReport → text lines. Pure.
// Paths keep their exact bytes: JSON carries pathBase64 when a name is not valid UTF-8, and
// text escapes control characters and invalid bytes (\n, \xff) so one change is one line, and
// characters a terminal would act on or that reorder what is shown (C1 controls, bidi
// embeddings, overrides, isolates and marks, line and paragraph separators) as \u{…}.
import {
  type ChangeEntry,
  type ChangeReport,
  type ChangesTruncation,
  MAX_SKIPPED_LISTED,
  type TruncationReason,
} from './types.ts';

type Key = string;

export interface RawComparison {
  readonly changes: readonly { change: ChangeEntry['change']; key: Key; type: ChangeEntry['type'] }[];
  readonly skipped: ReadonlyMap<Key, 'depth' | 'time' | 'unreadable'>;
}

function decodeKey(key: Key): { path: string; pathBase64?: string } {
  const bytes = Buffer.from(key, 'latin1');
  const path = bytes.toString('utf8');
  if (Buffer.from(path, 'utf8').equals(bytes)) return { path };
  return { path, pathBase64: bytes.toString('base64') };
}

export function buildChangeReport(
  roots: readonly string[],
  raw: RawComparison,
  maxFiles: number,
  scanMs: { before: number; after: number },
): ChangeReport {
  const sorted = [...raw.changes].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const count = (kind: ChangeEntry['change']) => sorted.filter((c) => c.change === kind).length;
  const listed = sorted.slice(0, maxFiles);
  const entries: ChangeEntry[] = listed.map((c) => ({ change: c.change, ...decodeKey(c.key), type: c.type }));
  const reasons: Partial<Record<TruncationReason, number>> = {};
  const skippedKeys: Key[] = [];
  for (const reason of ['depth', 'time', 'unreadable'] as const) {
    const keys = [...raw.skipped].filter(([, r]) => r === reason).map(([k]) => k);
    if (keys.length > 0) reasons[reason] = keys.length;
    skippedKeys.push(...keys.sort());
  }
  const unlisted = sorted.slice(maxFiles).map((c) => c.key);
  if (unlisted.length > 0) reasons.max_files = unlisted.length;
  skippedKeys.push(...unlisted);
  const truncation: ChangesTruncation | undefined =
    skippedKeys.length === 0
      ? undefined
      : {
          code: 'changes_truncated',
          reasons,
          skipped: skippedKeys.slice(0, MAX_SKIPPED_LISTED).map((k) => decodeKey(k).path),
          skipped_count: skippedKeys.length,
        };
  return {
    roots: [...roots],
    created: count('created'),
    modified: count('modified'),
    deleted: count('deleted'),
    entries,
    truncation,
    scanMs: { before: Math.round(scanMs.before), after: Math.round(scanMs.after) },
  };
}

/** One-line form of a path: control characters and invalid UTF-8 bytes escaped. */
export function escapePath(path: string, pathBase64?: string): string {
  return escapeBytes(
    pathBase64 !== undefined ? Buffer.from(pathBase64, 'base64') : Buffer.from(path, 'utf8'),
  );
}

/**
 * Code points shown as \u{…}: C1 controls (U+0080–U+009F; U+009B is a CSI on some terminals),
 * bidi marks, embeddings, overrides and isolates (U+061C, U+200E–U+200F, U+202A–U+202E,
 * U+2066–U+2069), and the line and paragraph separators (U+2028, U+2029).
 */
export function isInvisibleControl(cp: number): boolean {
  return (
    (cp >= 0x80 && cp <= 0x9f) ||
    cp === 0x61c ||
    cp === 0x200e ||
    cp === 0x200f ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0x2028 ||
    cp === 0x2029
  );
}

export function escapeBytes(bytes: Buffer): string {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const len = b < 0x80 ? 1 : b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    let ch: string | undefined;
    if (len > 0 && i + len <= bytes.length) {
      try {
        ch = decoder.decode(bytes.subarray(i, i + len));
      } catch {
        ch = undefined;
      }
    }
    if (ch === undefined) {
      out += `\\x${b.toString(16).padStart(2, '0')}`;
      i += 1;
      continue;
    }
    if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch.length === 1 && (ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
      out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else if (isInvisibleControl(ch.codePointAt(0)!)) out += `\\u{${ch.codePointAt(0)!.toString(16)}}`;
    else out += ch;
    i += len;
  }
  return out;
}

/** The entry's exact bytes, relative to cwd when inside it. */
function shownBytes(e: ChangeEntry, cwd: string): Buffer {
  const bytes =
    e.pathBase64 !== undefined ? Buffer.from(e.pathBase64, 'base64') : Buffer.from(e.path, 'utf8');
  const prefix = Buffer.from(cwd === '/' ? '/' : `${cwd}/`, 'utf8');
  if (bytes.equals(Buffer.from(cwd, 'utf8'))) return Buffer.from('.');
  if (bytes.length > prefix.length && bytes.subarray(0, prefix.length).equals(prefix))
    return bytes.subarray(prefix.length);
  return bytes;
}

const MARK: Record<ChangeEntry['change'], string> = { created: '+', modified: '~', deleted: '-' };
const REASON_TEXT: Record<Exclude<TruncationReason, 'max_files'>, string> = {
  depth: 'below the depth limit',
  time: 'over the scan-time budget',
  unreadable: 'unreadable',
};

/** Text lines (without the `cordon: ` prefix): a summary, the listed paths, what was cut. */
export function renderChangeLines(report: ChangeReport, cwd: string): string[] {
  const lines: string[] = [];
  if (report.error !== undefined)
    lines.push(`changes: scan failed (${report.error}); the list may be partial`);
  const total = report.created + report.modified + report.deleted;
  lines.push(
    total === 0
      ? 'changes: none'
      : `changes: ${report.created} created, ${report.modified} modified, ${report.deleted} deleted`,
  );
  for (const e of report.entries)
    lines.push(`  ${MARK[e.change]} ${escapeBytes(shownBytes(e, cwd))}${e.type === 'dir' ? '/' : ''}`);
  const reasons = report.truncation?.reasons ?? {};
  if (reasons.max_files)
    lines.push(
      `  ${reasons.max_files} more changed file${reasons.max_files === 1 ? '' : 's'} not listed (max_files)`,
    );
  for (const reason of ['depth', 'time', 'unreadable'] as const) {
    const n = reasons[reason];
    if (n)
      lines.push(
        `  ${n} director${n === 1 ? 'y' : 'ies'} not compared: ${REASON_TEXT[reason]} (${reason}); changes there are not listed`,
      );
  }
  return lines;
}
