// What the restricted-token design cannot hold, whatever the policy (docs/windows.md §9), and
// where the command's job sits. Pure: from the plan's ACEs and HostInfo.
//   1. NTFS grants DELETE on an object when its parent grants FILE_DELETE_CHILD, and a
//      WRITE_RESTRICTED token runs its restricted (capability-SID) pass only for requests with
//      write bits — FILE_DELETE_CHILD is not one — so that check runs as the plain user, who
//      usually has Full Control over their own directories. Deletes and renames outside the
//      writable roots are not blocked, and every carve-out (`.git`, `--read`) can be renamed
//      or deleted through its parent and re-created: protected against writes only.
//      (Codex's tracker, openai/codex#32915, reproduced this on a windows-2025 runner.)
//   2. Writes no local ACL governs: network shares and mapped drives (the file server checks
//      the user), FAT/exFAT volumes (no ACLs), objects with a NULL DACL outside the audited set.
// Both refuse the run (125) unless --best-effort, like every other unenforceable element.
//   3. cordon inside a job (Task Scheduler, OpenSSH, CI agents): the child leaves it when the
//      job allows breakaway; otherwise the child's job is nested in it, and a nested job cannot
//      carry UI limits, so they are dropped and listed (not a refusal: they are defence in
//      depth beside the private window station, not a policy element).
import type { HostInfo } from '../../host/types.ts';
import type { NotEnforced } from '../types.ts';
import type { WindowsAce } from './spec.ts';

export const DELETES_GAP: NotEnforced = {
  path: '/',
  access: 'read',
  reason:
    "only writes an NTFS ACL governs are blocked: deleting or renaming files and directories outside the writable roots is not (Windows checks the parent's FILE_DELETE_CHILD as the user, not against the restricting SIDs), nor are writes to network shares, mapped drives, FAT/exFAT volumes and objects with a NULL DACL",
};

export function carveOutGap(ace: WindowsAce): NotEnforced {
  return {
    path: ace.path,
    access: 'read',
    reason:
      'protected against writes only: it can be renamed or deleted through its parent directory (FILE_DELETE_CHILD is checked as the user) and then re-created',
  };
}

/** Gaps of the design itself: the deletes gap, and one per carve-out (deny ACE). */
export function structuralGaps(aces: readonly WindowsAce[]): NotEnforced[] {
  return [DELETES_GAP, ...aces.filter((a) => a.type === 'deny').map(carveOutGap)];
}

export type JobPlacement = 'own' | 'breakaway' | 'nested';

export interface JobDecision {
  readonly placement: JobPlacement;
  readonly breakaway: boolean;
  readonly uiLimits: boolean;
  readonly gap?: NotEnforced;
}

export function decideJob(host: HostInfo): JobDecision {
  const job = host.windowsJob;
  if (!job?.inJob) return { placement: 'own', breakaway: false, uiLimits: true };
  if (job.breakawayAllowed) return { placement: 'breakaway', breakaway: true, uiLimits: true };
  return {
    placement: 'nested',
    breakaway: false,
    uiLimits: false,
    gap: {
      path: '(job UI limits)',
      access: 'ui',
      reason:
        "cordon runs inside a job that does not allow breakaway (Task Scheduler, an OpenSSH session, a CI agent), and a nested job cannot carry UI limits: other processes' USER handles, clipboard, system parameters, display settings, global atoms, desktop switching and ExitWindows are not restricted by the job (the private window station still keeps its own clipboard, atoms and desktop)",
    },
  };
}
