// The submodules a repository's git knows about, as paths cordon must protect the way it
// protects the top-level .git. Git learns of a submodule from the superproject's config
// (`[submodule "name"]`), from .gitmodules (`path = …`) and from its gitdir under
// `<commondir>/modules/<name>` (whose `core.worktree` names the checkout). For each one found
// inside the writable root:
//   <path>/.git          the gitlink file (or an old-style embedded gitdir): read-only
//   gitdir: target       read-only (normally already under the protected .git)
//   <path> not checked out (no .git): the directory itself is read-only, so none can be planted
//   each directory between the root and the gitlink: pinned (a writable self-bind under
//   bubblewrap), so the command cannot move the checkout aside and plant a new .git next to it
// A `git status` in the superproject runs `git status` in each populated submodule, which reads
// the submodule's config: a planted gitdir with core.fsmonitor would run code on the host.
// Pure: reads go through HostInfo.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import { isWithin } from './access.ts';
import { configValue, parseGitConfig, subsections } from './git-config.ts';

export interface SubmoduleProtection {
  readonly path: string;
  /** read: kept read-only; pin: stays writable but cannot be renamed or removed. */
  readonly what: 'read' | 'pin';
  readonly reason: string;
}

const MAX_DEPTH = 6;
const MAX_SUBMODULES = 512;

function normalize(path: string): string {
  const drive = /^[A-Za-z]:/.exec(path)?.[0] ?? '';
  const parts: string[] = [];
  for (const part of path.slice(drive.length).replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `${drive}/${parts.join('/')}`;
}

function resolveFrom(dir: string, target: string): string {
  const absolute = target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target);
  return normalize(absolute ? target : `${dir}/${target}`);
}

/** gitdir (and common dir) of a repository whose `.git` is at `dotGit`, undefined if unknown. */
export function gitDirsOf(dotGit: string, host: HostInfo): { gitdir: string; commondir: string } | undefined {
  const kind = host.kind(dotGit);
  let gitdir: string | undefined;
  if (kind === 'dir') gitdir = dotGit;
  else if (kind === 'file') {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(host.readText(dotGit) ?? '');
    if (m) gitdir = host.realpath(resolveFrom(dotGit.slice(0, dotGit.lastIndexOf('/')) || '/', m[1]!));
  }
  if (gitdir === undefined) return undefined;
  const common = host.readText(`${gitdir}/commondir`)?.trim();
  const commondir = common ? host.realpath(resolveFrom(gitdir, common)) : gitdir;
  return { gitdir, commondir };
}

function validName(name: string): boolean {
  return name.length > 0 && !name.split(/[\\/]/).includes('..') && !name.includes('\0');
}

function symlinkError(path: string, root: string): CordonError {
  return new CordonError(
    'unsafe-symlink',
    `cannot protect the submodule path '${path}': it is a symlink inside the writable root '${root}', which the sandboxed command could re-point (git never makes one there) — inspect it (ls -la '${path}'); if you did not make it, remove the link (rm '${path}', which leaves its target alone) and restore the submodule with git submodule update --init; or name the path with --read/--write/--deny`,
  );
}

/** Submodule paths inside `root`, protected as the top-level .git is. */
export function submoduleProtections(root: string, host: HostInfo): SubmoduleProtection[] {
  const out: SubmoduleProtection[] = [];
  const seen = new Set<string>();
  const visit = (repoRoot: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    const dirs = gitDirsOf(`${repoRoot}/.git`, host);
    if (!dirs) return;
    const config = parseGitConfig(host.readText(`${dirs.commondir}/config`) ?? '');
    const gitmodules = parseGitConfig(host.readText(`${repoRoot}/.gitmodules`) ?? '');
    const names = [...subsections(config, 'submodule'), ...subsections(gitmodules, 'submodule')];
    const paths: string[] = [];
    for (const name of new Set(names)) {
      if (!validName(name)) continue;
      const declared = configValue(gitmodules, 'submodule', name, 'path');
      if (declared !== undefined) paths.push(resolveFrom(repoRoot, declared));
      const modDir = `${dirs.commondir}/modules/${name}`;
      const worktree = configValue(
        parseGitConfig(host.readText(`${modDir}/config`) ?? ''),
        'core',
        undefined,
        'worktree',
      );
      if (worktree !== undefined) paths.push(resolveFrom(modDir, worktree));
    }
    for (const logical of paths) {
      if (seen.size >= MAX_SUBMODULES) return;
      if (logical === repoRoot || !isWithin(logical, root) || seen.has(logical)) continue;
      seen.add(logical);
      protectOne(logical, root, depth);
    }
  };
  const protectOne = (path: string, rootDir: string, depth: number) => {
    // Every directory from the root down to the checkout must stay where it is.
    const pins: string[] = [];
    for (let p = path; p !== rootDir && isWithin(p, rootDir); p = p.slice(0, p.lastIndexOf('/')) || '/') {
      const k = host.kind(p);
      if (k === 'symlink') throw symlinkError(p, rootDir);
      if (k === 'dir') pins.unshift(p);
    }
    const kind = host.kind(path);
    if (kind === 'missing') {
      // Nothing checked out and no directory: a read-only placeholder stops one appearing.
      for (const p of pins.slice(0, -1))
        out.push({ path: p, what: 'pin', reason: `parent of submodule ${path}` });
      out.push({ path, what: 'read', reason: `submodule path ${path} (missing)` });
      return;
    }
    if (kind !== 'dir') return;
    const dotGit = `${path}/.git`;
    const gitKind = host.kind(dotGit);
    if (gitKind === 'symlink') throw symlinkError(dotGit, rootDir);
    if (gitKind === 'missing') {
      for (const p of pins.slice(0, -1))
        out.push({ path: p, what: 'pin', reason: `parent of submodule ${path}` });
      out.push({ path, what: 'read', reason: `submodule ${path} (not checked out)` });
      return;
    }
    for (const p of pins) out.push({ path: p, what: 'pin', reason: `parent of the gitlink ${dotGit}` });
    out.push({ path: dotGit, what: 'read', reason: `submodule gitlink ${dotGit}` });
    const dirs = gitDirsOf(dotGit, host);
    if (dirs && dirs.gitdir !== dotGit)
      out.push({ path: dirs.gitdir, what: 'read', reason: `gitdir of submodule ${path}` });
    visit(path, depth + 1);
  };
  visit(root, 0);
  return out;
}
