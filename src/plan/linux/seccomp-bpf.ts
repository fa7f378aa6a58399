// Seccomp BPF program for the Landlock backend, as the bytes of a sock_filter array (8 bytes
// per instruction: u16 code, u8 jt, u8 jf, u32 k, little-endian). Pure. The program:
//   1. checks seccomp_data.arch against the one it was built for (x86_64 or aarch64) and kills
//      the process on any other (a 32-bit or foreign ABI would bypass the number checks);
//      on x86_64 it also kills x32 calls (nr >= 0x40000000);
//   2. refuses io_uring_setup with ENOSYS (io_uring can open sockets without socket(2); ENOSYS
//      makes liburing users fall back as on an old kernel). io_uring_enter/register stay
//      allowed: without setup no ring exists in the sandbox (cordon's own rings are
//      close-on-exec), and the CLI's own libuv ring must keep working when the CLI confines
//      its main thread (refusing io_uring_enter there aborts libuv);
//   3. with the network off: socket() and socketpair() only for AF_UNIX with SOCK_STREAM or
//      SOCK_SEQPACKET (AF_INET, AF_INET6, AF_NETLINK, AF_PACKET, AF_VSOCK, ... get EACCES;
//      AF_UNIX datagrams can be sent to any named or abstract address, so they go too), and,
//      when Landlock cannot mediate named unix sockets (ABI < 9), connect() gets EACCES, so
//      no host socket (/run/docker.sock, an ssh-agent, X11, D-Bus) is reachable.
//   Everything else is allowed.

export type SeccompArch = 'x64' | 'arm64';

export interface SeccompOptions {
  readonly arch: SeccompArch;
  readonly network: 'on' | 'off';
  /** Refuse connect() (network off and no Landlock RESOLVE_UNIX right to do it by path). */
  readonly refuseConnect: boolean;
}

export const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** The syscall numbers the program names, per architecture. */
export const SYSCALL_NR: Record<
  SeccompArch,
  {
    socket: number;
    socketpair: number;
    connect: number;
    ioUringSetup: number;
  }
> = {
  x64: { socket: 41, socketpair: 53, connect: 42, ioUringSetup: 425 },
  arm64: { socket: 198, socketpair: 199, connect: 203, ioUringSetup: 425 },
};

export const X32_SYSCALL_BIT = 0x40000000;
export const AF_UNIX = 1;
export const SOCK_STREAM = 1;
export const SOCK_SEQPACKET = 5;
export const EACCES = 13;
export const ENOSYS = 38;

// BPF opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
export const BPF = {
  LD_W_ABS: 0x20,
  ALU_AND_K: 0x54,
  JEQ_K: 0x15,
  JGE_K: 0x35,
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
  const nr = SYSCALL_NR[options.arch];
  const p: Pending[] = [];
  const load = (offset: number, label?: Label) =>
    p.push({ code: BPF.LD_W_ABS, k: offset, ...(label ? { label } : {}) });
  const ifEq = (k: number, jt: Label) => p.push({ code: BPF.JEQ_K, k, jt });
  const ret = (k: number, label?: Label) => p.push({ code: BPF.RET_K, k, ...(label ? { label } : {}) });

  load(OFF_ARCH);
  p.push({ code: BPF.JEQ_K, k: AUDIT_ARCH[options.arch], jf: 'kill' });
  load(OFF_NR);
  if (options.arch === 'x64') p.push({ code: BPF.JGE_K, k: X32_SYSCALL_BIT, jt: 'kill' });
  ifEq(nr.ioUringSetup, 'enosys');
  if (options.network === 'off') {
    ifEq(nr.socket, 'socket');
    ifEq(nr.socketpair, 'socket');
    if (options.refuseConnect) ifEq(nr.connect, 'eacces');
  }
  ret(RET_ALLOW);
  if (options.network === 'off') {
    // socket(domain, type, protocol) and socketpair(domain, type, protocol, sv): same args.
    load(offArg(0), 'socket');
    p.push({ code: BPF.JEQ_K, k: AF_UNIX, jf: 'eacces' });
    load(offArg(1));
    p.push({ code: BPF.ALU_AND_K, k: 0xf }); // strip SOCK_NONBLOCK / SOCK_CLOEXEC
    ifEq(SOCK_STREAM, 'allow');
    ifEq(SOCK_SEQPACKET, 'allow');
    ret(RET_ERRNO | EACCES, 'eacces');
    ret(RET_ALLOW, 'allow');
  }
  ret(RET_ERRNO | ENOSYS, 'enosys');
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
