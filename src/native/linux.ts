// Linux system calls cordon needs that Node does not expose, through koffi (loaded lazily:
// only runs that need them pay the ~20 ms load). Owns: prctl (child subreaper, no_new_privs,
// seccomp), fcntl (FD_CLOEXEC), and the raw syscall entry used by the Landlock launcher.
import { loadKoffi } from './koffi.ts';

export const PR_SET_PDEATHSIG = 1;
export const PR_SET_SECCOMP = 22;
export const PR_SET_CHILD_SUBREAPER = 36;
export const PR_SET_NO_NEW_PRIVS = 38;

interface LibC {
  prctl(
    option: number,
    a2: number | bigint,
    a3: number | bigint,
    a4: number | bigint,
    a5: number | bigint,
  ): number;
  fcntl(fd: number, cmd: number, arg: number): number;
  syscall: (...args: unknown[]) => number | bigint;
  /** prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &{len, filter}) with `program` as the filter. */
  prctlSeccompFilter(option: number, mode: number, program: Buffer): number;
  errno(): number;
  pipe2(fds: Buffer, flags: number): number;
  // biome-ignore lint/suspicious/noExplicitAny: koffi's own surface is untyped here
  koffi: any;
}

let cached: LibC | undefined;

export function loadLibC(): LibC {
  if (cached) return cached;
  const koffi = loadKoffi();
  const lib = koffi.load('libc.so.6');
  const prctl = lib.func(
    'int prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5)',
  );
  const fcntl = lib.func('int fcntl(int fd, int cmd, int arg)');
  const syscall = lib.func('long syscall(long number, ...)');
  koffi.struct('cordon_sock_fprog', { len: 'uint16', filter: 'void *' });
  const prctlFprog = lib.func(
    'int prctl(int option, unsigned long a2, cordon_sock_fprog *a3, unsigned long a4, unsigned long a5)',
  );
  const pipe2 = lib.func('int pipe2(void *fds, int flags)');
  cached = {
    pipe2: (fds, flags) => pipe2(fds, flags),
    prctl: (o, a, b, c, d) => prctl(o, a, b, c, d),
    fcntl: (fd, cmd, arg) => fcntl(fd, cmd, arg),
    syscall: (...args) => syscall(...args),
    prctlSeccompFilter: (option, mode, program) =>
      prctlFprog(option, mode, { len: program.length / 8, filter: program }, 0, 0),
    errno: () => koffi.errno(),
    koffi,
  };
  return cached;
}

/** Make this process adopt orphaned descendants (they are reparented to us, not to init). */
export function becomeChildSubreaper(): boolean {
  try {
    return loadLibC().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0;
  } catch {
    return false;
  }
}

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

/** Set FD_CLOEXEC on the listed descriptors so no spawned program inherits them. */
export function setCloseOnExec(fds: readonly number[]): void {
  if (fds.length === 0) return;
  const libc = loadLibC();
  for (const fd of fds) {
    const flags = libc.fcntl(fd, F_GETFD, 0);
    if (flags >= 0 && (flags & FD_CLOEXEC) === 0) libc.fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}

const O_CLOEXEC = 0o2000000;

/**
 * A real pipe (read end, write end), both close-on-exec. Node's 'pipe' stdio gives the child a
 * socketpair, and opening /dev/stdout or /dev/stderr (`echo x > /dev/stderr`) fails with ENXIO
 * on a socket; a pipe behaves as a shell user expects.
 */
export function createPipe(): [number, number] {
  const fds = Buffer.alloc(8);
  if (loadLibC().pipe2(fds, O_CLOEXEC) !== 0) throw new Error('pipe2 failed');
  return [fds.readInt32LE(0), fds.readInt32LE(4)];
}

const RLIMIT_FSIZE = 1;
const PRLIMIT64: Readonly<Record<string, number>> = { x64: 302, arm64: 261 };

/**
 * RLIMIT_FSIZE of this process, soft = hard, in bytes (inherited across fork and exec). Used
 * by the CLI's Landlock self mode, where no unconfined join step can run before the command.
 */
export function setFileSizeLimit(bytes: number): void {
  const nr = PRLIMIT64[process.arch];
  if (nr === undefined) throw new Error(`prlimit64 number unknown on ${process.arch}`);
  const libc = loadLibC();
  const limit = Buffer.alloc(16);
  limit.writeBigUInt64LE(BigInt(bytes), 0);
  limit.writeBigUInt64LE(BigInt(bytes), 8);
  const rc = Number(libc.syscall(nr, 'int', 0, 'int', RLIMIT_FSIZE, 'void *', limit, 'void *', null));
  if (rc !== 0) throw new Error(`prlimit64(RLIMIT_FSIZE) failed: errno ${libc.errno()}`);
}
