// Landlock and seccomp through koffi (x86_64 and aarch64 syscall numbers; Debian 12's headers
// are too old for ABI >= 4, so constants are written out here). Everything here acts on the
// CALLING THREAD (Landlock, no_new_privs, capabilities and seccomp are per-thread): callers
// must only use `confineThisThread` on a thread whose children are meant to be confined and
// that never again needs more access than the command (see backends/landlock/launch.ts).
import { closeSync, openSync, readFileSync } from 'node:fs';
import { buildSeccompProgram, type SeccompOptions } from '../plan/linux/seccomp-bpf.ts';
import { loadLibC, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG, PR_SET_SECCOMP } from './linux.ts';

const SYSCALLS: Record<string, { create: number; addRule: number; restrict: number; capset: number }> = {
  x64: { create: 444, addRule: 445, restrict: 446, capset: 126 },
  arm64: { create: 444, addRule: 445, restrict: 446, capset: 91 },
};

export const LANDLOCK_CREATE_RULESET_VERSION = 1;
const LANDLOCK_RULE_PATH_BENEATH = 1;
const SECCOMP_MODE_FILTER = 2;
const PR_CAPBSET_DROP = 24;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
const O_PATH = 0o10000000;
const O_CLOEXEC = 0o2000000;

function numbers() {
  const n = SYSCALLS[process.arch];
  if (!n) throw new Error(`Landlock syscall numbers unknown for ${process.arch}`);
  return n;
}

/** Landlock ABI version, 0 when the kernel lacks it or it is disabled. */
export function probeLandlockAbi(): number {
  const libc = loadLibC();
  const abi = Number(
    libc.syscall(numbers().create, 'void *', null, 'size_t', 0, 'uint32_t', LANDLOCK_CREATE_RULESET_VERSION),
  );
  return Math.max(abi, 0);
}

/** What the launcher applies: the plan's ruleset with concrete paths (the private tmp dir added). */
export interface ConfineSpec {
  readonly abi: number;
  readonly handledFs: number;
  readonly handledNet: number;
  readonly scoped: number;
  readonly rules: readonly { path: string; rights: number }[];
  readonly seccomp?: SeccompOptions | undefined;
  /** The helper only: the cgroup.procs file it moves itself into before confining. */
  readonly cgroupProcs?: string | undefined;
}

export class ConfineError extends Error {}

function fail(step: string, errno: number): never {
  throw new ConfineError(`${step} failed (errno ${errno})`);
}

/** Drop every capability of this thread (root's too), as bwrap's --cap-drop ALL does. */
function dropCapabilities(): void {
  const libc = loadLibC();
  let last = 40;
  try {
    last = Number(readFileSync('/proc/sys/kernel/cap_last_cap', 'utf8').trim());
  } catch {
    // keep the default
  }
  for (let cap = 0; cap <= last; cap++) libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); // EPERM without CAP_SETPCAP: nothing to drop
  libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  const header = Buffer.alloc(8);
  header.writeUInt32LE(LINUX_CAPABILITY_VERSION_3, 0);
  const data = Buffer.alloc(24); // two { effective, permitted, inheritable } u32 triples, all zero
  if (Number(libc.syscall(numbers().capset, 'void *', header, 'void *', data)) !== 0)
    fail('capset', libc.errno());
}

/**
 * Confines the calling thread: ruleset with one path-beneath rule per entry, no_new_privs,
 * no capabilities, landlock_restrict_self, then the seccomp filter. Irreversible.
 */
export function confineThisThread(spec: ConfineSpec): void {
  const libc = loadLibC();
  const n = numbers();
  const attrSize = spec.abi >= 6 ? 24 : spec.abi >= 4 ? 16 : 8;
  const attr = Buffer.alloc(24);
  attr.writeBigUInt64LE(BigInt(spec.handledFs), 0);
  attr.writeBigUInt64LE(BigInt(spec.handledNet), 8);
  attr.writeBigUInt64LE(BigInt(spec.scoped), 16);
  const rulesetFd = Number(libc.syscall(n.create, 'void *', attr, 'size_t', attrSize, 'uint32_t', 0));
  if (rulesetFd < 0) fail('landlock_create_ruleset', libc.errno());
  try {
    const beneath = Buffer.alloc(12); // packed { u64 allowed_access; s32 parent_fd; }
    for (const rule of spec.rules) {
      let fd: number;
      try {
        fd = openSync(rule.path, O_PATH | O_CLOEXEC);
      } catch (error) {
        throw new ConfineError(`cannot open '${rule.path}': ${(error as NodeJS.ErrnoException).code}`);
      }
      try {
        beneath.writeBigUInt64LE(BigInt(rule.rights), 0);
        beneath.writeInt32LE(fd, 8);
        const rc = Number(
          libc.syscall(
            n.addRule,
            'int',
            rulesetFd,
            'int',
            LANDLOCK_RULE_PATH_BENEATH,
            'void *',
            beneath,
            'uint32_t',
            0,
          ),
        );
        if (rc !== 0) fail(`landlock_add_rule for '${rule.path}'`, libc.errno());
      } finally {
        closeSync(fd);
      }
    }
    if (libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) fail('prctl(PR_SET_NO_NEW_PRIVS)', libc.errno());
    dropCapabilities();
    if (Number(libc.syscall(n.restrict, 'int', rulesetFd, 'uint32_t', 0)) !== 0)
      fail('landlock_restrict_self', libc.errno());
  } finally {
    closeSync(rulesetFd);
  }
  if (spec.seccomp) installSeccomp(buildSeccompProgram(spec.seccomp));
}

function installSeccomp(program: Buffer): void {
  const libc = loadLibC();
  if (libc.prctlSeccompFilter(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program) !== 0)
    fail('prctl(PR_SET_SECCOMP)', libc.errno());
}

/** The kernel sends `signal` to this process when the thread that forked it exits. */
export function setParentDeathSignal(signal: number): void {
  loadLibC().prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0);
}

const F_GETFD = 1;
const F_SETFD = 2;
const F_GETFL = 3;
const F_SETFL = 4;
const FD_CLOEXEC = 1;
const O_NONBLOCK = 0o4000;
const SIGPIPE = 13;
const SIGXFSZ = 25;

/**
 * Replace this process with `file` (execve(2) through libc). Unlike process.execve, a failure
 * returns the errno instead of aborting, and the command starts as a spawned child would:
 * stdio 0-2 inheritable and blocking, SIGPIPE and SIGXFSZ (ignored by Node) back to default.
 * Returns only on failure.
 */
export function execveCommand(
  file: string,
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
): number {
  const libc = loadLibC();
  const lib = libc.koffi.load('libc.so.6');
  const execve = lib.func('int execve(const char *path, const char **argv, const char **envp)');
  const signal = lib.func('void *signal(int sig, void *handler)');
  for (const fd of [0, 1, 2]) {
    const fdFlags = libc.fcntl(fd, F_GETFD, 0);
    if (fdFlags >= 0 && (fdFlags & FD_CLOEXEC) !== 0) libc.fcntl(fd, F_SETFD, fdFlags & ~FD_CLOEXEC);
    const flFlags = libc.fcntl(fd, F_GETFL, 0);
    if (flFlags >= 0 && (flFlags & O_NONBLOCK) !== 0) libc.fcntl(fd, F_SETFL, flFlags & ~O_NONBLOCK);
  }
  signal(SIGPIPE, null);
  signal(SIGXFSZ, null);
  const envp = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  execve(file, [...argv, null], [...envp, null]);
  return libc.errno();
}

/**
 * End this process at once with `code` (_exit(2)), without Node's exit path: after the
 * baseline filter refuses io_uring, libuv's teardown would abort on its ring.
 */
export function exitImmediately(code: number): never {
  const lib = loadLibC().koffi.load('libc.so.6');
  lib.func('void _exit(int status)')(code);
  throw new Error('_exit returned');
}
