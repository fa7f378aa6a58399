// World-writable audit. Everyone and RESTRICTED are restricting SIDs (devices, named objects and
// shells need them), so an object whose DACL lets either write — or that has a NULL DACL — is
// writable from inside the sandbox even though the policy says read-only. Before each run, look
// at the likely places —
// the system drive root and its subdirectories, PATH directories (a planted tool there runs
// later as the user), PUBLIC, ProgramData — outside the writable roots, links not followed, and
// put a deny-write ACE for the SID every sandbox holds on each hit:
//   - a directory other than a drive root: container+object inherit, so what is below and what
//     inherits Everyone's grant (files, subdirectories) is covered too (one propagation, the
//     first time);
//   - a drive root: the directory object only (a whole-drive propagation is not acceptable);
//   - in every hit directory, each file with its own explicit grant to Everyone (an explicit
//     allow comes before an inherited deny): a deny on that file.
// Bounded by a count, not a clock (the same machine gives the same answer): past maxEntries the
// run is refused rather than left half-audited. A hit cordon cannot protect (no WRITE_DAC, a
// NULL DACL) refuses the run. Persistent and idempotent like the other ACEs (acl.ts).
import { lstatSync, readdirSync } from 'node:fs';
import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';
import type { Win32 } from '../../native/win32.ts';
import { grantsWriteTo, hasExplicitWriteGrant } from '../../plan/windows/dacl.ts';
import { EVERYONE_SID, RESTRICTED_CODE_SID } from '../../plan/windows/sid.ts';
import { DENY_WRITE_RIGHTS, INHERIT_CONTAINERS_AND_OBJECTS, rightsMask } from '../../plan/windows/spec.ts';
import { type AceResult, ensureAce, readDacl } from './acl.ts';

export interface AuditInput {
  readonly sid: string;
  readonly maxEntries: number;
  readonly writableRoots: readonly string[];
  readonly pathDirs: readonly string[];
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
}

export interface AuditOutcome {
  readonly results: AceResult[];
  readonly checked: number;
}

function kindNoLink(path: string): 'dir' | 'file' | 'other' {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return 'other';
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'other';
  }
}

function within(path: string, root: string): boolean {
  const p = path.toLowerCase().replace(/\\+$/, '');
  const r = root.toLowerCase().replace(/\\+$/, '');
  return p === r || p.startsWith(`${r}\\`);
}

function isDriveRoot(path: string): boolean {
  return /^[A-Za-z]:\\?$/.test(path);
}

export function candidateDirs(input: Pick<AuditInput, 'pathDirs' | 'hostEnv'>): string[] {
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

export function auditWorldWritable(w: Win32, input: AuditInput): AuditOutcome {
  const sids = [EVERYONE_SID, RESTRICTED_CODE_SID];
  const results: AceResult[] = [];
  const deny = rightsMask(DENY_WRITE_RIGHTS);
  let checked = 0;
  const count = (path: string) => {
    if (++checked > input.maxEntries)
      throw new CordonError(
        'policy-unenforceable',
        `the world-writable audit reached its limit of ${input.maxEntries} objects at '${path}' before it could check everything, so cordon cannot tell whether the sandbox could write there — nothing was run; remove Everyone's write access from the large world-writable directory it was walking (icacls "<dir>" /remove:g *S-1-1-0), or run from a machine without one`,
      );
  };
  const protect = (path: string, inheritance: number) => {
    try {
      results.push(
        ensureAce(w, { nativePath: path, type: 'deny', sid: input.sid, rights: deny, inheritance }, () =>
          performance.now(),
        ),
      );
    } catch (error) {
      throw new CordonError(
        'policy-unenforceable',
        `'${path}' can be written by Everyone (or RESTRICTED), so the sandboxed command could write it too, and cordon cannot add a deny ACE to it (${(error as Error).message}) — remove that access (icacls "${path}" /remove:g *S-1-1-0) or ask an administrator to`,
      );
    }
  };
  for (const dir of candidateDirs(input)) {
    if (input.writableRoots.some((root) => within(dir, root))) continue;
    if (kindNoLink(dir) !== 'dir') continue;
    count(dir);
    let dacl: ReturnType<typeof readDacl>;
    try {
      dacl = readDacl(w, dir);
    } catch {
      continue; // DACL unreadable (System Volume Information…): not judged (docs/windows.md §9)
    }
    if (!grantsWriteTo(dacl, sids)) continue;
    protect(dir, isDriveRoot(dir) ? 0 : INHERIT_CONTAINERS_AND_OBJECTS);
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      // listed nothing: nothing more to protect here
    }
    for (const name of names) {
      const file = winPath.join(dir, name);
      if (input.writableRoots.some((root) => within(file, root)) || kindNoLink(file) !== 'file') continue;
      count(file);
      let fileDacl: ReturnType<typeof readDacl>;
      try {
        fileDacl = readDacl(w, file);
      } catch {
        continue;
      }
      const exposed = isDriveRoot(dir)
        ? grantsWriteTo(fileDacl, sids)
        : hasExplicitWriteGrant(fileDacl, sids);
      if (exposed) protect(file, 0);
    }
  }
  return { results, checked };
}
