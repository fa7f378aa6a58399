// The split filesystem policy: one model for every OS. A policy is a list of rules
// { path, access } plus a network switch. For any path the rule whose path is the deepest
// component-wise prefix wins; on a tie none > write > read; no matching rule means no access.
// Paths in a resolved SandboxPolicy are absolute and canonical for the host they were built on.

export type Access = 'read' | 'write' | 'none';
export type Network = 'on' | 'off';
export type Platform = 'linux' | 'darwin' | 'win32';

/** Where a rule came from, so explain and denial messages can say which knob to turn. */
export type RuleSource =
  | { kind: 'profile'; profile: string; index: number }
  | {
      kind: 'flag';
      flag: '--read' | '--write' | '--deny';
      /** The profile (or cache) rule on the same path this flag replaced, e.g. "profile workspace filesystem[2]: none". */
      overrides?: string | undefined;
    }
  | { kind: 'protected'; reason: string }
  | { kind: 'private-tmp' }
  /** The sandbox cache (writable tool caches) or its read-only sanitized config copies. */
  | { kind: 'cache'; part: 'tools' | 'config' };

export interface PolicyRule {
  readonly path: string;
  readonly access: Access;
  readonly source: RuleSource;
}

export interface SandboxPolicy {
  readonly platform: Platform;
  readonly rules: readonly PolicyRule[];
  readonly network: Network;
  /**
   * Loopback listening and connecting with the network off (profile key `localBinding`). Only
   * Seatbelt needs it: macOS has one loopback, the host's. Absent means off.
   */
  readonly localBinding?: boolean | undefined;
  /** The backend gives the command a fresh, empty, writable temp dir and points TMPDIR at it. */
  readonly privateTmp: boolean;
  /** Canonical policy cwd; also where the command runs. */
  readonly cwd: string;
  /** Name of the profile the policy was built from (for display). */
  readonly profile: string;
  /**
   * Canonical host paths of unix sockets the command may connect to (--allow-unix; every
   * backend that mediates unix sockets honours them). Absent means none.
   */
  readonly allowUnix?: readonly string[] | undefined;
  /**
   * The network allowlist (--allow-net, profile key allowNet): entry texts, already validated.
   * When present the network is 'off' (the backend's own namespace) and cordon's proxy is the
   * command's only way out ("proxy mode"). Absent means no allowlist.
   */
  readonly allowNet?: readonly string[] | undefined;
}

export function describeSource(source: RuleSource): string {
  switch (source.kind) {
    case 'profile':
      return `profile ${source.profile} (filesystem[${source.index}])`;
    case 'flag':
      return source.overrides ? `flag ${source.flag} (overrides ${source.overrides})` : `flag ${source.flag}`;
    case 'protected':
      return `protected (${source.reason})`;
    case 'private-tmp':
      return 'private temp dir';
    case 'cache':
      return source.part === 'tools' ? 'sandbox cache' : 'sandbox cache (sanitized config copies)';
  }
}
