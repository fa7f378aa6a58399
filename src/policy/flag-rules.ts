// The command line's rules against the profile's, on exactly the same path. Deeper rules
// already win by depth; on the same path a --read/--write/--deny flag is the user's latest
// word, so it replaces the profile's (or cordon's cache) rule there and keeps a note of what
// it replaced, which explain prints. Two flags that give one path different access are a
// contradiction and are refused: one of them would be ignored. A --read/--write on a path
// that does not exist is refused too (no backend can grant a path that is not there, and
// "exact or refuse" rules out running with the grant silently skipped).
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { Access, PolicyRule, RuleSource } from './types.ts';

const FLAG_OF: Record<Access, '--read' | '--write' | '--deny'> = {
  read: '--read',
  write: '--write',
  none: '--deny',
};

function describeReplaced(rule: PolicyRule): string {
  const s = rule.source;
  const where =
    s.kind === 'profile'
      ? `profile ${s.profile} filesystem[${s.index}]`
      : s.kind === 'cache'
        ? 'the sandbox cache'
        : s.kind;
  return `${where}: ${rule.access}`;
}

/** Refuses two flags naming one (canonical) path with different access. */
function checkContradictions(flagRules: readonly PolicyRule[], shown: (path: string) => string): void {
  const byPath = new Map<string, PolicyRule>();
  for (const rule of flagRules) {
    const prior = byPath.get(rule.path);
    if (prior && prior.access !== rule.access) {
      throw new CordonError(
        'bad-flag',
        `${FLAG_OF[prior.access]} and ${FLAG_OF[rule.access]} both name '${shown(rule.path)}' — keep one of them`,
      );
    }
    byPath.set(rule.path, rule);
  }
}

/**
 * Refuses a --read/--write flag on a path that does not exist (called by preparePlan on the
 * real host; the backends skip a missing grant, which is right for a profile's list of
 * maybe-present paths and wrong for a path the user named).
 */
export function checkFlagPathsExist(rules: readonly PolicyRule[], host: HostInfo): void {
  for (const rule of rules) {
    if (rule.source.kind !== 'flag' || rule.access === 'none' || host.kind(rule.path) !== 'missing') continue;
    const flag = FLAG_OF[rule.access];
    throw new CordonError(
      'bad-path',
      `${flag} '${rule.path}': no such file or directory — create it first (mkdir -p '${rule.path}'), or give ${flag} a directory that exists above it`,
    );
  }
}

/**
 * The rules with every flag rule winning its path: a profile or cache rule on the same path
 * is dropped and named in the flag rule's source (`overrides`). `logicalOf` maps a canonical
 * path back to how the user wrote it, for messages.
 */
export function applyFlagRules(
  rules: readonly PolicyRule[],
  logicalOf: (path: string) => string = (p) => p,
): PolicyRule[] {
  const flagRules = rules.filter((r) => r.source.kind === 'flag');
  checkContradictions(flagRules, logicalOf);
  const flagPaths = new Set(flagRules.map((r) => r.path));
  const replaced = new Map<string, PolicyRule[]>();
  const kept: PolicyRule[] = [];
  for (const rule of rules) {
    if (rule.source.kind !== 'flag' && flagPaths.has(rule.path)) {
      replaced.set(rule.path, [...(replaced.get(rule.path) ?? []), rule]);
      continue;
    }
    kept.push(rule);
  }
  return kept.map((rule) => {
    const gone = replaced.get(rule.path);
    if (rule.source.kind !== 'flag' || !gone) return rule;
    const differing = gone.filter((g) => g.access !== rule.access);
    if (differing.length === 0) return rule;
    const source: RuleSource = { ...rule.source, overrides: differing.map(describeReplaced).join(', ') };
    return { ...rule, source };
  });
}
