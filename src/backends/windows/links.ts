// Before the first ACE on a writable root is written, Windows' propagation walks the subtree —
// and may follow a junction or directory symlink into a target outside the root (pnpm's
// node_modules links into a store, `npm link`, a junction into C:\Windows). The write root's
// allow ACE would then land on that target and make it writable from the sandbox. So, only
// when an allow ACE is about to be written, walk the root without following links and refuse
// (125) when a link below it leads outside every writable root. Later runs find the ACE in
// place and skip the walk (nothing is propagated then).
import { readdirSync, realpathSync } from 'node:fs';
import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';

function within(path: string, root: string): boolean {
  const p = path
    .toLowerCase()
    .replace(/^\\\\\?\\/, '')
    .replace(/\\+$/, '');
  const r = root
    .toLowerCase()
    .replace(/^\\\\\?\\/, '')
    .replace(/\\+$/, '');
  return p === r || p.startsWith(`${r}\\`);
}

export interface EscapingLink {
  readonly link: string;
  readonly target: string;
}

/** Links below `root` (not followed) whose target lies outside every one of `allowedRoots`. */
export function findEscapingLinks(root: string, allowedRoots: readonly string[], limit = 5): EscapingLink[] {
  const found: EscapingLink[] = [];
  const stack = [root];
  while (stack.length > 0 && found.length < limit) {
    const dir = stack.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // unreadable: Windows' propagation cannot enter it either (it runs as the user)
    }
    for (const entry of entries) {
      const path = winPath.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        // Node reports junctions and symlinks alike; only the target's location matters.
        let target: string;
        try {
          target = realpathSync.native(path);
        } catch {
          continue; // dangling: nothing to propagate into
        }
        if (!allowedRoots.some((r) => within(target, r))) found.push({ link: path, target });
      } else if (entry.isDirectory()) {
        stack.push(path);
      }
    }
  }
  return found;
}

export function refuseEscapingLinks(root: string, allowedRoots: readonly string[]): void {
  const links = findEscapingLinks(root, allowedRoots);
  if (links.length === 0) return;
  const list = links.map((l) => `'${l.link}' → '${l.target}'`).join(', ');
  throw new CordonError(
    'unsafe-symlink',
    `cannot add the write ACE to '${root}': ${list} ${links.length === 1 ? 'is a link' : 'are links'} to outside the writable roots, and Windows may carry the ACE through ${links.length === 1 ? 'it' : 'them'} while propagating, which would make the target writable from the sandbox — nothing was run; remove or replace the link(s) for this first run (later runs do not propagate), or add the target with --write if it should be writable`,
  );
}
