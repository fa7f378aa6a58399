// The seccomp program of the unix-socket supervisor (backends/bwrap/unix-*.ts), as sock_filter
// bytes. Pure. It is installed with a user-notification listener, in addition to (and
// independent of) any other filter bwrap loads. The program:
//   1. kills the process on a foreign architecture or an x32 call (their syscall numbers differ,
//      so they would slip past the number checks);
//   2. connect() → SECCOMP_RET_USER_NOTIF, in every network mode: the supervisor performs the
//      connect itself (a classic filter cannot read the address, a pointer);
//   3. bind() → SECCOMP_RET_USER_NOTIF only with the network on (abstract names are then the
//      host's); with the network off the namespace isolates abstract names and a pathname bind
//      is an ordinary file creation the mounts already mediate;
//   4. socket()/socketpair() of AF_UNIX with a type other than SOCK_STREAM/SOCK_SEQPACKET →
//      EACCES: a datagram socket can sendto() any named socket without connect(), and that
//      address is again behind a pointer (stream and seqpacket sockets ignore or refuse a
//      sendmsg address);
//   5. io_uring_setup → ENOSYS: IORING_OP_CONNECT/BIND would not pass through connect(2).
// Filters stack and the kernel applies the strictest verdict: another filter that returns
// ERRNO for connect() would win over USER_NOTIF, so the others must allow connect and bind.

export type UnixFilterArch = 'x64' | 'arm64';

export interface UnixFilterOptions {
  readonly arch: UnixFilterArch;
  readonly network: 'on' | 'off';
}

const AUDIT_ARCH: Record<UnixFilterArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
export const UNIX_FILTER_NR: Record<
  UnixFilterArch,
  { socket: number; socketpair: number; connect: number; bind: number; ioUringSetup: number }
> = {
  x64: { socket: 41, socketpair: 53, connect: 42, bind: 49, ioUringSetup: 425 },
  arm64: { socket: 198, socketpair: 199, connect: 203, bind: 200, ioUringSetup: 425 },
};

const LD_W_ABS = 0x20;
const ALU_AND_K = 0x54;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
export const RET_USER_NOTIF = 0x7fc00000;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EACCES = 13;
const ENOSYS = 38;
const X32_BIT = 0x40000000;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;

interface Step {
  code: number;
  k: number;
  jt?: string;
  jf?: string;
  label?: string;
}

function assemble(steps: readonly Step[]): Buffer {
  const at = new Map<string, number>();
  steps.forEach((s, i) => {
    if (s.label) at.set(s.label, i);
  });
  const buf = Buffer.alloc(steps.length * 8);
  steps.forEach((s, i) => {
    const off = (label: string | undefined) => {
      if (label === undefined) return 0;
      const target = at.get(label);
      if (target === undefined || target <= i || target - i - 1 > 255)
        throw new Error(`unix filter: bad jump to ${label} from ${i}`);
      return target - i - 1;
    };
    buf.writeUInt16LE(s.code, i * 8);
    buf.writeUInt8(off(s.jt), i * 8 + 2);
    buf.writeUInt8(off(s.jf), i * 8 + 3);
    buf.writeUInt32LE(s.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** The program as sock_filter bytes (8 per instruction, little-endian). */
export function buildUnixFilter(options: UnixFilterOptions): Buffer {
  const nr = UNIX_FILTER_NR[options.arch];
  if (!nr) throw new Error(`unix filter: architecture ${String(options.arch)} is not supported`);
  const s: Step[] = [
    { code: LD_W_ABS, k: 4 }, // seccomp_data.arch
    { code: JEQ_K, k: AUDIT_ARCH[options.arch], jf: 'kill' },
    { code: LD_W_ABS, k: 0 }, // seccomp_data.nr
  ];
  if (options.arch === 'x64') s.push({ code: JGE_K, k: X32_BIT, jt: 'kill' });
  s.push({ code: JEQ_K, k: nr.connect, jt: 'notify' });
  if (options.network === 'on') s.push({ code: JEQ_K, k: nr.bind, jt: 'notify' });
  s.push(
    { code: JEQ_K, k: nr.ioUringSetup, jt: 'enosys' },
    { code: JEQ_K, k: nr.socket, jt: 'socket' },
    { code: JEQ_K, k: nr.socketpair, jt: 'socket' },
    { code: RET_K, k: RET_ALLOW },
    // socket(domain, type, protocol), socketpair(domain, type, protocol, sv): args[0], args[1]
    { code: LD_W_ABS, k: 16, label: 'socket' },
    { code: JEQ_K, k: AF_UNIX, jf: 'allow' },
    { code: LD_W_ABS, k: 24 },
    { code: ALU_AND_K, k: 0xf }, // without SOCK_NONBLOCK / SOCK_CLOEXEC
    { code: JEQ_K, k: SOCK_STREAM, jt: 'allow' },
    { code: JEQ_K, k: SOCK_SEQPACKET, jt: 'allow' },
    { code: RET_K, k: RET_ERRNO | EACCES },
    { code: RET_K, k: RET_ALLOW, label: 'allow' },
    { code: RET_K, k: RET_USER_NOTIF, label: 'notify' },
    { code: RET_K, k: RET_ERRNO | ENOSYS, label: 'enosys' },
    { code: RET_K, k: RET_KILL_PROCESS, label: 'kill' },
  );
  return assemble(s);
}

export function isUnixFilterArch(arch: string): arch is UnixFilterArch {
  return arch === 'x64' || arch === 'arm64';
}
