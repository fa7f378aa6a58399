// Small facts about the supervised command's threads, read from /proc, and the sockaddr_un
// builder the supervisor uses for its own connect/bind calls.
import { closeSync, openSync, readFileSync, readlinkSync, readSync } from 'node:fs';
import { SO_PEERCRED, socketOption } from '../../native/seccomp-notify.ts';

const AF_UNIX = 1;
const O_CLOEXEC = 0o2000000;

/** A sockaddr_un for `path` (NUL-terminated). */
export function unixAddress(path: string): Buffer {
  const bytes = Buffer.from(path, 'utf8');
  const addr = Buffer.alloc(2 + bytes.length + 1);
  addr.writeUInt16LE(AF_UNIX, 0);
  bytes.copy(addr, 2);
  return addr;
}

/** Whether descriptor `fd` of thread `pid` is close-on-exec (ADDFD must keep the flag). */
export function closeOnExec(pid: number, fd: number): boolean {
  try {
    const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) !== 0;
  } catch {
    return false;
  }
}

/** The thread's umask, so a socket file the supervisor binds gets the mode the command expects. */
export function umaskOf(pid: number): number {
  try {
    const m = /^Umask:\s+([0-7]+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return m === undefined ? 0o022 : Number.parseInt(m, 8);
  } catch {
    return 0o022;
  }
}

/** The thread group (process) of thread `tid`. */
export function threadGroupOf(tid: number): number {
  const m = /^Tgid:\s+(\d+)/m.exec(readFileSync(`/proc/${tid}/status`, 'utf8'))?.[1];
  return m === undefined ? tid : Number(m);
}

/**
 * Whether the listening end `sock` is connected to was set up (listen()) by a process in the
 * caller's pid namespace — one bwrap created, never the host's (`hostPidNs`). SO_PEERCRED
 * holds the listener's pid as of listen(); the socket keeps that pid number allocated.
 */
export function listenerInCallersPidNs(sock: number, caller: number, hostPidNs: string): boolean {
  const pid = socketOption(sock, SO_PEERCRED, 12)?.readInt32LE(0) ?? 0;
  if (pid <= 0) return false;
  try {
    const mine = readlinkSync(`/proc/${caller}/ns/pid`);
    return mine !== hostPidNs && readlinkSync(`/proc/${pid}/ns/pid`) === mine;
  } catch {
    return false;
  }
}

/**
 * The sockaddr at `ptr` (length `lenArg`) in thread `pid`, read once from /proc/PID/mem: the
 * bytes, an errno (EINVAL, EACCES, EFAULT), or -1 when `stillValid` says the notification went
 * stale (the pid may have been reused).
 */
export function readSockaddr(
  pid: number,
  ptr: bigint,
  lenArg: bigint,
  stillValid: () => boolean,
): Buffer | number {
  const len = Number(lenArg & 0xffffffffn);
  if (len < 2 || len > 128) return 22;
  const buf = Buffer.alloc(len);
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/mem`, 'r');
  } catch {
    return 13;
  }
  try {
    if (readSync(fd, buf, 0, len, ptr) !== len) return 14;
  } catch {
    return 14;
  } finally {
    closeSync(fd);
  }
  return stillValid() ? buf : -1;
}
