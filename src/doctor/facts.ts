// The machine facts `cordon doctor` judges on Linux (src/doctor/linux.ts decides, purely).
import { readFileSync } from 'node:fs';
import { release } from 'node:os';
import type { HostInfo } from '../host/types.ts';
import type { LinuxFacts, OsRelease } from './linux.ts';

function readTrimmed(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function parseOsRelease(text: string | undefined): OsRelease | undefined {
  if (text === undefined) return undefined;
  const values: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) values[m[1]!] = m[2]!.replace(/^["']|["']$/g, '');
  }
  return { id: values['ID'], idLike: values['ID_LIKE'], versionId: values['VERSION_ID'] };
}

export function readLinuxFacts(host: HostInfo): LinuxFacts {
  return {
    uid: host.uid,
    os: parseOsRelease(readTrimmed('/etc/os-release') ?? readTrimmed('/usr/lib/os-release')),
    bwrap: host.bwrap,
    apparmorRestrictUserns: readTrimmed('/proc/sys/kernel/apparmor_restrict_unprivileged_userns'),
    unprivilegedUsernsClone: readTrimmed('/proc/sys/kernel/unprivileged_userns_clone'),
    maxUserNamespaces: readTrimmed('/proc/sys/user/max_user_namespaces'),
    landlock: host.landlock,
    lsm: readTrimmed('/sys/kernel/security/lsm'),
    kernel: release(),
    seccompActions: readTrimmed('/proc/sys/kernel/seccomp/actions_avail'),
  };
}
