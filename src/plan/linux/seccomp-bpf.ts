// Seccomp BPF program loaded by every Linux backend in every network mode, as the bytes of a
// sock_filter array (8 bytes per instruction: u16 code, u8 jt, u8 jf, u32 k, little-endian).
// Pure. The program:
//   1. checks seccomp_data.arch against the one it was built for (x86_64 or aarch64) and kills
//      the process on any other (a 32-bit or foreign ABI — i386's ipc/socketcall multiplexers
//      included — would bypass the number checks); on x86_64 it also kills x32 calls;
//   2. refuses every number above the highest it knows (ENOSYS: seccomp-baseline.ts);
//   3. refuses the baseline list (seccomp-baseline.ts, docs/seccomp.md: keyrings, io_uring,
//      bpf, perf, userfaultfd, kexec, modules, SysV IPC, POSIX mqueues, and the mount family
//      where the backend owns no mount namespace);
//   4. socket()/socketpair(): AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK with NETLINK_ROUTE only
//      (AF_VSOCK reaches the hypervisor host even inside a network namespace, AF_PACKET,
//      the other netlink families: EAFNOSUPPORT / EPROTONOSUPPORT); IP gets EACCES where the
//      network is off and no network namespace isolates it (Landlock);
//   5. the network-off unix-socket rules (to be replaced by the unix-socket layer): AF_UNIX
//      only with SOCK_STREAM or SOCK_SEQPACKET (datagrams reach any named or abstract address),
//      and, when nothing else mediates named sockets, connect() gets EACCES, so no host
//      daemon's socket (/run/docker.sock, an ssh-agent, X11, D-Bus) is reachable.
//   Everything else is allowed.
import {
  AF,
  baselineNumbers,
  ERRNO,
  MAX_KNOWN_NR,
  NETLINK_ROUTE,
  type SeccompArch,
  SYSCALL_TABLE,
} from './seccomp-baseline.ts';

export type { SeccompArch } from './seccomp-baseline.ts';

export interface SeccompOptions {
  readonly arch: SeccompArch;
  /** socket(AF_INET/AF_INET6): allowed (network on, or a private network namespace) or EACCES. */
  readonly ip: 'allow' | 'refuse';
  /** The backend gives the command its own mount namespace (bwrap): mount calls are its own. */
  readonly ownsMountNamespace: boolean;
  /** Network off: the unix-socket rules of step 5, until the unix-socket layer replaces them. */
  readonly unixNetworkOff?: { readonly refuseConnect: boolean } | undefined;
}

export const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

export const X32_SYSCALL_BIT = 0x40000000;
export const SOCK_STREAM = 1;
export const SOCK_SEQPACKET = 5;
export const { EACCES, ENOSYS } = ERRNO;

// BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
export const BPF = {
  LD_W_ABS: 0x20,
  ALU_AND_K: 0x54,
  JEQ_K: 0x15,
  JGE_K: 0x35,
  JGT_K: 0x25,
  RET_K: 0x06,
} as const;
export const RET_KILL_PROCESS = 0x80000000;
export const RET_ALLOW = 0x7fff0000;
export const RET_ERRNO = 0x00050000;

// Offsets into struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; }; both
// architectures are little-endian, so an int argument is the low word at 16 + 8 * i.
const OFF_NR = 0;
const OFF_ARCH = 4;
const offArg = (i: number) => 16 + 8 * i;

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Label = string;
/** An instruction whose jump targets may still be labels, resolved by `assemble`. */
interface Pending {
  code: number;
  k: number;
  jt?: Label;
  jf?: Label;
  label?: Label;
}

function assemble(program: readonly Pending[]): Insn[] {
  const at = new Map<Label, number>();
  program.forEach((p, i) => {
    if (p.label !== undefined) at.set(p.label, i);
  });
  return program.map((p, i) => {
    const offset = (label: Label | undefined): number => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255)
        throw new Error(`seccomp: bad jump to ${label} from ${i}`);
      return target - i - 1;
    };
    return { code: p.code, jt: offset(p.jt), jf: offset(p.jf), k: p.k >>> 0 };
  });
}

function buildInstructions(options: SeccompOptions): Insn[] {
  const table = SYSCALL_TABLE[options.arch];
  const nr = (name: string): number => {
    const n = table[name];
    if (n === undefined) throw new Error(`seccomp: no number for ${name} on ${options.arch}`);
    return n;
  };
  const p: Pending[] = [];
  const load = (offset: number, label?: Label) =>
    p.push({ code: BPF.LD_W_ABS, k: offset, ...(label ? { label } : {}) });
  const ifEq = (k: number, jt: Label) => p.push({ code: BPF.JEQ_K, k, jt });
  const ret = (k: number, label?: Label) => p.push({ code: BPF.RET_K, k, ...(label ? { label } : {}) });
  const unixOff = options.unixNetworkOff;

  load(OFF_ARCH);
  p.push({ code: BPF.JEQ_K, k: AUDIT_ARCH[options.arch], jf: 'kill' });
  load(OFF_NR);
  if (options.arch === 'x64') p.push({ code: BPF.JGE_K, k: X32_SYSCALL_BIT, jt: 'kill' });
  p.push({ code: BPF.JGT_K, k: MAX_KNOWN_NR[options.arch], jt: 'e-38' });
  const errnos = new Set<number>([ERRNO.ENOSYS]);
  for (const entry of baselineNumbers(options.arch, options.ownsMountNamespace)) {
    ifEq(entry.nr, `e-${entry.errno}`);
    errnos.add(entry.errno);
  }
  ifEq(nr('socket'), 'socket');
  ifEq(nr('socketpair'), 'socket');
  if (unixOff?.refuseConnect) ifEq(nr('connect'), 'e-13');
  ret(RET_ALLOW);
  // socket(domain, type, protocol) and socketpair(domain, type, protocol, sv): same args; the
  // kernel reads them as int, the low word of each 64-bit slot.
  load(offArg(0), 'socket');
  ifEq(AF.UNIX, 'unix');
  ifEq(AF.INET, 'ip');
  ifEq(AF.INET6, 'ip');
  p.push({ code: BPF.JEQ_K, k: AF.NETLINK, jf: 'e-97' });
  load(offArg(2));
  p.push({ code: BPF.JEQ_K, k: NETLINK_ROUTE, jt: 'ok', jf: 'e-93' });
  errnos.add(ERRNO.EAFNOSUPPORT).add(ERRNO.EPROTONOSUPPORT);
  ret(options.ip === 'allow' ? RET_ALLOW : RET_ERRNO | ERRNO.EACCES, 'ip');
  if (unixOff) {
    load(offArg(1), 'unix');
    p.push({ code: BPF.ALU_AND_K, k: 0xf }); // strip SOCK_NONBLOCK / SOCK_CLOEXEC
    ifEq(SOCK_STREAM, 'ok');
    p.push({ code: BPF.JEQ_K, k: SOCK_SEQPACKET, jt: 'ok', jf: 'e-13' });
    errnos.add(ERRNO.EACCES);
  } else {
    ret(RET_ALLOW, 'unix');
  }
  ret(RET_ALLOW, 'ok');
  for (const errno of [...errnos].sort((a, b) => a - b)) ret(RET_ERRNO | errno, `e-${errno}`);
  ret(RET_KILL_PROCESS, 'kill');
  return assemble(p);
}

/** The program as sock_filter bytes, ready for prctl(PR_SET_SECCOMP) via a sock_fprog. */
export function buildSeccompProgram(options: SeccompOptions): Buffer {
  if (!(options.arch in AUDIT_ARCH))
    throw new Error(`seccomp: architecture ${String(options.arch)} is not supported (x64, arm64 only)`);
  const insns = buildInstructions(options);
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(insn.jt, i * 8 + 2);
    buf.writeUInt8(insn.jf, i * 8 + 3);
    buf.writeUInt32LE(insn.k, i * 8 + 4);
  });
  return buf;
}

/** Whether this host architecture has a filter (node's process.arch names). */
export function isSeccompArch(arch: string): arch is SeccompArch {
  return arch === 'x64' || arch === 'arm64';
}
