// Seccomp user notification (seccomp_unotify(2)) and the socket calls the unix-socket
// supervisor makes on the command's behalf, through koffi. x86_64 and aarch64 only (the
// generic syscall numbers below are the same on both; the others are per architecture).
// Everything is synchronous: the supervisor runs these on a dedicated worker thread that
// blocks in poll(2), never on a libuv threadpool thread.
import { loadLibC } from './linux.ts';

const SYSCALLS: Record<string, { seccomp: number; capset: number }> = {
  x64: { seccomp: 317, capset: 126 },
  arm64: { seccomp: 277, capset: 91 },
};
const NR_PIDFD_OPEN = 434;
const NR_OPENAT2 = 437;
const NR_PIDFD_GETFD = 438;

const SECCOMP_SET_MODE_FILTER = 1;
const SECCOMP_GET_NOTIF_SIZES = 3;
export const SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3;
export const SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1 << 5;
export const SECCOMP_USER_NOTIF_FLAG_CONTINUE = 1;
export const SECCOMP_ADDFD_FLAG_SETFD = 1;
const PR_SET_NO_NEW_PRIVS = 38;

// ioctl numbers: _IOWR('!', 0, struct seccomp_notif) etc.; the sizes are the kernel's ABI sizes.
const IOCTL_RECV = 0xc0502100;
const IOCTL_SEND = 0xc0182101;
const IOCTL_ID_VALID = 0x40082102;
const IOCTL_ADDFD = 0x40182103;

export const PIDFD_THREAD = 0o200; // O_EXCL
export const O_PATH = 0o10000000;
export const O_DIRECTORY = 0o200000;
export const O_CLOEXEC = 0o2000000;
export const O_NONBLOCK = 0o4000;
export const RESOLVE_NO_MAGICLINKS = 0x02;
export const RESOLVE_IN_ROOT = 0x10;
export const POLLIN = 0x1;
export const POLLOUT = 0x4;
export const POLLERR = 0x8;
export const POLLHUP = 0x10;
export const POLLNVAL = 0x20;
const SOL_SOCKET = 1;
export const SO_TYPE = 3;
export const SO_ERROR = 4;
export const SO_PEERCRED = 17;
export const SO_DOMAIN = 39;
const F_GETFL = 3;
const F_SETFL = 4;

export interface Notification {
  readonly id: bigint;
  /** Thread id of the caller, in the supervisor's pid namespace (0 when not visible). */
  readonly pid: number;
  readonly nr: number;
  readonly arch: number;
  readonly args: readonly bigint[];
}

// biome-ignore lint/suspicious/noExplicitAny: koffi function objects are untyped
type Fn = (...args: any[]) => any;
interface Calls {
  ioctl: Fn;
  poll: Fn;
  socket: Fn;
  connect: Fn;
  bind: Fn;
  getsockopt: Fn;
  fcntl: Fn;
  fchdir: Fn;
  close: Fn;
  umask: Fn;
  syscall: Fn;
  errno: () => number;
}

let cached: Calls | undefined;
function calls(): Calls {
  if (cached) return cached;
  const libc = loadLibC();
  const lib = libc.koffi.load('libc.so.6');
  cached = {
    ioctl: lib.func('int ioctl(int fd, unsigned long req, void *arg)'),
    poll: lib.func('int poll(void *fds, unsigned long nfds, int timeout)'),
    socket: lib.func('int socket(int domain, int type, int protocol)'),
    connect: lib.func('int connect(int fd, const void *addr, uint32_t len)'),
    bind: lib.func('int bind(int fd, const void *addr, uint32_t len)'),
    getsockopt: lib.func('int getsockopt(int fd, int level, int name, void *val, void *len)'),
    fcntl: lib.func('int fcntl(int fd, int cmd, int arg)'),
    fchdir: lib.func('int fchdir(int fd)'),
    close: lib.func('int close(int fd)'),
    umask: lib.func('uint32_t umask(uint32_t mask)'),
    syscall: libc.syscall,
    errno: libc.errno,
  };
  return cached;
}

function nr(): { seccomp: number; capset: number } {
  const n = SYSCALLS[process.arch];
  if (!n) throw new Error(`seccomp user notification: no syscall numbers for ${process.arch}`);
  return n;
}

/** A result or a negative errno. */
const orErrno = (c: Calls, r: number | bigint): number => {
  const v = Number(r);
  return v < 0 ? -c.errno() : v;
};

/** Sizes the kernel uses for seccomp_notif, seccomp_notif_resp and seccomp_data. */
export function notifSizes(): { notif: number; resp: number; data: number } {
  const c = calls();
  const buf = Buffer.alloc(6);
  if (orErrno(c, c.syscall(nr().seccomp, 'uint', SECCOMP_GET_NOTIF_SIZES, 'uint', 0, 'void *', buf)) < 0)
    throw new Error(`SECCOMP_GET_NOTIF_SIZES failed (errno ${c.errno()})`);
  return { notif: buf.readUInt16LE(0), resp: buf.readUInt16LE(2), data: buf.readUInt16LE(4) };
}

let fprogDeclared = false;

/**
 * Sets no_new_privs and installs `program` (sock_filter bytes) on the CALLING THREAD with a
 * new listener; returns the listener descriptor (close-on-exec, as the kernel creates it).
 */
export function installListenerFilter(program: Buffer): number {
  const c = calls();
  const libc = loadLibC();
  if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0)
    throw new Error(`no_new_privs failed (errno ${c.errno()})`);
  // struct sock_fprog { u16 len; struct sock_filter *filter; }: the pointer is written by koffi.
  if (!fprogDeclared) libc.koffi.struct('cordon_notify_fprog', { len: 'uint16', filter: 'void *' });
  fprogDeclared = true;
  const install = (flags: number) =>
    orErrno(
      c,
      c.syscall(nr().seccomp, 'uint', SECCOMP_SET_MODE_FILTER, 'uint', flags, 'cordon_notify_fprog *', {
        len: program.length / 8,
        filter: program,
      }),
    );
  // WAIT_KILLABLE_RECV (5.19): once read, a notification is not restarted by a harmless signal.
  let fd = install(SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
  if (fd === -22) fd = install(SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (fd < 0) throw new Error(`seccomp(SET_MODE_FILTER, NEW_LISTENER) failed (errno ${-fd})`);
  return fd;
}

/** Blocks until one of `fds` is ready (or `timeoutMs`); returns the revents per fd. */
export function pollFds(fds: readonly { fd: number; events: number }[], timeoutMs: number): number[] {
  const c = calls();
  const buf = Buffer.alloc(8 * fds.length);
  fds.forEach((f, i) => {
    buf.writeInt32LE(f.fd, i * 8);
    buf.writeInt16LE(f.events, i * 8 + 4);
  });
  for (;;) {
    const r = c.poll(buf, fds.length, timeoutMs);
    if (r >= 0) break;
    if (c.errno() !== 4) throw new Error(`poll failed (errno ${c.errno()})`); // EINTR: again
  }
  return fds.map((_, i) => buf.readUInt16LE(i * 8 + 6));
}

/** SECCOMP_IOCTL_NOTIF_RECV; undefined when the target went away before it was read. */
export function receive(listener: number, size: number): Notification | undefined {
  const c = calls();
  const buf = Buffer.alloc(Math.max(size, 80));
  if (c.ioctl(listener, IOCTL_RECV, buf) !== 0) {
    const e = c.errno();
    if (e === 2 || e === 4) return undefined; // ENOENT: target died; EINTR
    throw new Error(`SECCOMP_IOCTL_NOTIF_RECV failed (errno ${e})`);
  }
  const args: bigint[] = [];
  for (let i = 0; i < 6; i++) args.push(buf.readBigUInt64LE(32 + 8 * i));
  return {
    id: buf.readBigUInt64LE(0),
    pid: buf.readUInt32LE(8),
    nr: buf.readInt32LE(16),
    arch: buf.readUInt32LE(20),
    args,
  };
}

/** Replies to a notification: `error` is a positive errno (0 for success with `value`). */
export function respond(listener: number, id: bigint, value: number, error: number, flags = 0): boolean {
  const c = calls();
  const buf = Buffer.alloc(24);
  buf.writeBigUInt64LE(id, 0);
  buf.writeBigInt64LE(BigInt(value), 8);
  buf.writeInt32LE(error === 0 ? 0 : -error, 16);
  buf.writeUInt32LE(flags, 20);
  return c.ioctl(listener, IOCTL_SEND, buf) === 0;
}

/** Whether the notification is still pending (its target has not died or been interrupted). */
export function stillValid(listener: number, id: bigint): boolean {
  const c = calls();
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64LE(id, 0);
  return c.ioctl(listener, IOCTL_ID_VALID, buf) === 0;
}

/** Installs `srcfd` in the target as descriptor `targetFd` (replacing it); negative errno on failure. */
export function installFd(
  listener: number,
  id: bigint,
  srcfd: number,
  targetFd: number,
  cloexec: boolean,
): number {
  const c = calls();
  const buf = Buffer.alloc(24);
  buf.writeBigUInt64LE(id, 0);
  buf.writeUInt32LE(SECCOMP_ADDFD_FLAG_SETFD, 8);
  buf.writeUInt32LE(srcfd, 12);
  buf.writeUInt32LE(targetFd, 16);
  buf.writeUInt32LE(cloexec ? O_CLOEXEC : 0, 20);
  return orErrno(c, c.ioctl(listener, IOCTL_ADDFD, buf));
}

/** A pidfd for thread `tid` (PIDFD_THREAD, 6.9+), else for its thread group (same fd table). */
export function pidfdOpenThread(tid: number, tgid: () => number): number {
  const c = calls();
  const fd = orErrno(c, c.syscall(NR_PIDFD_OPEN, 'int', tid, 'uint', PIDFD_THREAD));
  if (fd !== -22) return fd;
  return orErrno(c, c.syscall(NR_PIDFD_OPEN, 'int', tgid(), 'uint', 0));
}

/** A duplicate of descriptor `fd` of the process behind `pidfd` (same open file description). */
export function pidfdGetfd(pidfd: number, fd: number): number {
  const c = calls();
  return orErrno(c, c.syscall(NR_PIDFD_GETFD, 'int', pidfd, 'int', fd, 'uint', 0));
}

/** openat2(2); negative errno on failure. */
export function openat2(dirfd: number, path: string, flags: number, resolve: number): number {
  const c = calls();
  const how = Buffer.alloc(24);
  how.writeBigUInt64LE(BigInt(flags | O_CLOEXEC), 0);
  how.writeBigUInt64LE(BigInt(resolve), 16);
  return orErrno(c, c.syscall(NR_OPENAT2, 'int', dirfd, 'const char *', path, 'void *', how, 'size_t', 24));
}

export function socketFd(domain: number, type: number): number {
  const c = calls();
  return orErrno(c, c.socket(domain, type | O_CLOEXEC, 0));
}

export function connectFd(fd: number, addr: Buffer): number {
  const c = calls();
  return c.connect(fd, addr, addr.length) === 0 ? 0 : -c.errno();
}

export function bindFd(fd: number, addr: Buffer): number {
  const c = calls();
  return c.bind(fd, addr, addr.length) === 0 ? 0 : -c.errno();
}

/** getsockopt(SOL_SOCKET, name) into a buffer of `size` bytes; undefined on error. */
export function socketOption(fd: number, name: number, size = 4): Buffer | undefined {
  const c = calls();
  const val = Buffer.alloc(size);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(size, 0);
  return c.getsockopt(fd, SOL_SOCKET, name, val, len) === 0 ? val : undefined;
}

export function statusFlags(fd: number): number {
  return calls().fcntl(fd, F_GETFL, 0);
}

export function setStatusFlags(fd: number, flags: number): void {
  calls().fcntl(fd, F_SETFL, flags);
}

export function changeDir(fd: number): number {
  const c = calls();
  return c.fchdir(fd) === 0 ? 0 : -c.errno();
}

/** umask(2) for the whole process; returns the previous mask. */
export function setUmask(mask: number): number {
  return calls().umask(mask);
}

export function closeFd(fd: number): void {
  if (fd >= 0) calls().close(fd);
}

/** Drops every capability of the calling thread (effective, permitted, inheritable). */
export function dropThreadCapabilities(): void {
  const c = calls();
  const header = Buffer.alloc(8);
  header.writeUInt32LE(0x20080522, 0);
  const data = Buffer.alloc(24);
  if (orErrno(c, c.syscall(nr().capset, 'void *', header, 'void *', data)) < 0)
    throw new Error(`capset failed (errno ${c.errno()})`);
}
