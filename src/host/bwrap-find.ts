// Which bubblewrap cordon may execute, decided before any candidate is executed (the probe's
// trial runs it unconfined). A bwrap a sandboxed run planted (node_modules/.bin/bwrap, which
// npm puts first on PATH) or any other on PATH is not trusted for what it is named.
// Rules, in order:
//   1. fixed system locations (/usr/bin/bwrap, /bin/bwrap, /usr/sbin/bwrap): the first one that
//      passes the ownership check below is chosen and PATH is not consulted;
//   2. otherwise the first PATH entry whose file and every ancestor directory of its real path
//      are owned by root and not writable by group or others (a sticky ancestor may be: others
//      cannot replace root's entry in it), and which is not inside the
//      working directory, home or temp directory (as root, a sandboxed run writes root-owned
//      files there).
// Every candidate that was passed over is listed with the reason (doctor shows them).
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { isWithin } from '../policy/access.ts';

export const BWRAP_SYSTEM_PATHS = ['/usr/bin/bwrap', '/bin/bwrap', '/usr/sbin/bwrap'] as const;

export interface BwrapCandidate {
  readonly path: string;
  /** Why it was not chosen; absent for the chosen one. */
  readonly rejected?: string;
}

export interface BwrapSearch {
  readonly chosen?: string | undefined;
  readonly candidates: readonly BwrapCandidate[];
}

export interface BwrapSearchContext {
  readonly pathVar: string | undefined;
  /** Directories a sandboxed run typically writes (cwd, home, temp): never trusted on PATH. */
  readonly writableGuess: readonly string[];
  /** Injected for tests; the real lstat/realpath otherwise. */
  readonly lstat?: (path: string) => Stats;
  readonly realpath?: (path: string) => string;
  readonly systemPaths?: readonly string[];
}

/** Why `path` (a real path) is not trusted, or undefined when it and its ancestors are root's. */
export function untrustedReason(path: string, lstat: (p: string) => Stats): string | undefined {
  let st: Stats;
  try {
    st = lstat(path);
  } catch {
    return 'does not exist';
  }
  if (!st.isFile()) return 'not a regular file';
  if ((st.mode & 0o111) === 0) return 'not executable';
  for (let p = path; ; p = dirname(p)) {
    let s: Stats;
    try {
      s = p === path ? st : lstat(p);
    } catch {
      return `cannot stat ${p}`;
    }
    if (s.isSymbolicLink()) return `${p} changed while it was checked`;
    if (s.uid !== 0) return `${p} is owned by uid ${s.uid}, not root`;
    // A sticky directory (/nix/store is root:nixbld 1775) lets others add entries but not
    // replace root's: fine as an ancestor, since its entry on the way was checked root-owned.
    // Not for the file's own directory: a root-owned file dropped into /var/tmp is no package.
    const sticky = p !== path && p !== dirname(path) && (s.mode & 0o1000) !== 0;
    if ((s.mode & 0o022) !== 0 && !sticky)
      return `${p} is writable by ${s.mode & 0o020 ? 'its group' : 'others'}`;
    if (p === '/') return undefined;
  }
}

export function findBwrap(ctx: BwrapSearchContext): BwrapSearch {
  const lstat = ctx.lstat ?? ((p: string) => lstatSync(p));
  const realpath = ctx.realpath ?? ((p: string) => realpathSync.native(p));
  const candidates: BwrapCandidate[] = [];
  const seen = new Set<string>();
  const consider = (listed: string, onPath: boolean): string | undefined => {
    let real: string;
    try {
      real = realpath(listed);
    } catch {
      return undefined; // not here: not a candidate
    }
    if (seen.has(real)) return undefined;
    seen.add(real);
    const shown = real === listed ? listed : `${listed} (-> ${real})`;
    const reason = untrustedReason(real, lstat);
    if (reason !== undefined) {
      candidates.push({ path: shown, rejected: `not trusted: ${reason}` });
      return undefined;
    }
    const inside = onPath ? ctx.writableGuess.find((d) => isWithin(real, d)) : undefined;
    if (inside !== undefined) {
      candidates.push({ path: shown, rejected: `inside ${inside}, where a sandboxed run can write` });
      return undefined;
    }
    candidates.push({ path: shown });
    return real;
  };
  for (const p of ctx.systemPaths ?? BWRAP_SYSTEM_PATHS) {
    const chosen = consider(p, false);
    if (chosen) return { chosen, candidates: [...candidates, ...listPathOthers(ctx, realpath, seen)] };
  }
  for (const dir of (ctx.pathVar ?? '').split(delimiter)) {
    if (!dir.startsWith('/')) continue; // a relative PATH entry depends on the cwd
    const chosen = consider(join(dir, 'bwrap'), true);
    if (chosen) return { chosen, candidates };
  }
  return { chosen: undefined, candidates };
}

/** The PATH candidates after a system one was chosen: listed as not consulted (doctor). */
function listPathOthers(
  ctx: BwrapSearchContext,
  realpath: (p: string) => string,
  seen: Set<string>,
): BwrapCandidate[] {
  const out: BwrapCandidate[] = [];
  for (const dir of (ctx.pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const listed = join(dir, 'bwrap');
    let real: string;
    try {
      real = realpath(listed);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push({ path: listed, rejected: 'on PATH, not used: a system bubblewrap was found first' });
  }
  return out;
}
