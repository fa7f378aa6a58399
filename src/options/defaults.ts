// Named defaults with their units. Every number that shapes a run lives here.

/**
 * Combined stdout+stderr budget in rendered bytes. 64 KiB is about 1,000 lines: it fits in a
 * terminal's scrollback and a CI log without burying the summary, and it is small enough that
 * an agent can feed it to a model. Use --max-output 0 for unlimited.
 */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;

/** After the command itself exits, how long to keep reading pipes held open by its leftovers. */
export const DRAIN_AFTER_EXIT_MS = 1000;

/** Between SIGTERM and SIGKILL when a timeout or cancellation stops the command. */
export const KILL_GRACE_MS = 2000;

/** Names kept by --clear-env. */
export const CLEAR_ENV_KEEP = ['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR'] as const;

/** Version of the JSON result schema. Bumped on any incompatible change. */
export const RESULT_SCHEMA_VERSION = 1;

/**
 * Live output: how much may wait to be written to a reader that is not keeping up (a paused
 * pager, a slow CI log) before the rest of the output is held back like the middle.
 */
export const LIVE_WRITE_QUEUE_BYTES = 256 * 1024;

/** Live output: a line on stderr after this long without output while the middle is held back. */
export const LIVE_HEARTBEAT_MS = 30_000;
