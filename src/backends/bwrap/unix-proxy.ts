// The network allowlist's one way out of bubblewrap's empty network namespace (supervisor
// side; docs/net-allowlist.md). The command's proxy variables name 127.0.0.1:P, P being the
// port of cordon's proxy on the HOST's loopback. A TCP connect() to exactly 127.0.0.1:P is
// not performed on the command's socket (that would reach the sandbox's own loopback): the
// supervisor, whose thread lives in the host's network namespace, connects a NEW TCP socket to
// the host's 127.0.0.1:P and installs it over the command's descriptor (ADDFD, SETFD). Every
// other address is connected on the command's own socket, inside the sandbox namespace, where
// nothing but the command's own servers listens. The proxy itself still demands the run's secret.
import * as n from '../../native/seccomp-notify.ts';

const AF_INET = 2;
const SOCK_STREAM = 1;
const EISCONN = 106;
const EINPROGRESS = 115;
const EALREADY = 114;
const EPROTOTYPE = 91;

/** Whether `addr` (the command's sockaddr, read once) is exactly 127.0.0.1:port over AF_INET. */
export function isProxyAddress(addr: Buffer, domain: number, port: number | undefined): boolean {
  if (port === undefined || domain !== AF_INET || addr.length < 8) return false;
  return (
    addr.readUInt16LE(0) === AF_INET &&
    addr.readUInt16BE(2) === port &&
    addr[4] === 127 &&
    addr[5] === 0 &&
    addr[6] === 0 &&
    addr[7] === 1
  );
}

export function proxySockaddr(port: number): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt16LE(AF_INET, 0);
  b.writeUInt16BE(port, 2);
  b.set([127, 0, 0, 1], 4);
  return b;
}

/**
 * An attempt (for the supervisor's attemptOrDefer): connects `fresh` (a non-blocking TCP
 * socket in the host's namespace) to the proxy; undefined while in progress; on success
 * installs it as the command's descriptor `fd` with the command's O_NONBLOCK and close-on-exec.
 */
export function proxyAttempt(
  sock: number,
  fresh: number,
  port: number,
  install: (fresh: number) => number,
): () => number | undefined {
  const target = proxySockaddr(port);
  return () => {
    const r = n.connectFd(fresh, target);
    if (r === -EINPROGRESS || r === -EALREADY) return undefined;
    if (r < 0 && r !== -EISCONN) return -r;
    const own = n.statusFlags(sock);
    n.setStatusFlags(fresh, (n.statusFlags(fresh) & ~n.O_NONBLOCK) | (own & n.O_NONBLOCK));
    const installed = install(fresh);
    return installed < 0 ? -installed : 0;
  };
}

/** A non-blocking TCP socket in this (the host's) namespace; -EPROTOTYPE unless `sock` is a stream. */
export function freshProxySocket(sock: number): number {
  if (n.socketOption(sock, n.SO_TYPE)?.readInt32LE(0) !== SOCK_STREAM) return -EPROTOTYPE;
  return n.socketFd(AF_INET, SOCK_STREAM | n.O_NONBLOCK);
}
