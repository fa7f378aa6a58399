// The `--changes` step of a run: snapshot before the spawn, compare after the exit. Every
// failure is caught and reported inside the ChangeReport (error), so a scan problem can never
// change the command's output or exit status.
import type { SandboxPolicy } from '../policy/types.ts';
import { buildChangeReport } from './report.ts';
import { changeRoots } from './roots.ts';
import { compareAfter, readFsClockMs, type Snapshot, snapshotBefore } from './scan.ts';
import { type ChangeReport, type ChangesLimits, DEFAULT_CHANGES_LIMITS } from './types.ts';

export interface ChangeTracker {
  finish(): Promise<ChangeReport>;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function startChangeTracking(
  policy: SandboxPolicy | undefined,
  cwd: string,
  limits: ChangesLimits | true,
): Promise<ChangeTracker> {
  const lim = limits === true ? {} : limits;
  const maxFiles = Math.max(0, lim.maxFiles ?? DEFAULT_CHANGES_LIMITS.maxFiles);
  const scan = {
    maxDepth: Math.max(1, lim.maxDepth ?? DEFAULT_CHANGES_LIMITS.maxDepth),
    timeMs: Math.max(0, lim.timeMs ?? DEFAULT_CHANGES_LIMITS.timeMs),
  };
  let roots: string[] = [];
  let before: Snapshot | undefined;
  let since = 0;
  let failure: string | undefined;
  try {
    const scanRoots = changeRoots(policy, cwd);
    roots = scanRoots.map((r) => r.path);
    before = await snapshotBefore(scanRoots, scan);
    since = await readFsClockMs();
  } catch (error) {
    failure = errorText(error);
  }
  return {
    async finish(): Promise<ChangeReport> {
      const empty = { changes: [], skipped: new Map() };
      if (!before) {
        return { ...buildChangeReport(roots, empty, maxFiles, { before: 0, after: 0 }), error: failure };
      }
      try {
        const after = await compareAfter(before, since, scan);
        return buildChangeReport(roots, after, maxFiles, {
          before: before.elapsedMs,
          after: after.elapsedMs,
        });
      } catch (error) {
        return {
          ...buildChangeReport(roots, empty, maxFiles, { before: before.elapsedMs, after: 0 }),
          error: errorText(error),
        };
      }
    },
  };
}
