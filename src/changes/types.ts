// What `--changes` reports: files created, modified and deleted under the writable roots,
// found by comparing a snapshot taken before the run with the tree after it. Bounded by a
// listing limit, a depth limit and a scan-time budget; what a limit cut is said, never hidden.

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';
export type ChangeKind = 'created' | 'modified' | 'deleted';

export interface ChangeEntry {
  readonly change: ChangeKind;
  /** Absolute path, decoded as UTF-8 (invalid bytes become U+FFFD; see pathBase64). */
  readonly path: string;
  readonly type: EntryType;
  /** The exact bytes of the path, present only when they are not valid UTF-8. */
  readonly pathBase64?: string | undefined;
}

export type TruncationReason = 'max_files' | 'depth' | 'time' | 'unreadable';

export interface ChangesTruncation {
  readonly code: 'changes_truncated';
  /** How many paths each limit left out: changed files not listed (max_files), directories not scanned (the rest). */
  readonly reasons: Partial<Record<TruncationReason, number>>;
  /** Up to 20 of the left-out paths: unscanned directories first, then unlisted changes. */
  readonly skipped: readonly string[];
  readonly skipped_count: number;
}

export interface ChangeReport {
  /** The writable roots that were compared. */
  readonly roots: readonly string[];
  readonly created: number;
  readonly modified: number;
  readonly deleted: number;
  /** Up to maxFiles changes, sorted by path. */
  readonly entries: readonly ChangeEntry[];
  readonly truncation?: ChangesTruncation | undefined;
  /** Time spent scanning before and after the run. */
  readonly scanMs: { readonly before: number; readonly after: number };
  /** Set when the scan itself failed; the counts then cover only what was compared. */
  readonly error?: string | undefined;
}

export interface ChangesLimits {
  /** Changes listed (text and JSON). Default 20. */
  readonly maxFiles?: number | undefined;
  /** Directory depth below a root that is scanned. Default 64. */
  readonly maxDepth?: number | undefined;
  /** Scan-time budget for each of the two scans, in milliseconds. Default 3000. */
  readonly timeMs?: number | undefined;
}

export const DEFAULT_CHANGES_LIMITS = { maxFiles: 20, maxDepth: 64, timeMs: 3000 } as const;
export const MAX_SKIPPED_LISTED = 20;
