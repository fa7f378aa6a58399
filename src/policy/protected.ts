// Paths kept read-only inside every writable root unless a rule names that exact path:
//   <root>/.git      a directory, or a pointer file and the gitdir: target it names
// (`.cordon` is not protected: nothing reads it, and a placeholder covering a missing one
// showed up in every `git status`; a per-project config file would be designed with its
// protection, once, where it is added.)
// An existing .git is protected; a missing one is not (covering it breaks git in every
// subdirectory of a repository), so a command can `git init` a new repository in a writable
// root that has none — documented in the README. The list is in the README.
import type { HostInfo } from '../host/types.ts';
import { canWrite, findGoverningRule, parentOf } from './access.ts';
import { submoduleProtections } from './submodules.ts';
import { protectedSymlinkError } from './symlink-refusal.ts';
import type { PolicyRule } from './types.ts';

export const PROTECTED_NAMES = ['.git'] as const;

/** Reason prefix of the rules that keep cordon's own code read-only (never best-effort). */
export const OWN_CODE_REASON = "cordon's own code";

export function isOwnCodeRule(rule: PolicyRule): boolean {
  return rule.source.kind === 'protected' && rule.source.reason.startsWith(OWN_CODE_REASON);
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

/** gitdir target named by a .git pointer file, resolved against the file's directory. */
export function parseGitdirPointer(text: string, dir: string, host: HostInfo): string | undefined {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match) return undefined;
  const target = match[1]!;
  const isAbs = target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target);
  const joined = isAbs ? target : `${dir}/${target}`;
  return host.realpath(normalizeSlashes(joined));
}

function normalizeSlashes(path: string): string {
  const drive = /^[A-Za-z]:/.exec(path)?.[0] ?? '';
  const parts: string[] = [];
  for (const part of path.slice(drive.length).replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `${drive}/${parts.join('/')}`;
}

export function protectedRules(rules: readonly PolicyRule[], host: HostInfo): PolicyRule[] {
  const exact = new Set(rules.map((r) => r.path));
  const out: PolicyRule[] = [];
  const add = (path: string, reason: string, access: 'read' | 'write' = 'read') => {
    if (exact.has(path)) return;
    const prior = out.findIndex((r) => r.path === path);
    // A read-only protection beats a pin (a writable self-mount) on the same path.
    if (prior !== -1 && !(out[prior]!.access === 'write' && access === 'read')) return;
    if (prior !== -1) out.splice(prior, 1);
    // Only narrow what would otherwise be writable; a none stays none.
    if (findGoverningRule([...rules, ...out], path)?.access !== 'write') return;
    out.push({ path, access, source: { kind: 'protected', reason } });
  };
  for (const root of rules) {
    if (root.access !== 'write' || !canWrite(rules, root.path)) continue;
    // The sandbox cache is read by sandboxed runs only: nothing there is a repository or a
    // cordon configuration the user's own tools would pick up, and a link a run leaves there
    // must not lock the next run out.
    if (root.source.kind === 'cache') continue;
    for (const name of PROTECTED_NAMES) {
      const path = join(root.path, name);
      const kind = host.kind(path);
      if (kind === 'symlink' && !exact.has(path)) {
        throw protectedSymlinkError(path, root.path, name, host);
      }
      // A missing .git is left alone: covering it would make git (and Go's VCS stamping) fail
      // in every directory that is not itself a repository root.
      if (kind === 'missing') continue;
      add(path, 'git metadata');
      if (name === '.git' && kind === 'file') {
        const text = host.readText(path);
        const target = text === undefined ? undefined : parseGitdirPointer(text, root.path, host);
        if (target !== undefined) add(target, `gitdir target of ${path}`);
      }
      // Submodules: their gitlink files and gitdirs, as git knows them (submodules.ts). A
      // pinned directory stays writable but is a mount point, so it cannot be moved aside.
      if (name === '.git' && (kind === 'dir' || kind === 'file'))
        for (const p of submoduleProtections(root.path, host))
          add(p.path, p.reason, p.what === 'pin' ? 'write' : 'read');
    }
  }
  // cordon's own state (compile cache, native module) stays read-only wherever a writable root
  // covers it (e.g. cordon run in the home directory); the sandbox cache's tools dir is a
  // deeper write rule and keeps winning.
  for (const dir of host.stateDirs ?? [])
    add(dir, 'cordon state: compile cache, native module, sandbox cache, config');
  // cordon's own code (a project-local `npm install cordon` puts it inside {cwd}): a run must
  // not rewrite what the next run executes unconfined.
  for (const own of host.ownCode ?? []) add(own.path, `${OWN_CODE_REASON}: ${own.what}`);
  pinCarveOutParents(rules, out, host, add);
  return out;
}

/**
 * A read-only or denied path inside a writable root is only as safe as the directories above
 * it: renaming one (`mv store store-old; mkdir store …`) moves the protected mount aside, and
 * the old name is the command's to fill — a gitdir target with `core.fsmonitor`, a forged
 * compile cache, a rewritten `--read` file. So every existing directory between the writable
 * root (itself a mount point) and such a carve-out is pinned: a protected write rule that the
 * bwrap builder binds onto itself, so `mv` and `rmdir` fail with EBUSY while it stays writable.
 */
function pinCarveOutParents(
  rules: readonly PolicyRule[],
  out: readonly PolicyRule[],
  host: HostInfo,
  add: (path: string, reason: string, access: 'read' | 'write') => void,
): void {
  const carveOuts = [...rules, ...out].filter((r) => r.access !== 'write');
  for (const r of carveOuts) {
    for (let dir = parentOf(r.path); dir !== '/' && dir !== ''; dir = parentOf(dir)) {
      const governing = findGoverningRule([...rules, ...out], dir);
      if (governing?.access !== 'write') break; // not writable: nothing can rename it
      if (governing.path === dir && governing.source.kind !== 'protected') break; // the root: a mount point
      if (host.kind(dir) !== 'dir') continue;
      add(dir, `parent of ${r.path}`, 'write');
    }
  }
}
