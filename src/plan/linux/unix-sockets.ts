// Unix sockets on the Linux backends: what each can promise. Pure.
//
// Goal, in every network mode: the command's own unix-socket servers (in a writable root or
// the private /tmp) and their clients work; host daemons' sockets (docker.sock, the D-Bus
// session bus, ssh-agent, gpg-agent, podman, X11) stay unreachable; `--allow-unix PATH` opens
// one socket knowingly.
//
// bubblewrap: the unix-socket supervisor (backends/bwrap/unix-*.ts, a seccomp user-notification
// listener, Linux 5.9+ on x64/arm64) performs every connect() and allows an AF_UNIX one only to
// a listener set up inside the sandbox's pid namespace, or to an --allow-unix socket. With the
// network on it also performs bind(), refusing abstract names (the host's namespace then).
// Without the supervisor: network off keeps the old filter that refuses every connect()
// (host daemons unreachable, the command's own servers too — exact, but less useful); network on
// cannot keep host sockets out of reach → refused unless --best-effort.
//
// Landlock (no pid or network namespace, and no RESOLVE_UNIX before ABI 9): network off refuses
// connect() in its filter; network on leaves every host socket reachable → refused unless
// --best-effort; --allow-unix cannot be honoured → refused.
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import { isWithin, resolveAccess } from '../../policy/access.ts';
import type { SandboxPolicy } from '../../policy/types.ts';
import type { NotEnforced } from '../types.ts';
import { isUnixFilterArch } from './unix-filter.ts';

export interface UnixSupervisorPlan {
  readonly network: 'on' | 'off';
  /** Canonical host paths of the sockets --allow-unix opens. */
  readonly allow: readonly string[];
  /**
   * The network allowlist (policy.allowNet): the supervisor redirects the command's TCP
   * connect() to 127.0.0.1:P (P: the proxy's port, known at launch) to cordon's proxy on the
   * host's loopback; every other address stays in the sandbox's empty network namespace.
   */
  readonly proxy?: { readonly allow: readonly string[] } | undefined;
}

export interface BwrapUnixDecision {
  /** Set when the supervisor runs; the launcher starts it in place of bwrap. */
  readonly supervisor?: UnixSupervisorPlan | undefined;
  /** Extra mounts so an --allow-unix socket hidden by a fresh /run or /tmp is visible. */
  readonly mounts: readonly string[];
  /** Whether bwrap's own filter must refuse every connect() (no supervisor, network off). */
  readonly refuseConnect: boolean;
  readonly notEnforced: readonly NotEnforced[];
}

export const UNIX_NOT_ENFORCED_PATH = '(host unix sockets)';

export function supervisorAvailable(host: HostInfo): boolean {
  return host.seccompNotify === true && isUnixFilterArch(host.arch);
}

function supervisorMissing(host: HostInfo): string {
  return isUnixFilterArch(host.arch)
    ? 'the kernel lacks seccomp user notification with SECCOMP_IOCTL_NOTIF_ADDFD (Linux 5.9+), or this build (a single executable) has no supervisor helper — use the npm package'
    : `cordon has no seccomp filter for ${host.arch} (x64 and arm64 only)`;
}

/**
 * What the bubblewrap plan does about unix sockets. `shadowed` are the directories the plan
 * replaces with a fresh tmpfs (/tmp, /run): an --allow-unix socket beneath one is bound in.
 */
export function planBwrapUnix(
  policy: SandboxPolicy,
  host: HostInfo,
  shadowed: readonly string[],
  bestEffort: boolean,
): BwrapUnixDecision {
  const allow = policy.allowUnix ?? [];
  const mounts: string[] = [];
  for (const path of allow) {
    if (host.kind(path) === 'missing')
      throw new CordonError(
        'bad-flag',
        `--allow-unix ${path}: no such socket — start the service first, or drop the flag`,
      );
    if (resolveAccess(policy.rules, path) === 'none' || shadowed.some((d) => isWithin(path, d)))
      mounts.push('--ro-bind', path, path);
  }
  const proxy = policy.allowNet ? { allow: policy.allowNet } : undefined;
  if (supervisorAvailable(host))
    return {
      supervisor: { network: policy.network, allow, ...(proxy ? { proxy } : {}) },
      mounts,
      refuseConnect: false,
      notEnforced: [],
    };
  const missing = supervisorMissing(host);
  if (proxy)
    throw new CordonError(
      'policy-unenforceable',
      `--allow-net needs cordon's unix-socket supervisor on bubblewrap (it carries the command's connections to the proxy): ${missing} — drop --allow-net (network off) or use --net`,
    );
  if (allow.length > 0)
    throw new CordonError(
      'policy-unenforceable',
      `--allow-unix needs cordon's unix-socket supervisor: ${missing}`,
    );
  if (policy.network === 'off') return { mounts, refuseConnect: true, notEnforced: [] };
  if (!bestEffort)
    throw new CordonError(
      'policy-unenforceable',
      `with --net, host unix sockets (docker.sock, the D-Bus session bus, ssh-agent) would be reachable: ${missing} — run without --net, or add --best-effort to run with them reachable`,
    );
  return {
    mounts,
    refuseConnect: false,
    notEnforced: [
      { path: UNIX_NOT_ENFORCED_PATH, access: 'none', reason: `reachable with --net: ${missing}` },
    ],
  };
}

/** Landlock: the unix-socket items it cannot enforce (inexact unless --best-effort). */
export function landlockUnixGaps(policy: SandboxPolicy, abi: number): NotEnforced[] {
  const gaps: NotEnforced[] = [];
  if (policy.network === 'on' && abi < 9)
    gaps.push({
      path: UNIX_NOT_ENFORCED_PATH,
      access: 'none',
      reason: `Landlock ABI ${abi} has no unix-socket right and no network namespace: with --net every host socket is reachable`,
    });
  for (const path of policy.allowUnix ?? [])
    gaps.push({ path, access: 'read', reason: '--allow-unix is enforced by the bubblewrap backend only' });
  return gaps;
}

/** One line for `explain`: what the bubblewrap plan does about unix sockets. */
export function describeBwrapUnix(plan: {
  readonly unixSupervisor?: UnixSupervisorPlan | undefined;
  readonly seccompProgram?: string | undefined;
  readonly notEnforced: readonly NotEnforced[];
}): string {
  const s = plan.unixSupervisor;
  if (s) {
    const abstract =
      s.network === 'off' ? 'abstract names private' : 'abstract names refused (host namespace)';
    const allow = s.allow.length > 0 ? `; allowed: ${s.allow.join(', ')}` : '';
    return `supervised (seccomp user notification): own sockets work, host sockets refused, ${abstract}${allow}`;
  }
  if (plan.notEnforced.some((n) => n.path === UNIX_NOT_ENFORCED_PATH))
    return 'NOT enforced: host sockets reachable (--best-effort)';
  return plan.seccompProgram ? 'no supervisor: every connect() refused' : 'no supervisor';
}

/** doctor's line: can the unix-socket supervisor run (bubblewrap: own sockets work, host refused)? */
export function unixSocketCheck(
  host: HostInfo,
  seccompActions: string | undefined,
): { name: string; ok: boolean; detail: string; fix?: string } {
  const notify = (seccompActions ?? '').split(/\s+/).includes('user_notif');
  if (supervisorAvailable(host) && notify)
    return {
      name: 'unix sockets',
      ok: true,
      detail: 'supervisor available: own unix sockets work, host daemons refused, also with --net',
    };
  return {
    name: 'unix sockets',
    ok: false,
    detail: `no supervisor (${notify ? supervisorMissing(host) : 'seccomp has no user_notif action'}): network off refuses every unix connect(), --net needs --best-effort`,
    fix: 'use a Linux 5.9+ kernel on x64/arm64 and the npm package of cordon',
  };
}
