// The unix-socket supervisor's decisions (docs/unix-sockets.md has the whole contract): it
// answers the seccomp notifications of plan/linux/unix-filter.ts on a thread the filter does
// not cover. It reads the command's sockaddr ONCE (/proc/TID/mem, then checks the notification
// is still valid) and acts only on that copy — never SECCOMP_USER_NOTIF_FLAG_CONTINUE.
//   connect, AF_UNIX pathname: resolved in the command's view (openat2 beneath /proc/TID/root,
//     RESOLVE_IN_ROOT) to the socket inode; a NEW socket is connected to exactly that inode and
//     kept only when the listener is the command's own (SO_PEERCRED pid in its pid namespace)
//     or an --allow-unix inode, then installed over the command's fd (ADDFD, SETFD).
//   connect, AF_UNIX abstract: network off → the command's own socket in its namespace;
//     network on → as a pathname connect, by the listener's pid namespace.
//   connect, TCP to 127.0.0.1:P with an allowlist → cordon's proxy on the host (unix-proxy.ts).
//   connect, any other family: the command's own socket (a blocking one waits for completion).
//   bind (network on only): abstract → EACCES; pathname → beneath /proc/TID/root; others as
//   given. No capabilities held: file-system steps get the command's DAC checks.
import { fstatSync, readlinkSync } from 'node:fs';
import * as n from '../../native/seccomp-notify.ts';
import { UNIX_FILTER_NR } from '../../plan/linux/unix-filter.ts';
import { bindOnBehalf } from './unix-bind.ts';
import {
  closeOnExec,
  listenerInCallersPidNs,
  readSockaddr,
  threadGroupOf,
  unixAddress,
} from './unix-procfs.ts';
import { freshProxySocket, isProxyAddress, proxyAttempt } from './unix-proxy.ts';

const [AF_UNIX, SUN_PATH_OFFSET] = [1, 2];
const [EBADF, EAGAIN, EACCES, EINVAL, ENOSYS] = [9, 11, 13, 22, 38];
const [ENOTSOCK, ECONNREFUSED, EINPROGRESS] = [88, 111, 115];

export interface SupervisorSpec {
  readonly network: 'on' | 'off';
  /** Host (dev:ino) keys of sockets the user allowed with --allow-unix. */
  readonly allowed: readonly string[];
  /** The allowlist proxy's port on the host's loopback (unix-proxy.ts). */
  readonly proxyPort?: number | undefined;
}

interface Pending {
  readonly id: bigint;
  readonly fd: number;
}

interface Retry {
  readonly id: bigint;
  /** The errno to reply (0: success), or undefined: try again later. */
  readonly attempt: () => number | undefined;
  readonly cleanup: () => void;
}

export class UnixSupervisor {
  private readonly nr = UNIX_FILTER_NR[process.arch as 'x64' | 'arm64'];
  private readonly allowed: Set<string>;
  private readonly hostPidNs = readlinkSync('/proc/self/ns/pid');
  private readonly pending: Pending[] = [];
  private readonly retries: Retry[] = [];
  private readonly size = n.notifSizes().notif;
  private readonly listener: number;
  private readonly spec: SupervisorSpec;

  constructor(listener: number, spec: SupervisorSpec) {
    this.listener = listener;
    this.spec = spec;
    this.allowed = new Set(spec.allowed);
  }

  /** Serves notifications until `wake` becomes readable or the listener reports an error. */
  serve(wake: number): void {
    for (;;) {
      const fds = [
        { fd: this.listener, events: n.POLLIN },
        { fd: wake, events: n.POLLIN },
        ...this.pending.map((p) => ({ fd: p.fd, events: n.POLLOUT })),
      ];
      // A blocking connect to a full backlog waits in the kernel; here it is retried every 2 ms.
      const revents = n.pollFds(fds, this.retries.length > 0 ? 2 : -1);
      if (revents[0]! & (n.POLLERR | n.POLLNVAL) || revents[1] !== 0) return;
      this.retryConnects();
      for (let i = this.pending.length - 1; i >= 0; i--) {
        if (revents[i + 2] === 0) continue;
        const p = this.pending.splice(i, 1)[0]!;
        const err = n.socketOption(p.fd, n.SO_ERROR)?.readInt32LE(0) ?? EINVAL;
        n.respond(this.listener, p.id, 0, err);
        n.closeFd(p.fd);
      }
      if (revents[0]! & n.POLLIN) {
        const note = n.receive(this.listener, this.size);
        if (note) this.handle(note);
      }
    }
  }

  private retryConnects(): void {
    for (let i = this.retries.length - 1; i >= 0; i--) {
      const r = this.retries[i]!;
      const result = n.stillValid(this.listener, r.id) ? r.attempt() : EACCES;
      if (result === undefined) continue;
      this.retries.splice(i, 1);
      r.cleanup();
      n.respond(this.listener, r.id, 0, result);
    }
  }

  /** Runs `attempt` now, and again later while it says "not yet" (undefined); -1 = deferred. */
  private attemptOrDefer(id: bigint, attempt: () => number | undefined, cleanup: () => void): number {
    const result = attempt();
    if (result !== undefined) {
      cleanup();
      return result;
    }
    this.retries.push({ id, attempt, cleanup });
    return -1;
  }

  private handle(note: n.Notification): void {
    let error: number;
    try {
      error =
        note.nr === this.nr.connect
          ? this.connect(note)
          : note.nr === this.nr.bind
            ? this.bind(note)
            : ENOSYS;
    } catch {
      error = EACCES; // fail closed
    }
    if (error >= 0) n.respond(this.listener, note.id, 0, error);
  }

  /** The sockaddr the call names, read once (unix-procfs.ts); -1 when the notification went stale. */
  private readAddress(note: n.Notification): Buffer | number {
    return readSockaddr(note.pid, note.args[1]!, note.args[2]!, () => n.stillValid(this.listener, note.id));
  }

  /** A duplicate of the command's socket descriptor (the same open file description). */
  private targetSocket(note: n.Notification): number {
    const pidfd = n.pidfdOpenThread(note.pid, () => threadGroupOf(note.pid));
    if (pidfd < 0) return -EACCES;
    try {
      if (!n.stillValid(this.listener, note.id)) return -EACCES;
      const fd = n.pidfdGetfd(pidfd, Number(note.args[0]! & 0xffffffffn) | 0);
      if (fd < 0) return -EBADF;
      if (!n.socketOption(fd, n.SO_DOMAIN)) {
        n.closeFd(fd);
        return -ENOTSOCK;
      }
      return fd;
    } finally {
      n.closeFd(pidfd);
    }
  }

  private connect(note: n.Notification): number {
    const addr = this.readAddress(note);
    if (typeof addr === 'number') return addr;
    const sock = this.targetSocket(note);
    if (sock < 0) return -sock;
    let keep = false;
    try {
      const domain = n.socketOption(sock, n.SO_DOMAIN)!.readInt32LE(0);
      const family = addr.readUInt16LE(0);
      const abstract = addr.length > SUN_PATH_OFFSET && addr[SUN_PATH_OFFSET] === 0;
      if (isProxyAddress(addr, domain, this.spec.proxyPort)) {
        keep = true; // connectProxy owns the descriptor from here
        return this.connectProxy(note, sock);
      }
      if (domain !== AF_UNIX || family !== AF_UNIX || (abstract && this.spec.network === 'off')) {
        keep = true; // connectOwn owns the descriptor from here
        return this.connectOwn(note, sock, addr, domain === AF_UNIX);
      }
      if (addr.length === SUN_PATH_OFFSET) return EINVAL;
      return this.connectChecked(note, sock, addr, abstract);
    } finally {
      if (!keep) n.closeFd(sock);
    }
  }

  /**
   * Connects the command's own socket (closing `sock` when done); -1 when the reply is
   * deferred: a blocking TCP connect in progress, or a blocking unix connect to a full backlog.
   */
  private connectOwn(note: n.Notification, sock: number, addr: Buffer, unix: boolean): number {
    const flags = n.statusFlags(sock);
    const blocking = (flags & n.O_NONBLOCK) === 0;
    let inProgress = false;
    const attempt = () => {
      if (blocking) n.setStatusFlags(sock, flags | n.O_NONBLOCK);
      const r = n.connectFd(sock, addr);
      if (blocking) n.setStatusFlags(sock, flags);
      if (blocking && unix && r === -EAGAIN) return undefined;
      inProgress = blocking && r === -EINPROGRESS;
      return -r;
    };
    const result = this.attemptOrDefer(note.id, attempt, () => {
      if (!inProgress) n.closeFd(sock);
    });
    if (!inProgress) return result;
    this.pending.push({ id: note.id, fd: sock });
    return -1;
  }

  private connectProxy(note: n.Notification, sock: number): number {
    const fresh = freshProxySocket(sock);
    if (fresh < 0) {
      n.closeFd(sock);
      return -fresh;
    }
    const fd = Number(note.args[0]! & 0xffffffffn) | 0;
    const install = (f: number) => n.installFd(this.listener, note.id, f, fd, closeOnExec(note.pid, fd));
    return this.attemptOrDefer(note.id, proxyAttempt(sock, fresh, this.spec.proxyPort!, install), () => {
      n.closeFd(fresh);
      n.closeFd(sock);
    });
  }

  private connectChecked(note: n.Notification, sock: number, addr: Buffer, abstract: boolean): number {
    const type = n.socketOption(sock, n.SO_TYPE)!.readInt32LE(0);
    let target = addr;
    let file = -1;
    let key: string | undefined;
    if (!abstract) {
      const end = addr.indexOf(0, SUN_PATH_OFFSET);
      const path = addr.toString('utf8', SUN_PATH_OFFSET, end < 0 ? addr.length : end);
      file = this.resolve(note, path, 0);
      if (file < 0) return -file;
      const st = fstatSync(file, { bigint: true });
      if (!st.isSocket()) {
        n.closeFd(file);
        return ECONNREFUSED;
      }
      key = `${st.dev}:${st.ino}`;
      target = unixAddress(`/proc/self/fd/${file}`);
    }
    const own = n.statusFlags(sock);
    const fresh = n.socketFd(AF_UNIX, type | n.O_NONBLOCK);
    if (fresh < 0) {
      n.closeFd(file);
      return -fresh;
    }
    const attempt = () => {
      const r = n.connectFd(fresh, target);
      if (r === -EAGAIN && (own & n.O_NONBLOCK) === 0) return undefined; // blocking: wait for room
      if (r < 0) return -r;
      if (
        !(key !== undefined && this.allowed.has(key)) &&
        !listenerInCallersPidNs(fresh, note.pid, this.hostPidNs)
      )
        return EACCES;
      n.setStatusFlags(fresh, (n.statusFlags(fresh) & ~n.O_NONBLOCK) | (own & n.O_NONBLOCK));
      const fd = Number(note.args[0]! & 0xffffffffn) | 0;
      const installed = n.installFd(this.listener, note.id, fresh, fd, closeOnExec(note.pid, fd));
      return installed < 0 ? -installed : 0;
    };
    return this.attemptOrDefer(note.id, attempt, () => {
      n.closeFd(fresh);
      n.closeFd(file);
    });
  }

  /**
   * Resolves `path` as the caller sees it (its root, its cwd for a relative path) to a
   * O_PATH descriptor (`extra`: more open flags, O_DIRECTORY for a parent directory).
   */
  private resolve(note: n.Notification, path: string, extra: number): number {
    const pid = note.pid;
    let absolute = path;
    if (!path.startsWith('/')) {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (!cwd.startsWith('/') || cwd.endsWith(' (deleted)')) return -EACCES;
      absolute = `${cwd}/${path}`;
    }
    const root = n.openat2(-100, `/proc/${pid}/root`, n.O_PATH | n.O_DIRECTORY, 0);
    if (root < 0) return root;
    try {
      // The pid still names the caller (not a reused number), so `root` is the caller's root.
      if (!n.stillValid(this.listener, note.id)) return -EACCES;
      return n.openat2(root, absolute, n.O_PATH | extra, n.RESOLVE_IN_ROOT | n.RESOLVE_NO_MAGICLINKS);
    } finally {
      n.closeFd(root);
    }
  }

  private bind(note: n.Notification): number {
    const addr = this.readAddress(note);
    if (typeof addr === 'number') return addr;
    const sock = this.targetSocket(note);
    if (sock < 0) return -sock;
    try {
      return bindOnBehalf(sock, addr, note.pid, (dir) => this.resolve(note, dir, n.O_DIRECTORY));
    } finally {
      n.closeFd(sock);
    }
  }
}
