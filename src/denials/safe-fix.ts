// Which suggested flags are safe to print. A denial hint is built from text the command
// printed, so a hostile command can make cordon "see" any denial it likes (a fake EACCES on
// ~/.bashrc). A hint therefore never names, lies inside or covers:
//   - a protected path (.git, .cordon, cordon's state) or anything inside a .git/.cordon;
//   - a credential store (the default deny list, and every `none` rule of the policy);
//   - the home directory or an ancestor of it, `/`, or a system directory or anything in one;
//   - for writes, a persistence point: a file or directory under home that runs code outside
//     the sandbox later (shell startup files, autostart, systemd user units, ~/.ssh, PATH dirs).
// Pure.
import { isWithin, resolveAccess } from '../policy/access.ts';
import { SYSTEM_DIRS } from '../policy/broad-roots.ts';
import type { PolicyRule, SandboxPolicy } from '../policy/types.ts';
import { BUILTIN_PROFILES } from '../profile/builtin-data.ts';
import type { Need } from './fix.ts';

/** Under home: written to, these run code outside the sandbox later. */
export const PERSISTENCE_POINTS = [
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.bash_aliases',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.inputrc',
  '.pam_environment',
  '.xprofile',
  '.xinitrc',
  '.xsession',
  '.xsessionrc',
  '.config/fish',
  '.config/autostart',
  '.config/environment.d',
  '.config/systemd',
  '.config/git',
  '.config/nvim',
  '.config/Code/User',
  '.gitconfig',
  '.ssh',
  '.gnupg',
  '.vimrc',
  '.emacs',
  '.emacs.d',
  '.tmux.conf',
  '.npmrc',
  '.local/bin',
  '.local/share/systemd',
  'bin',
  '.cargo/bin',
  '.cargo/config.toml',
  '.go/bin',
  'go/bin',
  'Library/LaunchAgents',
  'AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup',
] as const;

/** System directories whose subdirectories are ordinary places to work (/opt/app, /var/tmp/x). */
const CONTAINERS = new Set([
  '/home',
  '/Users',
  'C:/Users',
  '/opt',
  '/srv',
  '/var',
  '/root',
  '/private',
  '/private/var',
  '/Volumes',
  '/usr/local',
]);

/** Absolute credential paths of the default profile's deny list, `~` expanded. */
export function credentialPaths(home: string): string[] {
  const workspace = BUILTIN_PROFILES['workspace'] as { filesystem?: { path: string; access: string }[] };
  return (workspace.filesystem ?? [])
    .filter((r) => r.access === 'none')
    .map((r) => (r.path.startsWith('~/') ? home + r.path.slice(1) : r.path))
    .filter((p) => p.startsWith('/') || /^[A-Za-z]:\//.test(p));
}

function tilde(path: string, home: string): string {
  return path === home ? '~' : isWithin(path, home) ? `~${path.slice(home.length)}` : path;
}

/**
 * Why the flag `--<need> target` must not be suggested, or undefined when it may.
 * `after` is the rule list with the flag added (withFlagRule).
 */
export function unsafeFixReason(
  policy: SandboxPolicy,
  home: string,
  target: string,
  need: Need,
  after: readonly PolicyRule[],
  /** The denied path itself, to name the persistence point it is in. */
  denied: string = target,
  /** What runs outside the sandbox later (cordon's code and state, its Node, PATH dirs). */
  runsLater: readonly string[] = [],
): string | undefined {
  const rules = policy.rules;
  if (need === 'write')
    for (const p of runsLater)
      if (isWithin(target, p) || isWithin(p, target))
        return `${tilde(p, home)} holds what runs outside the sandbox later (cordon's own code or state, its Node, or a PATH directory)`;
  if (target.split('/').some((c) => c === '.git' || c === '.cordon'))
    return 'it is inside git metadata or cordon configuration, which stays read-only';
  for (const r of rules)
    if (r.source.kind === 'protected' && r.access === 'read' && isWithin(target, r.path))
      return `it is protected (${r.source.reason})`;
  if (target === '/' || /^[A-Za-z]:\/?$/.test(target)) return 'it would cover the whole file system';
  if (target === home) return 'it would cover your home directory';
  if (isWithin(home, target)) return 'it would cover your home directory';
  for (const dir of SYSTEM_DIRS[policy.platform]) {
    if (isWithin(dir, target)) return `it would cover the system directory ${dir}`;
    if (isWithin(target, dir) && !CONTAINERS.has(dir)) return `it is in the system directory ${dir}`;
  }
  const closed = [
    ...credentialPaths(home),
    ...rules.filter((r) => r.access === 'none' && r.source.kind !== 'private-tmp').map((r) => r.path),
  ];
  for (const c of closed) {
    if (isWithin(target, c)) return `it is a credential store or a denied path (${tilde(c, home)})`;
    if (isWithin(c, target) && resolveAccess(after, c) !== resolveAccess(rules, c))
      return `it would expose ${tilde(c, home)}`;
  }
  if (need === 'write') {
    const points = PERSISTENCE_POINTS.map((p) => `${home}/${p}`);
    const hit =
      points.find((p) => isWithin(denied, p) && isWithin(p, target)) ??
      points.find((p) => isWithin(target, p) || isWithin(p, target));
    if (hit !== undefined) return `${tilde(hit, home)} holds files that run outside the sandbox later`;
  }
  return undefined;
}
