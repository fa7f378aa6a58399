// File-system side of a Windows run: refuses network drives, creates the private temp dir and
// the placeholders for missing carve-outs, and makes sure every ACE of the plan is in place
// (acl.ts; idempotent). Before an allow ACE is first written, the root is checked for links
// that propagation could follow outside (links.ts). Each step registers its undo in `cleanups`.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';
import type { Win32 } from '../../native/win32.ts';
import type { WindowsPlan } from '../../plan/types.ts';
import { deriveCordonSid } from '../../plan/windows/sid.ts';
import { ALLOW_WRITE_RIGHTS, INHERIT_CONTAINERS_AND_OBJECTS, rightsMask } from '../../plan/windows/spec.ts';
import { type AceResult, ensureAce } from './acl.ts';
import { refuseEscapingLinks } from './links.ts';

export type Cleanup = () => void;

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

const DRIVE_REMOTE = 4;

/**
 * ACEs on a mapped network drive are checked by the file server against the user, not the
 * restricted token (the same reason UNC rules are refused in the plan): refuse.
 */
export function refuseNetworkDrives(w: Win32, plan: WindowsPlan): void {
  const paths = [...plan.spec.acl.aces.map((a) => a.nativePath), plan.spec.privateTmp?.parent ?? ''];
  for (const path of paths) {
    const drive = /^(?:\\\\\?\\)?([A-Za-z]):/.exec(path)?.[1];
    if (drive === undefined) continue;
    if (w.k32['GetDriveTypeW']!(`${drive}:\\`) === DRIVE_REMOTE) {
      throw new CordonError(
        'policy-unenforceable',
        `'${path}' is on the network drive ${drive}: — the file server checks the user, not the restricted token, so cordon cannot keep writes out of it; run from a local drive`,
      );
    }
  }
}

/** Prepares the file system: private temp dir, placeholders, ACEs. Returns undo steps. */
export function prepareFiles(
  w: Win32,
  plan: WindowsPlan,
  cleanups: Cleanup[],
  onAcl: ((results: readonly AceResult[]) => void) | undefined,
) {
  const env: Record<string, string> = { ...plan.env };
  let tmpSid: string | undefined;
  const aces = plan.spec.acl.aces.map((a) => ({
    nativePath: a.nativePath,
    type: a.type,
    sid: a.sid,
    rights: a.rights.value,
    inheritance: a.inheritance.value,
  }));
  const privateTmp = plan.spec.privateTmp;
  if (privateTmp) {
    const dir = mkdtempSync(winPath.join(privateTmp.parent.replace(/\//g, '\\'), privateTmp.prefix));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of privateTmp.env) env[name] = dir;
    tmpSid = deriveCordonSid('write-root', dir.replace(/\\/g, '/'));
    aces.push({
      nativePath: dir,
      type: 'allow',
      sid: tmpSid,
      rights: rightsMask(ALLOW_WRITE_RIGHTS),
      inheritance: INHERIT_CONTAINERS_AND_OBJECTS,
    });
  }
  for (const placeholder of plan.spec.acl.placeholders) {
    if (exists(placeholder.nativePath)) continue;
    writeFileSync(placeholder.nativePath, '', { flag: 'wx' });
    cleanups.push(() => {
      try {
        if (statSync(placeholder.nativePath).size === 0) rmSync(placeholder.nativePath, { force: true });
      } catch {
        // gone already
      }
    });
  }
  const results: AceResult[] = [];
  const writableRoots = aces.filter((a) => a.type === 'allow').map((a) => a.nativePath);
  for (const ace of aces) {
    if (!exists(ace.nativePath)) continue; // vanished since planning: nothing to grant or protect
    const check =
      ace.type === 'allow' && ace.inheritance !== 0
        ? () => refuseEscapingLinks(ace.nativePath, writableRoots)
        : undefined;
    results.push(ensureAce(w, ace, () => performance.now(), check));
  }
  onAcl?.(results);
  return { env, tmpSid };
}
