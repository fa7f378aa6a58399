// Writable roots too broad to hand to a command without being asked: the home directory (or
// an ancestor of it), `/`, or a system directory (or an ancestor of one). Files there run
// outside the sandbox later (~/.bashrc, ~/.config/autostart, ~/.ssh/config, /etc/cron.d ...),
// and a list of such persistence points can never be complete, so the whole directory is
// refused unless the user named it: a --write flag, or a literal path (not {cwd}, not
// relative, not {tmp}) in a profile rule. Pure.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import { isWithin } from './access.ts';
import type { Access, RuleSource } from './types.ts';

/** Directories that are the system's, per platform (compared canonically, and as written). */
export const SYSTEM_DIRS: Readonly<Record<HostInfo['platform'], readonly string[]>> = {
  linux: [
    '/bin',
    '/boot',
    '/dev',
    '/etc',
    '/home',
    '/lib',
    '/lib32',
    '/lib64',
    '/libx32',
    '/opt',
    '/proc',
    '/root',
    '/run',
    '/sbin',
    '/srv',
    '/sys',
    '/usr',
    '/usr/bin',
    '/usr/lib',
    '/usr/local',
    '/usr/local/bin',
    '/usr/local/lib',
    '/usr/local/sbin',
    '/usr/sbin',
    '/usr/share',
    '/var',
    '/var/lib',
    '/var/log',
    '/var/spool',
    '/nix',
    '/nix/store',
    '/snap',
  ],
  darwin: [
    '/Applications',
    '/Library',
    '/System',
    '/Users',
    '/Volumes',
    '/bin',
    '/sbin',
    '/usr',
    '/usr/bin',
    '/usr/lib',
    '/usr/local',
    '/usr/local/bin',
    '/opt/homebrew',
    '/private',
    '/private/etc',
    '/private/var',
    '/private/var/db',
    '/etc',
    '/var',
  ],
  win32: ['C:/Windows', 'C:/Program Files', 'C:/Program Files (x86)', 'C:/ProgramData', 'C:/Users'],
};

/** A rule as resolvePolicy sees it before canonicalization. */
export interface RootCandidate {
  readonly logical: string;
  readonly access: Access;
  readonly source: RuleSource;
  /** The user wrote this path (a flag, or a literal path in a profile rule). */
  readonly explicit: boolean;
}

/** Whether the raw path of a profile rule names a place itself rather than the cwd or tmp. */
export function isLiteralProfilePath(raw: string): boolean {
  if (raw.startsWith('{cwd}') || raw.startsWith('{tmp}') || raw === '{system}') return false;
  return raw === '~' || raw.startsWith('~/') || raw.startsWith('/') || /^[A-Za-z]:[\\/]/.test(raw);
}

function isRoot(path: string): boolean {
  return path === '/' || /^[A-Za-z]:\/?$/.test(path);
}

/** Why `path` (canonical) is too broad to be writable unasked, or undefined when it is not. */
export function broadRootReason(path: string, host: HostInfo): string | undefined {
  if (isRoot(path)) return 'the file system root';
  const home = host.realpath(host.home);
  if (path === home) return 'your home directory';
  if (isWithin(home, path)) return `an ancestor of your home directory (${home})`;
  const system = new Set<string>();
  for (const dir of [...SYSTEM_DIRS[host.platform], ...host.systemRoots]) {
    system.add(dir);
    system.add(host.realpath(dir));
  }
  for (const dir of system) {
    if (path === dir || (host.platform === 'win32' && path.toLowerCase() === dir.toLowerCase()))
      return 'a system directory';
  }
  for (const dir of system) if (isWithin(dir, path)) return `an ancestor of the system directory ${dir}`;
  return undefined;
}

function describeOrigin(source: RuleSource): string {
  if (source.kind === 'profile')
    return `profile ${source.profile} (filesystem[${source.index}]) makes it writable`;
  return 'it would be writable';
}

/**
 * Refuses (CordonError 'broad-root') a writable root that is home, an ancestor of home, `/`
 * or a system directory, unless some explicit rule names that same canonical path.
 */
export function checkBroadRoots(
  candidates: readonly RootCandidate[],
  canonical: (logical: string) => string,
  host: HostInfo,
  cwd: string,
): void {
  const explicitWrites = new Set(
    candidates.filter((c) => c.access === 'write' && c.explicit).map((c) => canonical(c.logical)),
  );
  for (const c of candidates) {
    if (c.access !== 'write' || c.explicit || c.source.kind === 'cache') continue;
    const canon = canonical(c.logical);
    if (explicitWrites.has(canon)) continue;
    const path = /^[A-Za-z]:$/.test(canon) ? `${canon}/` : canon;
    const reason = broadRootReason(path, host);
    if (reason === undefined) continue;
    const isCwd = canon === canonical(cwd) || path === cwd;
    const named = path === host.realpath(host.home) ? '~' : path;
    const what = isCwd ? `the working directory '${path}'` : `'${path}'`;
    throw new CordonError(
      'broad-root',
      `refusing to make ${what} writable: it is ${reason}, and ${describeOrigin(c.source)} — a command could then plant files that run outside the sandbox later (shell startup files, ~/.config/autostart, ~/.ssh/config, cron, PATH directories); run cordon from a project directory (cd into it, or --cwd DIR), or name it explicitly if you mean it: --write ${named}`,
    );
  }
}
