// Rule-level helpers of the Windows plan builder: canonical, case-merged rules; the access a
// path's parent really has; one ACE for a rule (rights, inheritance, capability SID).
import { CordonError } from '../../errors.ts';
import { findGoverningRule, isWithin } from '../../policy/access.ts';
import type { Access, PolicyRule } from '../../policy/types.ts';
import { canonicalWindowsPath, parentOf, pathKey, toNativePath } from './paths.ts';
import { deriveCordonSid } from './sid.ts';
import {
  ALLOW_WRITE_RIGHTS,
  DENY_WRITE_RIGHTS,
  FILE_RIGHTS,
  INHERIT_CONTAINERS_AND_OBJECTS,
  namedMask,
  type WindowsAce,
} from './spec.ts';

const TIE_RANK: Record<Access, number> = { read: 0, write: 1, none: 2 };
const INHERITANCE = {
  names: ['CONTAINER_INHERIT_ACE', 'OBJECT_INHERIT_ACE'],
  value: INHERIT_CONTAINERS_AND_OBJECTS,
};

/** Canonical spelling, one rule per case-insensitive path (the tie winner), parents first. */
export function canonicalRules(rules: readonly PolicyRule[], drive: string): PolicyRule[] {
  const byKey = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const result = canonicalWindowsPath(rule.path, drive);
    if (!result.ok)
      throw new CordonError(
        'bad-path',
        `cannot place a Windows ACL for the rule '${rule.path}' — ${result.reason}`,
      );
    const canonical = { ...rule, path: result.value.path };
    const key = pathKey(canonical.path);
    const existing = byKey.get(key);
    if (!existing || TIE_RANK[canonical.access] > TIE_RANK[existing.access]) byKey.set(key, canonical);
  }
  const depth = (p: string) => (p === '/' ? 0 : p.split('/').filter(Boolean).length);
  return [...byKey.values()].sort(
    (a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

/**
 * Access the parent of `path` really has, ignoring the rule on `path` itself: 'write' only
 * when the write rule governing it got an allow ACE (a missing or refused root grants nothing,
 * so nothing beneath it needs a deny ACE).
 */
export function parentAccess(
  rules: readonly PolicyRule[],
  path: string,
  aces: readonly WindowsAce[],
): Access {
  if (path === '/') return 'none';
  const others = rules.filter((r) => pathKey(r.path) !== pathKey(path));
  const governing = findGoverningRule(others, parentOf(path));
  if (!governing) return 'none';
  if (governing.access !== 'write') return governing.access;
  const granted = aces.some((a) => a.type === 'allow' && isWithin(governing.path, a.path));
  return granted ? 'write' : 'read';
}

export function canonicalCwd(cwd: string): string {
  const result = canonicalWindowsPath(cwd);
  if (!result.ok || result.value.kind === 'all')
    throw new CordonError(
      'bad-cwd',
      `working directory '${cwd}' is not usable on Windows — ${result.ok ? 'not a directory' : result.reason}`,
    );
  return result.value.path;
}

export function describe(rule: PolicyRule): string {
  switch (rule.source.kind) {
    case 'profile':
      return `profile ${rule.source.profile}`;
    case 'flag':
      return `flag ${rule.source.flag}`;
    case 'protected':
      return `protected: ${rule.source.reason}`;
    case 'private-tmp':
      return 'private temp dir';
    case 'cache':
      return rule.source.part === 'tools' ? 'sandbox cache' : 'sandbox cache (sanitized config copies)';
  }
}

/** Files carry no inheritance flags (nothing inherits from a file); directories CI|OI. */
const NO_INHERITANCE = { names: [] as string[], value: 0 };

export function makeAce(
  path: string,
  type: 'allow' | 'deny',
  isDir: boolean,
  exists: boolean,
  reason: string,
): WindowsAce {
  const names = type === 'allow' ? ALLOW_WRITE_RIGHTS : DENY_WRITE_RIGHTS;
  return {
    path,
    nativePath: toNativePath(path),
    type,
    sid: deriveCordonSid(type === 'allow' ? 'write-root' : 'carve-out', path),
    rights: namedMask(FILE_RIGHTS, names),
    inheritance: isDir ? INHERITANCE : NO_INHERITANCE,
    exists,
    reason,
  };
}
