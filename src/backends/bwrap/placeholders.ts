// Mount points bwrap creates on the host for covered paths that do not exist yet; cordon
// removes them after the run while they are still the empty file bwrap left.
import { lstatSync, rmSync } from 'node:fs';
import type { BwrapPlan } from '../../plan/types.ts';

/** The plan's placeholders that do not exist now (bwrap will create them). */
export function missingPlaceholders(plan: BwrapPlan): string[] {
  return plan.placeholders
    .map((p) => p.path)
    .filter((p) => {
      try {
        lstatSync(p);
        return false;
      } catch {
        return true;
      }
    });
}

export function removePlaceholders(paths: readonly string[]): void {
  for (const path of paths) {
    try {
      const st = lstatSync(path);
      // Only the empty mount point bwrap left; anything else is not ours to delete.
      if (st.isFile() && st.size === 0) rmSync(path, { force: true });
    } catch {
      // already gone
    }
  }
}
