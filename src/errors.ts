// CordonError: the one error type cordon throws for its own failures (bad input, no usable
// backend, a policy a backend cannot enforce). Every instance maps to exit 125 and carries a
// stable kebab-case code plus a message shaped "what failed — the value — how to fix it".
// A child's failure, signal, timeout or truncation is never an error: it is data in RunResult.

export type CordonErrorCode =
  | 'bad-flag'
  | 'bad-duration'
  | 'bad-size'
  | 'bad-env'
  | 'bad-cwd'
  | 'unusable-cwd'
  | 'bad-path'
  | 'missing-command'
  | 'bad-command'
  | 'bad-option'
  | 'bad-profile'
  | 'bad-config'
  | 'profile-not-found'
  | 'unknown-backend'
  | 'backend-unavailable'
  | 'no-backend'
  | 'policy-unenforceable'
  | 'limit-unenforceable'
  | 'cgroup-failed'
  | 'unsafe-symlink'
  | 'broad-root'
  | 'unsafe-cache'
  | 'report-failed'
  | 'native-module'
  | 'internal';

/** cordon's own failure: nothing was run (unless the message says otherwise). Exit code 125. */
export class CordonError extends Error {
  readonly code: CordonErrorCode;
  readonly exitCode = 125;

  constructor(code: CordonErrorCode, message: string) {
    super(message);
    this.name = 'CordonError';
    this.code = code;
  }
}

export function isCordonError(value: unknown): value is CordonError {
  return value instanceof CordonError;
}
