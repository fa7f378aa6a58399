// The launcher side of the Seatbelt plan's private temp dir: right before the spawn, make the
// per-run directory (mkdtemp under the user's canonical $TMPDIR, mode 0700, a fresh random name
// so concurrent runs never share one) and put its path into the plan (-DPRIVATE_TMP, TMPDIR);
// after the run, remove it with everything the command left in it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { withPrivateTmpDir } from '../../plan/macos/seatbelt.ts';
import type { SeatbeltPlan } from '../../plan/types.ts';

const TEMPLATE_SUFFIX = 'XXXXXX';

export interface PreparedTmp {
  readonly plan: SeatbeltPlan;
  readonly cleanup: () => void;
}

export function prepareSeatbeltTmp(plan: SeatbeltPlan): PreparedTmp {
  const template = plan.privateTmp?.path;
  if (template === undefined || !template.endsWith(TEMPLATE_SUFFIX)) return { plan, cleanup: () => {} };
  const dir = mkdtempSync(template.slice(0, -TEMPLATE_SUFFIX.length));
  chmodSync(dir, 0o700);
  return {
    plan: withPrivateTmpDir(plan, dir),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
