// Landlock access rights (linux/landlock.h, written out: Debian 12's headers stop before ABI 4)
// and the rights a rule grants per ABI. Pure.
export const FS = {
  EXECUTE: 1 << 0,
  WRITE_FILE: 1 << 1,
  READ_FILE: 1 << 2,
  READ_DIR: 1 << 3,
  REMOVE_DIR: 1 << 4,
  REMOVE_FILE: 1 << 5,
  MAKE_CHAR: 1 << 6,
  MAKE_DIR: 1 << 7,
  MAKE_REG: 1 << 8,
  MAKE_SOCK: 1 << 9,
  MAKE_FIFO: 1 << 10,
  MAKE_BLOCK: 1 << 11,
  MAKE_SYM: 1 << 12,
  REFER: 1 << 13,
  TRUNCATE: 1 << 14,
  IOCTL_DEV: 1 << 15,
  RESOLVE_UNIX: 1 << 16,
} as const;
export const NET = { BIND_TCP: 1, CONNECT_TCP: 2 } as const;
export const SCOPE = { ABSTRACT_UNIX_SOCKET: 1, SIGNAL: 2 } as const;

const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV;
const READ_RIGHTS = FS.EXECUTE | FS.READ_FILE | FS.READ_DIR | FS.IOCTL_DEV;

/** handled_access_fs for an ABI (RESOLVE_UNIX only when the network is off: see seccomp-bpf.ts). */
export function handledFsFor(abi: number, network: 'on' | 'off'): number {
  let mask = (1 << 13) - 1;
  if (abi >= 2) mask |= FS.REFER;
  if (abi >= 3) mask |= FS.TRUNCATE;
  if (abi >= 5) mask |= FS.IOCTL_DEV;
  if (abi >= 9 && network === 'off') mask |= FS.RESOLVE_UNIX;
  return mask;
}

/** Rights a rule grants, restricted to what the ABI handles. Never RESOLVE_UNIX. */
export function rightsFor(access: 'read' | 'write', kind: 'dir' | 'file', handledFs: number): number {
  const all = handledFs & ~FS.RESOLVE_UNIX;
  const wanted = access === 'write' ? all : READ_RIGHTS;
  return kind === 'dir' ? wanted & all : wanted & FILE_RIGHTS & all;
}
