// Access queries over a rule list: the rule whose path is the deepest component-wise prefix
// of the candidate wins; on a tie none > write > read; no matching rule means no access.
// Paths are compared as absolute, already-canonical strings with '/' separators
// (Windows paths are normalized by the Windows builder before it queries).
import type { Access, PolicyRule } from './types.ts';

const TIE_RANK: Record<Access, number> = { read: 0, write: 1, none: 2 };

export function splitComponents(path: string): string[] {
  return path.split('/').filter((c) => c.length > 0);
}

/** Whether `ancestor` equals `path` or is a component-wise prefix of it. */
/** The parent of an absolute POSIX path; '/' for '/' and top-level entries. */
export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function isWithin(path: string, ancestor: string): boolean {
  if (ancestor === '/' || ancestor === path) return true;
  if (/^[A-Za-z]:/.test(ancestor)) {
    // Windows drive paths compare case-insensitively.
    path = path.toLowerCase();
    ancestor = ancestor.toLowerCase();
    if (ancestor === path) return true;
  }
  const base = ancestor.endsWith('/') ? ancestor : `${ancestor}/`;
  return path.startsWith(base);
}

export function depthOf(path: string): number {
  return splitComponents(path).length;
}

/** The rule deciding access to `path`, or undefined when none matches (no access). */
export function findGoverningRule(rules: readonly PolicyRule[], path: string): PolicyRule | undefined {
  let best: PolicyRule | undefined;
  let bestDepth = -1;
  for (const rule of rules) {
    if (!isWithin(path, rule.path)) continue;
    const depth = depthOf(rule.path);
    if (depth > bestDepth || (depth === bestDepth && best && TIE_RANK[rule.access] > TIE_RANK[best.access])) {
      best = rule;
      bestDepth = depth;
    }
  }
  return best;
}

export function resolveAccess(rules: readonly PolicyRule[], path: string): Access {
  return findGoverningRule(rules, path)?.access ?? 'none';
}

export function canRead(rules: readonly PolicyRule[], path: string): boolean {
  return resolveAccess(rules, path) !== 'none';
}

export function canWrite(rules: readonly PolicyRule[], path: string): boolean {
  return resolveAccess(rules, path) === 'write';
}

/**
 * The rules that matter: for each distinct path, the one that wins the tie. Sorted by depth,
 * then path, so builders see parents before children.
 */
export function normalizeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const byPath = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const existing = byPath.get(rule.path);
    if (!existing || TIE_RANK[rule.access] > TIE_RANK[existing.access]) byPath.set(rule.path, rule);
  }
  return [...byPath.values()].sort(
    (a, b) => depthOf(a.path) - depthOf(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

/** Effective access of a rule's own path given all rules (a same-depth tie may override it). */
export function isEffective(rules: readonly PolicyRule[], rule: PolicyRule): boolean {
  return findGoverningRule(rules, rule.path) === rule;
}
