// World-writable audit. Everyone and the logon SID are restricting SIDs (shells need them for
// pipes and devices), so a directory whose DACL lets Everyone or the logon SID write is
// writable from inside the sandbox even though the policy says read-only. Before each run,
// bounded by count and time, look at the likely ones — the system drive root and its
// subdirectories, PATH directories (a planted tool there runs later as the user), PUBLIC,
// ProgramData — and put a deny-write ACE for the SID every sandbox holds on each one found
// outside the writable roots. The ACE is on the directory object only (no inheritance, so no
// walk of what is below): the command cannot add, delete or rename entries in it; files already
// in it that Everyone may write stay writable (docs/windows.md). Persistent and idempotent like
// the other ACEs. A hit cordon cannot protect (no WRITE_DAC on it) refuses the run.
import { lstatSync, readdirSync } from 'node:fs';
import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';
import type { Win32 } from '../../native/win32.ts';
import { grantsWriteTo } from '../../plan/windows/sddl.ts';
import { DENY_WRITE_RIGHTS, rightsMask } from '../../plan/windows/spec.ts';
import { type AceResult, ensureAce, readDaclSddl } from './acl.ts';

export interface AuditInput {
  readonly sid: string;
  readonly maxEntries: number;
  readonly budgetMs: number;
  readonly writableRoots: readonly string[];
  readonly pathDirs: readonly string[];
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  readonly logonSid: string | undefined;
}

function isDirNoLink(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

function within(path: string, root: string): boolean {
  const p = path.toLowerCase().replace(/\\+$/, '');
  const r = root.toLowerCase().replace(/\\+$/, '');
  return p === r || p.startsWith(`${r}\\`);
}

export function candidateDirs(input: AuditInput): string[] {
  const env = input.hostEnv;
  const drive = `${(env['SystemDrive'] ?? 'C:').replace(/\\+$/, '')}\\`;
  const out = [drive];
  try {
    for (const name of readdirSync(drive)) out.push(winPath.join(drive, name));
  } catch {
    // unreadable root: the root itself is still checked
  }
  out.push(...input.pathDirs, env['PUBLIC'] ?? '', env['ProgramData'] ?? '');
  const seen = new Set<string>();
  return out.filter((p) => {
    if (p === '' || seen.has(p.toLowerCase())) return false;
    seen.add(p.toLowerCase());
    return true;
  });
}

export function auditWorldWritable(w: Win32, input: AuditInput): AceResult[] {
  const started = performance.now();
  const sids = ['WD', 'S-1-1-0', ...(input.logonSid ? [input.logonSid] : [])];
  const results: AceResult[] = [];
  let seen = 0;
  for (const dir of candidateDirs(input)) {
    if (seen++ >= input.maxEntries || performance.now() - started > input.budgetMs) break;
    if (input.writableRoots.some((root) => within(dir, root))) continue;
    if (!isDirNoLink(dir)) continue;
    let sddl: string;
    try {
      sddl = readDaclSddl(w, dir);
    } catch {
      continue; // cannot read its DACL: nothing to decide on
    }
    if (!grantsWriteTo(sddl, sids)) continue;
    try {
      results.push(
        ensureAce(
          w,
          {
            nativePath: dir,
            type: 'deny',
            sid: input.sid,
            rights: rightsMask(DENY_WRITE_RIGHTS),
            inheritance: 0, // the directory itself: no new entries in it; no walk of the tree below
          },
          () => performance.now(),
        ),
      );
    } catch (error) {
      throw new CordonError(
        'policy-unenforceable',
        `'${dir}' can be written by Everyone (or by the logon session), so the sandboxed command could write it too, and cordon cannot add a deny ACE to it (${(error as Error).message}) — remove that access (icacls "${dir}" /remove:g *S-1-1-0) or ask an administrator to`,
      );
    }
  }
  return results;
}
