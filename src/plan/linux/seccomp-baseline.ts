// The baseline seccomp list: what every Linux backend refuses in every network mode, with the
// reason per entry (docs/seccomp.md renders the same list for people). Pure data. Numbers are
// per architecture: x86_64 has its own table, aarch64 the asm-generic one (no chmod, chown,
// utime, open, ...; different numbers for most calls). Checked against the kernel's
// arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h.
export type SeccompArch = 'x64' | 'arm64';

/**
 * The highest syscall number the filter knows, per architecture (mseal, Linux 6.10, is 462 on
 * both). Anything above — setxattrat (463), removexattrat (466), file_setattr (469), whatever
 * a newer kernel adds — gets ENOSYS, so a call the list has never been reviewed against
 * cannot slip through; libc treats ENOSYS as "older kernel" and falls back.
 */
export const MAX_KNOWN_NR: Record<SeccompArch, number> = { x64: 462, arm64: 462 };

export const ERRNO = {
  EPERM: 1,
  EACCES: 13,
  ENOSYS: 38,
  EPROTONOSUPPORT: 93,
  EAFNOSUPPORT: 97,
} as const;

/**
 * Every entry answers ENOSYS, as a kernel built without the feature would: programs that probe
 * (liburing, util-linux mount's new API, keyutils, multiprocessing back-ends) fall back instead
 * of failing on an unexpected EPERM, and the answer can be told apart from the kernel's own
 * EPERM for a missing capability.
 */
export interface BaselineEntry {
  /** Syscall names; a name missing from an architecture's table does not exist there. */
  readonly names: readonly string[];
  readonly errno: number;
  /** `no-mount-namespace`: only where the backend gives the command no mount namespace of its own. */
  readonly when: 'always' | 'no-mount-namespace';
  readonly reason: string;
}

export const BASELINE: readonly BaselineEntry[] = [
  {
    names: ['add_key', 'request_key', 'keyctl'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason:
      'kernel keyrings are not namespaced: the session and user keyrings hold Kerberos KEYRING: caches and keyctl secrets of the same user',
  },
  {
    names: ['io_uring_setup', 'io_uring_enter', 'io_uring_register'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason:
      'io_uring performs socket, open and connect operations without the syscalls this filter inspects; ENOSYS makes liburing users fall back as on an older kernel',
  },
  {
    names: ['bpf'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: 'eBPF programs and maps are a large kernel attack surface; no build or test needs them',
  },
  {
    names: ['perf_event_open'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: 'performance counters can observe other processes and the kernel (side channels)',
  },
  {
    names: ['userfaultfd'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason:
      'userfaultfd lets a program stall the kernel mid-copy, a common building block of kernel exploits',
  },
  {
    names: ['kexec_load', 'kexec_file_load'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: 'loads a new kernel',
  },
  {
    names: ['init_module', 'finit_module', 'delete_module', 'create_module'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: 'loads or unloads kernel modules',
  },
  {
    names: ['shmget', 'shmat', 'shmdt', 'shmctl'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason:
      "SysV shared memory ids are small integers listed in /proc/sysvipc: outside an IPC namespace the command could attach the host's segments or leave segments behind",
  },
  {
    names: ['msgget', 'msgsnd', 'msgrcv', 'msgctl'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: "SysV message queues: the host's queues, by small integer ids, outside an IPC namespace",
  },
  {
    names: ['semget', 'semop', 'semtimedop', 'semctl'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: "SysV semaphores: the host's semaphore sets, by small integer ids, outside an IPC namespace",
  },
  {
    names: ['mq_open', 'mq_unlink', 'mq_timedsend', 'mq_timedreceive', 'mq_notify', 'mq_getsetattr'],
    errno: ERRNO.ENOSYS,
    when: 'always',
    reason: "POSIX message queues live in the host's mqueue file system outside an IPC namespace",
  },
  {
    names: [
      'mount',
      'umount2',
      'pivot_root',
      'open_tree',
      'move_mount',
      'fsopen',
      'fsconfig',
      'fsmount',
      'fspick',
      'mount_setattr',
    ],
    errno: ERRNO.ENOSYS,
    when: 'no-mount-namespace',
    reason:
      'changing the mount table: without a mount namespace of its own the command would change the host view (Landlock refuses it too; this keeps the new mount API out as well)',
  },
];

/** Numbers of the calls the filter inspects by argument, and of every baseline name. */
export const SYSCALL_TABLE: Record<SeccompArch, Readonly<Record<string, number>>> = {
  x64: {
    socket: 41,
    connect: 42,
    socketpair: 53,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    bpf: 321,
    perf_event_open: 298,
    userfaultfd: 323,
    kexec_load: 246,
    kexec_file_load: 320,
    create_module: 174,
    init_module: 175,
    delete_module: 176,
    finit_module: 313,
    shmget: 29,
    shmat: 30,
    shmctl: 31,
    shmdt: 67,
    semget: 64,
    semop: 65,
    semctl: 66,
    semtimedop: 220,
    msgget: 68,
    msgsnd: 69,
    msgrcv: 70,
    msgctl: 71,
    mq_open: 240,
    mq_unlink: 241,
    mq_timedsend: 242,
    mq_timedreceive: 243,
    mq_notify: 244,
    mq_getsetattr: 245,
    pivot_root: 155,
    mount: 165,
    umount2: 166,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
  },
  arm64: {
    socket: 198,
    socketpair: 199,
    connect: 203,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    io_uring_setup: 425,
    io_uring_enter: 426,
    io_uring_register: 427,
    bpf: 280,
    perf_event_open: 241,
    userfaultfd: 282,
    kexec_load: 104,
    kexec_file_load: 294,
    init_module: 105,
    delete_module: 106,
    finit_module: 273,
    shmget: 194,
    shmctl: 195,
    shmat: 196,
    shmdt: 197,
    semget: 190,
    semctl: 191,
    semtimedop: 192,
    semop: 193,
    msgget: 186,
    msgctl: 187,
    msgrcv: 188,
    msgsnd: 189,
    mq_open: 180,
    mq_unlink: 181,
    mq_timedsend: 182,
    mq_timedreceive: 183,
    mq_notify: 184,
    mq_getsetattr: 185,
    umount2: 39,
    mount: 40,
    pivot_root: 41,
    open_tree: 428,
    move_mount: 429,
    fsopen: 430,
    fsconfig: 431,
    fsmount: 432,
    fspick: 433,
    mount_setattr: 442,
  },
};

/** Socket families the filter lets through (everything else: EAFNOSUPPORT). */
export const AF = { UNIX: 1, INET: 2, INET6: 10, NETLINK: 16 } as const;
/** The one netlink protocol allowed (interface and address listing; changes need CAP_NET_ADMIN). */
export const NETLINK_ROUTE = 0;

/** The baseline entries that apply, with this architecture's numbers (absent names dropped). */
export function baselineNumbers(
  arch: SeccompArch,
  ownsMountNamespace: boolean,
): { nr: number; errno: number; name: string }[] {
  const table = SYSCALL_TABLE[arch];
  const out: { nr: number; errno: number; name: string }[] = [];
  for (const entry of BASELINE) {
    if (entry.when === 'no-mount-namespace' && ownsMountNamespace) continue;
    for (const name of entry.names) {
      const nr = table[name];
      if (nr !== undefined) out.push({ nr, errno: entry.errno, name });
    }
  }
  return out;
}
