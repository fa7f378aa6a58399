// Policy → Landlock ruleset (+ seccomp options). Pure: every machine fact comes from HostInfo.
// Landlock can only allow: a rule grants rights beneath a directory, and the rights on a path
// are the union of the rules on it and its ancestors. So a policy is enforced exactly iff
// access never shrinks going deeper, i.e. no rule is narrower than the access its parent has:
//   read|write under less access      → one Landlock rule (additive: exact)
//   same access as the parent         → nothing
//   none under read, path missing     → nothing: the sandbox cannot create it (exact)
//   anything missing beneath a file   → nothing: it cannot exist (exact)
//   none under read|write, read under write (credential denies, --deny in the workspace, the
//   protected .git/.cordon)           → NOT exact: refused, or listed in notEnforced under
//                                       --best-effort (the path keeps its parent's access)
// Granting each sibling instead is never exact (see docs/landlock.md), so it is not done.
// Kernel limits that also make a policy inexact: ABI < 3 cannot stop truncate(2); ABI < 6
// cannot stop signals to the user's other processes; no seccomp filter for this arch with
// the network off. Implicit rules, as bwrap's --proc/--dev give them: /proc read, the
// standard character devices read-write (unless the policy names them or an ancestor `none`).
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import { findGoverningRule, isEffective, isWithin } from '../../policy/access.ts';
import { OWN_CODE_REASON } from '../../policy/protected.ts';
import type { Access, PolicyRule, SandboxPolicy } from '../../policy/types.ts';
import type { LandlockPlan, LandlockRule, NotEnforced } from '../types.ts';
import { splitAroundDev } from './landlock-dev.ts';
import { handledFsFor, NET, rightsFor, SCOPE } from './landlock-rights.ts';
import { isSeccompArch } from './seccomp-bpf.ts';
import { landlockUnixGaps } from './unix-sockets.ts';

export { FS, handledFsFor, NET, rightsFor, SCOPE } from './landlock-rights.ts';

export const IMPLICIT_READ = ['/proc'] as const;
export const IMPLICIT_DEVICES = [
  '/dev/null',
  '/dev/zero',
  '/dev/full',
  '/dev/random',
  '/dev/urandom',
  '/dev/tty',
] as const;

const RANK: Record<Access, number> = { none: 0, read: 1, write: 2 };

export interface LandlockAnalysis {
  readonly abi: number;
  readonly rules: LandlockRule[];
  /** What Landlock cannot enforce exactly (refused unless --best-effort). */
  readonly inexact: NotEnforced[];
  /** Rules with nothing to enforce (paths missing here), listed as bwrap lists them. */
  readonly skipped: NotEnforced[];
}

function carveOutReason(rule: PolicyRule, parent: Access, missing: boolean): string {
  const what =
    rule.source.kind === 'protected'
      ? `protected ${rule.source.reason}, read-only inside a writable directory`
      : rule.access === 'none'
        ? `a deny inside a ${parent === 'write' ? 'writable' : 'readable'} directory`
        : 'a read-only path inside a writable directory';
  const effect =
    parent === 'write'
      ? missing
        ? 'it could be created and written'
        : 'it would stay writable'
      : 'it would stay readable';
  return `${what}: Landlock can only add access, so ${effect}`;
}

/** The Landlock ruleset for a policy, and what it cannot enforce exactly. */
export function analyzeLandlock(policy: SandboxPolicy, host: HostInfo): LandlockAnalysis {
  const abi = host.landlock?.abi ?? 0;
  const handledFs = handledFsFor(abi, policy.network);
  const rules: LandlockRule[] = [];
  const inexact: NotEnforced[] = [];
  const skipped: NotEnforced[] = [];
  const all = policy.rules;
  for (const rule of all) {
    if (!isEffective(all, rule)) continue;
    const governing = findGoverningRule(
      all.filter((r) => r.path !== rule.path),
      rule.path,
    );
    const parent = governing?.access ?? 'none';
    const kind = host.kind(rule.path);
    const missing = kind === 'missing';
    if (RANK[rule.access] === RANK[parent]) continue;
    if (RANK[rule.access] < RANK[parent]) {
      if (rule.access === 'none' && parent === 'read' && missing) continue;
      // Beneath a file nothing can exist (a protected .git under a writable file): moot.
      if (missing && governing && host.kind(governing.path) === 'file') continue;
      inexact.push({ path: rule.path, access: rule.access, reason: carveOutReason(rule, parent, missing) });
      continue;
    }
    const access = rule.access as 'read' | 'write';
    if (missing) {
      skipped.push({ path: rule.path, access, reason: 'does not exist on this machine; skipped' });
      continue;
    }
    const k = kind === 'dir' ? 'dir' : 'file';
    if (rule.path === '/' || rule.path === '/dev' || isWithin(rule.path, '/dev')) {
      const split = splitAroundDev(rule.path, access, host, handledFs);
      rules.push(...split.rules);
      skipped.push(...split.skipped);
      continue;
    }
    rules.push({
      path: rule.path,
      access,
      kind: k,
      rights: rightsFor(access, k, handledFs),
      origin: 'policy',
    });
  }
  const implicit = (path: string, access: 'read' | 'write', kind: 'dir' | 'file') => {
    if (host.kind(path) === 'missing') return;
    const governing = findGoverningRule(all, path);
    if (governing?.access === 'none' || governing?.access === 'write') return;
    if (governing?.access === 'read' && access === 'read') return;
    rules.push({ path, access, kind, rights: rightsFor(access, kind, handledFs), origin: 'implicit' });
  };
  for (const path of IMPLICIT_READ) implicit(path, 'read', 'dir');
  for (const path of IMPLICIT_DEVICES) {
    // Granted one by one whatever the parent's access (a rule on / or /dev is split around them).
    if (host.kind(path) !== 'missing' && findGoverningRule(all, path)?.access !== 'none')
      rules.push({
        path,
        access: 'write',
        kind: 'file',
        rights: rightsFor('write', 'file', handledFs),
        origin: 'implicit',
      });
  }

  if (abi > 0 && abi < 3)
    inexact.push({
      path: '/',
      access: 'truncate',
      reason: `Landlock ABI ${abi} does not control truncate(2) (needs ABI 3, Linux 6.2): any file the user may write, even outside the policy, could be emptied`,
    });
  if (abi > 0 && abi < 6)
    inexact.push({
      path: '(other processes)',
      access: 'signal',
      reason: `Landlock ABI ${abi} cannot stop signals to the user's other processes (scoping needs ABI 6, Linux 6.12)`,
    });
  inexact.push(...landlockKernelGaps(policy));
  if (!isSeccompArch(host.arch))
    inexact.push({
      path: '(seccomp baseline)',
      access: 'none',
      reason: `no seccomp filter for architecture ${host.arch} (x64 and arm64 only): keyrings, SysV IPC, io_uring, other socket families${policy.network === 'off' ? ', UDP' : ''} would stay open`,
    });
  if (abi > 0) inexact.push(...landlockUnixGaps(policy, abi));
  return { abi, rules, inexact, skipped };
}

/**
 * What no Landlock ABI (through 9) mediates, for every policy: listed so the backend is
 * refused without --best-effort and the gap is named under it (docs/landlock.md).
 */
export function landlockKernelGaps(policy: SandboxPolicy): NotEnforced[] {
  const gaps: NotEnforced[] = [
    {
      path: '(file metadata)',
      access: 'chmod/chown/utimes/xattr',
      reason:
        'Landlock has no right for metadata changes: the command could chmod (setuid bits included), chown, change times, set user.* xattrs and inode flags on any file its uid owns, outside the policy too — as root, every file',
    },
  ];
  if (policy.network === 'off')
    gaps.push({
      path: '(abstract unix sockets)',
      access: 'listen',
      reason:
        'the command could listen on an abstract unix socket the host can connect to (seccomp cannot see the address at bind/listen, Landlock scopes only outgoing connections) — exfiltration, or posing as X11 or D-Bus',
    });
  return gaps;
}

const WAYS_OUT =
  'install or enable bubblewrap (see cordon doctor), change the rules, or pass --best-effort to run with them not enforced';

/** One line per item: "  access path: reason". */
function listInexact(items: readonly NotEnforced[]): string {
  return items.map((n) => `\n  ${n.access} ${n.path}: ${n.reason}`).join('');
}

/**
 * Why Landlock cannot take this policy on this host, or undefined when it enforces it exactly:
 * a short sentence with the ways out, then one line per rule it cannot enforce.
 */
export function checkLandlockFit(policy: SandboxPolicy, host: HostInfo): string | undefined {
  const abi = host.landlock?.abi ?? 0;
  if (abi === 0) return host.landlock?.reason ?? 'the kernel has no Landlock (5.13+ with lsm=landlock)';
  const { inexact } = analyzeLandlock(policy, host);
  if (inexact.length === 0) return undefined;
  return `Landlock ABI ${abi} cannot enforce ${inexact.length === 1 ? 'this rule' : `${inexact.length} rules`} exactly — ${WAYS_OUT}:${listInexact(inexact)}`;
}

/** Under --best-effort: what the Landlock verdict should say when the fit is not exact. */
export function describeLandlockBestEffort(policy: SandboxPolicy, host: HostInfo): string | undefined {
  const abi = host.landlock?.abi ?? 0;
  if (abi === 0) return undefined;
  const { inexact } = analyzeLandlock(policy, host);
  if (inexact.length === 0) return undefined;
  return `Landlock ABI ${abi} enforces this policy only with --best-effort: ${inexact.length === 1 ? '1 rule is' : `${inexact.length} rules are`} not enforced (${inexact.map((n) => `${n.access} ${n.path}`).join(', ')})`;
}

export interface LandlockBuildInput {
  readonly policy: SandboxPolicy;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly host: HostInfo;
  readonly bestEffort: boolean;
}

export function buildLandlockPlan(input: LandlockBuildInput): LandlockPlan {
  const { policy, command, host } = input;
  const abi = host.landlock?.abi ?? 0;
  if (abi === 0)
    throw new CordonError(
      'backend-unavailable',
      `Landlock is not available: ${host.landlock?.reason ?? 'the kernel has no Landlock'} — use a kernel >= 5.13 with Landlock enabled, or install bubblewrap`,
    );
  if (command.length === 0)
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');
  const analysis = analyzeLandlock(policy, host);
  if (analysis.inexact.length > 0 && !input.bestEffort) {
    throw new CordonError(
      'policy-unenforceable',
      `Landlock ABI ${abi} cannot enforce ${analysis.inexact.length === 1 ? 'this rule' : `${analysis.inexact.length} rules`} exactly: ${listInexact(analysis.inexact)} — ${WAYS_OUT}`,
    );
  }
  // cordon's own code inside a writable root must stay read-only: never merely "not enforced".
  const ownCode = analysis.inexact.filter((n) => n.reason.includes(OWN_CODE_REASON));
  if (ownCode.length > 0) {
    throw new CordonError(
      'policy-unenforceable',
      `Landlock cannot keep cordon's own code read-only: ${ownCode.map((n) => n.path).join(', ')} ${ownCode.length === 1 ? 'is' : 'are'} inside a writable root, and a run could rewrite what the next one executes unconfined — use bubblewrap, or install cordon outside the directories the command may write (npm install -g cordon), even with --best-effort`,
    );
  }
  const network = policy.network;
  const handledFs = handledFsFor(abi, network);
  const seccomp = isSeccompArch(host.arch)
    ? {
        arch: host.arch,
        ip: network === 'off' ? ('refuse' as const) : ('allow' as const),
        ownsMountNamespace: false,
        unixNetworkOff: network === 'off' ? { refuseConnect: abi < 9 } : undefined,
      }
    : undefined;
  return {
    backend: 'landlock',
    executable: command[0]!,
    args: command.slice(1),
    env: { ...input.env },
    cwd: policy.cwd,
    notEnforced: [...analysis.skipped, ...analysis.inexact],
    abi,
    handledFs,
    handledNet: abi >= 4 && network === 'off' ? NET.BIND_TCP | NET.CONNECT_TCP : 0,
    scoped: abi >= 6 ? SCOPE.SIGNAL | (network === 'off' ? SCOPE.ABSTRACT_UNIX_SOCKET : 0) : 0,
    rules: analysis.rules,
    network,
    seccomp,
    privateTmp: policy.privateTmp ? { parent: host.tmpdir, prefix: 'cordon-tmp-' } : undefined,
  };
}
