// The exact flag that would allow a denied access, proven against the policy: the candidate
// rule is added the way resolvePolicy would add it (including the protected paths a new
// writable root gets, and dropping a protected rule that an exact flag replaces), and the
// access query is asked again. No flag is suggested that the policy would still refuse, nor
// one that would weaken a protection (safe-fix.ts).
import { posix } from 'node:path';
import type { PathKind } from '../host/types.ts';
import { normalizeRules, resolveAccess } from '../policy/access.ts';
import { PROTECTED_NAMES } from '../policy/protected.ts';
import type { PolicyRule, SandboxPolicy } from '../policy/types.ts';
import { unsafeFixReason } from './safe-fix.ts';

export type Need = 'read' | 'write';

/** `~/x` for paths under home, so the flag reads the way a user would type it. */
export function abbreviateHome(path: string, home: string): string {
  if (home.length > 1 && path === home) return '~';
  if (home.length > 1 && path.startsWith(`${home}/`)) return `~${path.slice(home.length)}`;
  return path;
}

/** Single-quotes a flag value when a shell would split or expand it (cordon expands ~ itself). */
export function quoteForShell(value: string): string {
  if (/^[A-Za-z0-9_@%+=:,./~-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function satisfies(access: string, need: Need): boolean {
  return need === 'read' ? access !== 'none' : access === 'write';
}

/** Rules after adding `--read/--write path` as resolvePolicy would. */
export function withFlagRule(rules: readonly PolicyRule[], path: string, need: Need): PolicyRule[] {
  const added: PolicyRule = {
    path,
    access: need,
    source: { kind: 'flag', flag: need === 'read' ? '--read' : '--write' },
  };
  // An exact rule replaces the protection on that path (protected.ts skips exact paths).
  const kept = rules.filter((r) => !(r.path === path && r.source.kind === 'protected'));
  const next = [...kept, added];
  if (need === 'write') {
    for (const name of PROTECTED_NAMES) {
      const inner = path === '/' ? `/${name}` : `${path}/${name}`;
      if (!next.some((r) => r.path === inner) && resolveAccess(next, inner) === 'write')
        next.push({ path: inner, access: 'read', source: { kind: 'protected', reason: name } });
    }
  }
  return normalizeRules(next);
}

export function parentOf(path: string): string {
  const dir = posix.dirname(path);
  return dir === '' ? '/' : dir;
}

/**
 * Where to put the rule: the path itself when it exists; for something to be created, the
 * deepest existing directory above it (a rule on a missing path is skipped by backends).
 */
export function fixTargets(path: string, need: Need, kindOf: (p: string) => PathKind): string[] {
  const targets: string[] = [];
  const kind = kindOf(path);
  if (kind !== 'missing') targets.push(path);
  if (need === 'write' || kind === 'missing') {
    let dir = parentOf(path);
    while (dir !== '/' && kindOf(dir) === 'missing') dir = parentOf(dir);
    if (!targets.includes(dir) && kind === 'missing') targets.push(dir);
  }
  return targets;
}

/** The first target whose flag makes `path` allowed, or undefined when no flag would. */
export function findFixPath(
  rules: readonly PolicyRule[],
  path: string,
  need: Need,
  kindOf: (p: string) => PathKind,
): string | undefined {
  for (const target of fixTargets(path, need, kindOf)) {
    if (satisfies(resolveAccess(withFlagRule(rules, target, need), path), need)) return target;
  }
  return undefined;
}

/**
 * The narrowest flag that allows the access and weakens no protection (safe-fix.ts): the first
 * target that the policy would then allow, unless it is unsafe, in which case why.
 */
export function findSafeFix(
  policy: SandboxPolicy,
  home: string,
  path: string,
  need: Need,
  kindOf: (p: string) => PathKind,
  runsLater: readonly string[] = [],
): { target?: string; refused?: string } {
  for (const target of fixTargets(path, need, kindOf)) {
    const after = withFlagRule(policy.rules, target, need);
    if (!satisfies(resolveAccess(after, path), need)) continue;
    const refused = unsafeFixReason(policy, home, target, need, after, path, runsLater);
    return refused === undefined ? { target } : { refused: `${abbreviateHome(target, home)}: ${refused}` };
  }
  return {};
}
