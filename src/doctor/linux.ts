// `cordon doctor` on Linux, pure: from facts about the machine (probed by facts.ts, or made up
// by tests as fake hosts) to checks, each with the exact command that fixes what is missing.
// For user namespaces blocked by AppArmor (Ubuntu 23.10+, common CI runners) the fix is an
// AppArmor profile that lets only the bwrap binary create them, never the sysctl that turns
// the protection off for every program.
import type { BwrapInfo, LandlockInfo } from '../host/types.ts';

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly fix?: string;
}

export interface OsRelease {
  readonly id?: string | undefined;
  readonly idLike?: string | undefined;
  readonly versionId?: string | undefined;
}

export interface LinuxFacts {
  readonly uid: number;
  readonly os?: OsRelease | undefined;
  /** undefined: no bwrap on PATH. */
  readonly bwrap?: BwrapInfo | undefined;
  /** Raw sysctl values; undefined where the file does not exist. */
  readonly apparmorRestrictUserns?: string | undefined;
  readonly unprivilegedUsernsClone?: string | undefined;
  readonly maxUserNamespaces?: string | undefined;
  readonly landlock?: LandlockInfo | undefined;
  /** /sys/kernel/security/lsm, e.g. "lockdown,capability,yama,apparmor". */
  readonly lsm?: string | undefined;
  /** os.release(), e.g. "6.8.0-45-generic". */
  readonly kernel: string;
  readonly seccompActions?: string | undefined;
}

/** POSIX shell single-quoting. */
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function family(os: OsRelease | undefined): string {
  const ids = `${os?.id ?? ''} ${os?.idLike ?? ''}`.toLowerCase();
  for (const f of ['debian', 'ubuntu', 'fedora', 'rhel', 'centos', 'arch', 'alpine', 'suse'])
    if (ids.split(/\s+/).some((id) => id.includes(f))) return f;
  return '';
}

export function installBwrapCommand(os: OsRelease | undefined, sudo: string): string {
  switch (family(os)) {
    case 'debian':
    case 'ubuntu':
      return `${sudo}apt-get install -y bubblewrap`;
    case 'fedora':
    case 'rhel':
    case 'centos':
      return `${sudo}dnf install -y bubblewrap`;
    case 'arch':
      return `${sudo}pacman -S --needed bubblewrap`;
    case 'alpine':
      return `${sudo}apk add bubblewrap`;
    case 'suse':
      return `${sudo}zypper install -y bubblewrap`;
    default:
      return `install your distribution's bubblewrap package (e.g. ${sudo}apt-get install -y bubblewrap)`;
  }
}

/** Writes /etc/apparmor.d/cordon-bwrap (userns allowed for that one binary) and loads it. */
export function apparmorProfileCommand(bwrapPath: string, sudo: string): string {
  const attach = /^[^\s"#,{}]+$/.test(bwrapPath) ? bwrapPath : `"${bwrapPath.replace(/"/g, '\\"')}"`;
  const lines = [
    'abi <abi/4.0>,',
    'include <tunables/global>',
    `profile cordon-bwrap ${attach} flags=(unconfined) {`,
    '  userns,',
    '  include if exists <local/cordon-bwrap>',
    '}',
  ];
  const file = '/etc/apparmor.d/cordon-bwrap';
  return `printf '%s\\n' ${lines.map(shellQuote).join(' ')} | ${sudo}tee ${file} >/dev/null && ${sudo}apparmor_parser -r ${file}`;
}

function persistSysctl(name: string, value: string, sudo: string): string {
  return `${sudo}sysctl -w ${name}=${value} && echo ${name}=${value} | ${sudo}tee /etc/sysctl.d/90-cordon-userns.conf >/dev/null`;
}

function kernelAtLeast(kernel: string, major: number, minor: number): boolean {
  const [ma = 0, mi = 0] = kernel.split(/[.-]/).map(Number);
  return ma > major || (ma === major && mi >= minor);
}

function userNamespaceCheck(f: LinuxFacts, sudo: string): DoctorCheck | undefined {
  const bw = f.bwrap;
  const restricted = f.apparmorRestrictUserns !== undefined && f.apparmorRestrictUserns !== '0';
  const sysctl = `kernel.apparmor_restrict_unprivileged_userns = ${f.apparmorRestrictUserns}`;
  if (!bw) return undefined;
  if (bw.usable) {
    if (!restricted) return undefined;
    return {
      name: 'apparmor userns restriction',
      ok: true,
      detail:
        f.uid === 0
          ? `${sysctl}: root is not affected, but other users' bwrap will fail without a profile for ${bw.path}`
          : `${sysctl}, and bwrap at ${bw.path} is allowed user namespaces (it has an AppArmor profile)`,
      ...(f.uid === 0 ? { fix: `for other users: ${apparmorProfileCommand(bw.path, '')}` } : {}),
    };
  }
  if (restricted)
    return {
      name: 'user namespaces',
      ok: false,
      detail: `blocked by AppArmor (${sysctl}, the default on Ubuntu 23.10+ and many CI runners): ${bw.path} has no AppArmor profile that allows user namespaces`,
      fix: `${apparmorProfileCommand(bw.path, sudo)}   (an AppArmor profile for bwrap only; do not set the sysctl to 0, that turns the protection off for every program)`,
    };
  if (f.unprivilegedUsernsClone === '0')
    return {
      name: 'user namespaces',
      ok: false,
      detail: 'unprivileged user namespaces are switched off (kernel.unprivileged_userns_clone = 0)',
      fix: persistSysctl('kernel.unprivileged_userns_clone', '1', sudo),
    };
  if (f.maxUserNamespaces === '0')
    return {
      name: 'user namespaces',
      ok: false,
      detail: 'user namespaces are switched off (user.max_user_namespaces = 0)',
      fix: persistSysctl('user.max_user_namespaces', '15000', sudo),
    };
  return {
    name: 'user namespaces',
    ok: false,
    detail: `bubblewrap could not start its trial sandbox: ${bw.unusableReason ?? 'unknown error'}`,
    fix: 'inside a container, start it with user namespaces allowed (e.g. docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined); cordon uses Landlock meanwhile where it can',
  };
}

function landlockCheck(f: LinuxFacts, sudo: string): DoctorCheck {
  const abi = f.landlock?.abi ?? 0;
  if (abi > 0)
    return {
      name: 'landlock',
      ok: true,
      detail: `Landlock ABI ${abi}${abi < 4 ? ' (network rules need ABI 4, Linux 6.7; cordon uses seccomp for network-off)' : ''}`,
    };
  if (!kernelAtLeast(f.kernel, 5, 13))
    return {
      name: 'landlock',
      ok: false,
      detail: `kernel ${f.kernel} predates Landlock (Linux 5.13)`,
      fix: 'upgrade to a kernel 5.13 or newer (6.7+ for network rules)',
    };
  const lsm = (f.lsm ?? '').trim();
  if (lsm && !lsm.split(',').includes('landlock')) {
    const list = `${lsm},landlock`;
    return {
      name: 'landlock',
      ok: false,
      detail: `kernel ${f.kernel} has Landlock switched off at boot (active LSMs: ${lsm})`,
      fix: `${sudo}sed -i 's/^GRUB_CMDLINE_LINUX="/&lsm=${list} /' /etc/default/grub && ${sudo}update-grub && ${sudo}reboot`,
    };
  }
  return {
    name: 'landlock',
    ok: false,
    detail: f.landlock?.reason ?? 'no Landlock',
    fix: 'boot a kernel built with CONFIG_SECURITY_LANDLOCK=y and landlock in its lsm= list',
  };
}

export function linuxDoctorChecks(f: LinuxFacts): DoctorCheck[] {
  const sudo = f.uid === 0 ? '' : 'sudo ';
  const checks: DoctorCheck[] = [];
  const bw = f.bwrap;
  checks.push(
    bw
      ? {
          name: 'bwrap',
          ok: bw.usable,
          detail: `bubblewrap ${bw.version} at ${bw.path}: ${bw.usable ? 'trial sandbox with user, pid and net namespaces started' : 'installed, but its trial sandbox failed (see user namespaces)'}`,
        }
      : {
          name: 'bwrap',
          ok: false,
          detail: 'bubblewrap not found on PATH (the preferred Linux backend)',
          fix: installBwrapCommand(f.os, sudo),
        },
  );
  const userns = userNamespaceCheck(f, sudo);
  if (userns) checks.push(userns);
  checks.push(landlockCheck(f, sudo));
  checks.push({
    name: 'seccomp',
    ok: f.seccompActions !== undefined,
    detail: `actions: ${f.seccompActions ?? 'unknown'}`,
  });
  return checks;
}
