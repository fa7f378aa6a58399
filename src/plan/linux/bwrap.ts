// Policy → bubblewrap argv. Pure: every machine fact comes from HostInfo.
//
// Mount order (each step only adds mounts on top of the previous ones):
//   1. Base read layer: `--ro-bind / /` when / is readable (`--bind` when writable), otherwise
//      an empty tmpfs root (bwrap's default) that later steps populate, with the host's
//      top-level system symlinks (/bin → usr/bin, /lib64 → usr/lib64) recreated.
//   2. Fresh /dev (`--dev`, minimal devices), /proc (`--proc`, with /proc/sys re-bound
//      read-only), a private /tmp (`--tmpfs`) when the policy asks for one, and, with the
//      network off, empty /run and /var/run so host daemons' sockets are out of reach.
//   3. Every rule in depth order (parents first), compared with the access its parent has:
//        read under none         → --ro-bind P P        (readable root)
//        write under read|none   → --bind P P           (writable root)
//        read under write        → --ro-bind P P        (protected / read-only carve-out)
//        none under read|write   → mask: a directory gets `--perms 0111 --tmpfs P` (0000 when
//                                  nothing below it is reopened), then `--remount-ro P` once
//                                  its reopened children are mounted; a file gets
//                                  `--perms 0000 --ro-bind-data FD P` (empty, unreadable,
//                                  read-only; FD is an empty descriptor bwrap reads and closes)
//        same access as parent   → nothing, except a protected write rule (a pin: the
//                                  directories down to a submodule's gitlink) → --bind P P,
//                                  so P is a mount point and cannot be renamed or removed
//      A masked directory's reopened children get their mount points inside the tmpfs, so
//      nothing is created on the host. Paths that are missing on the host are skipped, except
//      protected or denied paths inside a writable root: they are covered by an empty 0000 file
//      so they cannot be created, and the empty mount point bwrap leaves is a placeholder that cordon
//      removes after the run.
//   4. Namespaces and hardening flags, then `--chdir CWD -- [REPORTER] COMMAND...`.
//   5. The status reporter (status-reporter.ts) when the host has one.
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import { canRead, findGoverningRule, isWithin, parentOf, resolveAccess } from '../../policy/access.ts';
import type { Access, PolicyRule, SandboxPolicy } from '../../policy/types.ts';
import type { BwrapPlan, NotEnforced } from '../types.ts';
import { buildSeccompProgram, isSeccompArch, type SeccompArch, type SeccompOptions } from './seccomp-bpf.ts';
import { statusReporterArgs } from './status-reporter.ts';
import { planBwrapUnix } from './unix-sockets.ts';

/** Data descriptors for masks start after stdin, stdout and stderr. */
const FIRST_DATA_FD = 3;

export interface BwrapBuildInput {
  readonly policy: SandboxPolicy;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly host: HostInfo;
  /** Enforce what can be enforced and list the rest instead of refusing. */
  readonly bestEffort?: boolean | undefined;
}

/**
 * The access the parent directory of `path` has inside the sandbox, ignoring the rule on
 * `path` itself. A directory replaced by a fresh tmpfs in step 2 (private /tmp, /run) hides
 * what shallower rules granted, so beneath it the parent counts as none.
 */
function parentAccess(rules: readonly PolicyRule[], path: string, shadowed: readonly string[]): Access {
  if (path === '/') return 'none';
  const parent = parentOf(path);
  const governing = findGoverningRule(
    rules.filter((r) => r.path !== path),
    parent,
  );
  if (!governing) return 'none';
  for (const dir of shadowed) {
    if (isWithin(parent, dir) && !isWithin(governing.path, dir)) return 'none';
  }
  return governing.access;
}

export function buildBwrapPlan(input: BwrapBuildInput): BwrapPlan {
  const { policy, command, host } = input;
  const bwrap = host.bwrap;
  if (!bwrap)
    throw new CordonError(
      'backend-unavailable',
      'bubblewrap (bwrap) is not installed — install it: apt-get install bubblewrap',
    );
  if (command.length === 0)
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');
  const rules = policy.rules;
  if (resolveAccess(rules, bwrap.path) === 'write') {
    throw new CordonError(
      'backend-unavailable',
      `refusing to use bubblewrap at '${bwrap.path}': it is inside a writable root, so a sandboxed command could replace it — install bwrap system-wide (apt-get install bubblewrap)`,
    );
  }
  const args: string[] = [];
  const notEnforced: NotEnforced[] = [];
  const placeholders: { path: string; kind: 'file' | 'dir' }[] = [];
  let dataFds = 0;

  // 1. base layer
  const rootAccess = resolveAccess(rules, '/');
  if (rootAccess === 'write') args.push('--bind', '/', '/');
  else if (rootAccess === 'read') args.push('--ro-bind', '/', '/');

  // On an empty root, recreate the host's system symlinks (/lib64 → usr/lib64 on merged-/usr
  // systems) whose targets are readable, so the dynamic loader and #!/bin/sh resolve.
  if (rootAccess === 'none') {
    for (const link of host.systemLinks ?? []) {
      if (resolveAccess(rules, host.realpath(link.path)) !== 'none')
        args.push('--symlink', link.target, link.path);
    }
  }

  // 2. devices, proc, private tmp, sockets
  args.push('--dev', '/dev', '--proc', '/proc', '--ro-bind', '/proc/sys', '/proc/sys');
  const shadowed: string[] = [];
  if (policy.privateTmp) {
    args.push('--tmpfs', '/tmp');
    shadowed.push('/tmp');
  }
  if (policy.network === 'off' && rootAccess !== 'none') {
    for (const dir of ['/run', '/var/run']) {
      if (host.kind(dir) === 'dir') {
        args.push('--tmpfs', dir);
        shadowed.push(dir);
      }
    }
  }

  // 3. rules in depth order
  const masked: string[] = [];
  for (const rule of rules) {
    if (rule.path === '/') continue;
    if (findGoverningRule(rules, rule.path) !== rule) continue; // lost a same-path tie
    const parent = parentAccess(rules, rule.path, shadowed);
    // A protected write rule under a writable parent is a pin (a submodule's directories):
    // bound onto itself so the command cannot rename it and plant a new .git next to it.
    const pin = rule.access === 'write' && rule.source.kind === 'protected';
    if (rule.access === parent && !pin) continue;
    const kind = host.kind(rule.path);
    if (pin && kind !== 'dir') continue;
    const underWritable = parent === 'write';
    if (kind === 'missing') {
      if (rule.access === 'write' || rule.access === 'read') {
        if (rule.source.kind !== 'protected') {
          notEnforced.push({
            path: rule.path,
            access: rule.access,
            reason: 'does not exist on this machine; skipped',
          });
          continue;
        }
      }
      if (underWritable && host.kind(parentOf(rule.path)) === 'dir') {
        // Block creation: an empty, unreadable, read-only file sits where the path would be.
        args.push('--perms', '0000', '--ro-bind-data', String(FIRST_DATA_FD + dataFds++), rule.path);
        placeholders.push({ path: rule.path, kind: 'file' });
      }
      continue;
    }
    if (rule.access === 'read') {
      args.push('--ro-bind', rule.path, rule.path);
    } else if (rule.access === 'write') {
      args.push('--bind', rule.path, rule.path);
    } else if (kind === 'dir') {
      const reopened = rules.some(
        (r) => r.path !== rule.path && isWithin(r.path, rule.path) && r.access !== 'none',
      );
      args.push('--perms', reopened ? '0111' : '0000', '--tmpfs', rule.path);
      masked.push(rule.path);
    } else {
      args.push('--perms', '0000', '--ro-bind-data', String(FIRST_DATA_FD + dataFds++), rule.path);
    }
  }
  // Unix sockets (plan/linux/unix-sockets.ts): an --allow-unix socket a fresh /run hid.
  const unix = planBwrapUnix(policy, host, shadowed, input.bestEffort ?? false);
  args.push(...unix.mounts);
  notEnforced.push(...unix.notEnforced);
  // Masks become read-only after their reopened children are mounted (deepest first).
  for (const dir of [...masked].reverse()) args.push('--remount-ro', dir);

  // 4. namespaces and hardening
  args.push('--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (policy.network === 'off') args.push('--unshare-net');
  if (bwrap.supportsDisableUserns) args.push('--disable-userns');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  // The baseline seccomp filter (seccomp-baseline.ts), in every network mode: IP sockets are
  // allowed (with the network off the namespace keeps them private: loopback servers work),
  // other families and the baseline calls refused. With the network off it also carries the
  // unix-socket rules (no AF_UNIX connect(): a host daemon's socket in a readable directory —
  // docker.sock is root on the host; stream sockets only). bwrap loads it from a descriptor
  // just before exec.
  let seccompProgram: string | undefined;
  if (isSeccompArch(host.arch)) {
    seccompProgram = buildSeccompProgram(
      bwrapSeccompOptions(host.arch, policy.network, unix.refuseConnect),
    ).toString('base64');
    args.push('--seccomp', String(FIRST_DATA_FD + dataFds));
  } else if (input.bestEffort) {
    notEnforced.push({
      path: '(seccomp baseline)',
      access: 'none',
      reason: `no seccomp filter for ${host.arch}: keyrings, io_uring, bpf, SysV IPC, other socket families${policy.network === 'off' ? " and host daemons' unix sockets" : ''} stay reachable`,
    });
  } else {
    throw new CordonError(
      'policy-unenforceable',
      `cannot load cordon's baseline seccomp filter on ${host.arch}: it exists for x64 and arm64 only — pass --best-effort to run with the namespaces alone`,
    );
  }
  // 5. The status reporter (status-reporter.ts) as the command's parent, when the host has
  // one the sandbox can read; its pipe is the descriptor after the data and seccomp ones.
  const reporter = host.statusReporter;
  const statusFd =
    reporter !== undefined && canRead(policy.rules, reporter)
      ? FIRST_DATA_FD + dataFds + (seccompProgram === undefined ? 0 : 1)
      : undefined;
  args.push('--chdir', policy.cwd, '--');
  if (reporter !== undefined && statusFd !== undefined) args.push(...statusReporterArgs(reporter, statusFd));
  args.push(...command);

  const env = policy.privateTmp ? { ...input.env, TMPDIR: '/tmp' } : { ...input.env };
  return {
    backend: 'bwrap',
    executable: bwrap.path,
    args,
    env,
    cwd: policy.cwd,
    notEnforced,
    ownsPidNamespace: args.includes('--unshare-pid'),
    statusFd,
    placeholders,
    dataFds,
    seccompProgram,
    ...(unix.supervisor ? { unixSupervisor: unix.supervisor } : {}),
  };
}

/** The bwrap backend's filter: it owns a mount and a network namespace. */
/**
 * `refuseConnect`: every AF_UNIX connect() is refused with the network off — only where the
 * unix-socket supervisor cannot run (plan/linux/unix-sockets.ts); with the supervisor, connect()
 * goes to it (a refusal here would outrank its notification).
 */
export function bwrapSeccompOptions(
  arch: SeccompArch,
  network: 'on' | 'off',
  refuseConnect = true,
): SeccompOptions {
  return {
    arch,
    ip: 'allow',
    ownsMountNamespace: true,
    unixNetworkOff: network === 'off' ? { refuseConnect } : undefined,
  };
}
