// bind() on the command's behalf (the network on: its abstract names would be the host's).
// The command's socket (a pidfd_getfd duplicate) is bound to the address the supervisor read
// once: AF_UNIX abstract → EACCES; AF_UNIX pathname → in the parent directory resolved as the
// command sees it (resolveDir: beneath its root), by name, with the command's umask; any other
// family → as given. The supervisor thread has no capabilities, so DAC applies as to the command.
import * as n from '../../native/seccomp-notify.ts';
import { umaskOf, unixAddress } from './unix-procfs.ts';

const AF_UNIX = 1;
const EACCES = 13;
const EINVAL = 22;
const SUN_PATH_OFFSET = 2;

/** 0 or a positive errno. */
export function bindOnBehalf(
  sock: number,
  addr: Buffer,
  pid: number,
  resolveDir: (dir: string) => number,
): number {
  const domain = n.socketOption(sock, n.SO_DOMAIN)!.readInt32LE(0);
  if (domain !== AF_UNIX || addr.readUInt16LE(0) !== AF_UNIX || addr.length === SUN_PATH_OFFSET)
    return -n.bindFd(sock, addr);
  if (addr[SUN_PATH_OFFSET] === 0) return EACCES; // the host's abstract namespace
  const end = addr.indexOf(0, SUN_PATH_OFFSET);
  const path = addr.toString('utf8', SUN_PATH_OFFSET, end < 0 ? addr.length : end);
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const dir = slash < 0 ? '.' : slash === 0 ? '/' : path.slice(0, slash);
  if (name === '' || name === '.' || name === '..') return EINVAL;
  const dirfd = resolveDir(dir);
  if (dirfd < 0) return -dirfd;
  try {
    const cd = n.changeDir(dirfd);
    if (cd < 0) return -cd;
    const previous = n.setUmask(umaskOf(pid));
    try {
      return -n.bindFd(sock, unixAddress(name));
    } finally {
      n.setUmask(previous);
    }
  } finally {
    n.closeFd(dirfd);
  }
}
