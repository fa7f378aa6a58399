// Which trees `--changes` compares: the effective writable roots of the policy (nested ones
// folded into their parent) and, inside them, the paths the command could not write (protected
// and denied rules), which are left out of the scan. Pure.
import { findGoverningRule, isWithin } from '../policy/access.ts';
import type { SandboxPolicy } from '../policy/types.ts';

export interface ScanRoot {
  readonly path: string;
  /** Paths inside the root that are not writable: not scanned. */
  readonly excluded: readonly string[];
}

/** Virtual file systems never scanned, even under a writable '/'. */
export const VIRTUAL_DIRS = ['/proc', '/sys', '/dev'] as const;

export function changeRoots(policy: SandboxPolicy | undefined, cwd: string): ScanRoot[] {
  if (!policy) return [{ path: cwd, excluded: [] }];
  const writable = policy.rules
    // The sandbox cache is cordon's own private store, not something the user's tree gained.
    .filter(
      (r) =>
        r.access === 'write' && r.source.kind !== 'cache' && findGoverningRule(policy.rules, r.path) === r,
    )
    .map((r) => r.path);
  const closed = policy.rules.filter((r) => r.access !== 'write').map((r) => r.path);
  // A writable root folds into an enclosing one unless a closed path lies between them.
  const folds = (p: string, q: string) =>
    q !== p && isWithin(p, q) && !closed.some((e) => e !== q && isWithin(e, q) && isWithin(p, e));
  const tops = writable.filter((p) => !writable.some((q) => folds(p, q)));
  return tops.map((root) => ({
    path: root,
    excluded: [
      ...closed.filter((e) => e !== root && isWithin(e, root)),
      ...(root === '/' ? VIRTUAL_DIRS : []),
    ],
  }));
}
