// A profile as written by a user or shipped in profiles/: YAML or JSON, the same parser.
import type { LimitName, ResourceLimits } from '../limits/types.ts';
import type { Access, Network } from '../policy/types.ts';

/**
 * The sandbox cache (docs/caches.md): `workspace` gives each working directory its own
 * writable cache, `shared` one cache for every workspace of the user, `off` none.
 */
export type CacheMode = 'shared' | 'workspace' | 'off';
export const CACHE_MODES: readonly CacheMode[] = ['workspace', 'shared', 'off'];

export interface ProfileRuleSpec {
  readonly path: string;
  readonly access: Access;
  /** Index in the file's filesystem list, for messages ("filesystem[3]"). */
  readonly index: number;
  readonly profile: string;
}

export interface ProfileEnvSpec {
  readonly keep: readonly string[];
  readonly set: Readonly<Record<string, string>>;
  readonly drop: readonly string[];
}

export interface ProfileSpec {
  readonly name: string;
  readonly extends?: string | undefined;
  readonly network?: Network | undefined;
  /** macOS: the command may listen on (and connect to) loopback with the network off. */
  readonly localBinding?: boolean | undefined;
  /** Hosts reachable through cordon's proxy (HOST[:PORT]); a child's list adds to its parent's. */
  readonly allowNet?: readonly string[] | undefined;
  readonly privateTmp?: boolean | undefined;
  readonly cache?: CacheMode | undefined;
  /** Resource limits (0 = off); a child's key overrides its parent's. */
  readonly limits?: ResourceLimits | undefined;
  readonly filesystem: readonly ProfileRuleSpec[];
  readonly env: ProfileEnvSpec;
}

/** A profile with its extends chain applied. */
export interface MergedProfile {
  readonly name: string;
  readonly chain: readonly string[];
  readonly network: Network;
  readonly localBinding: boolean;
  readonly allowNet: readonly string[];
  readonly privateTmp: boolean;
  readonly cache: CacheMode;
  /** Each limit with the profile that set it (0 = off). */
  readonly limits: { readonly [K in LimitName]?: { readonly value: number; readonly profile: string } };
  readonly filesystem: readonly ProfileRuleSpec[];
  readonly env: ProfileEnvSpec;
}
