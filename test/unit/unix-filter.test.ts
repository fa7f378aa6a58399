// The unix-socket supervisor's seccomp program through a small classic-BPF interpreter (the
// opcodes the builder emits, anything else refused). The real-kernel behaviour is checked in
// test/sandbox/unix-sockets.test.ts.
import { describe, expect, it } from 'vitest';
import {
  buildUnixFilter,
  RET_USER_NOTIF,
  UNIX_FILTER_NR,
  type UnixFilterArch,
} from '../../src/plan/linux/unix-filter.ts';

const AUDIT: Record<UnixFilterArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
const ALLOW = 0x7fff0000;
const KILL = 0x80000000;
const EACCES = 0x00050000 | 13;
const ENOSYS = 0x00050000 | 38;

function runBpf(program: Buffer, nr: number, arch: number, args: number[] = []): number {
  const mem = Buffer.alloc(64);
  mem.writeInt32LE(nr, 0);
  mem.writeUInt32LE(arch, 4);
  args.forEach((a, i) => {
    mem.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i);
  });
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) {
      acc = mem.readUInt32LE(k);
      pc++;
    } else if (code === 0x54) {
      acc = (acc & k) >>> 0;
      pc++;
    } else if (code === 0x15) pc += 1 + (acc === k ? jt : jf);
    else if (code === 0x35) pc += 1 + (acc >= k ? jt : jf);
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code.toString(16)}`);
  }
  throw new Error('fell off the end of the program');
}

describe.each(['x64', 'arm64'] as UnixFilterArch[])('unix-socket filter on %s', (arch) => {
  const nr = UNIX_FILTER_NR[arch];
  const off = buildUnixFilter({ arch, network: 'off' });
  const on = buildUnixFilter({ arch, network: 'on' });

  it('hands every connect() to the supervisor, in both network modes', () => {
    expect(runBpf(off, nr.connect, AUDIT[arch])).toBe(RET_USER_NOTIF);
    expect(runBpf(on, nr.connect, AUDIT[arch])).toBe(RET_USER_NOTIF);
  });

  it('hands bind() to the supervisor only with the network on', () => {
    expect(runBpf(off, nr.bind, AUDIT[arch])).toBe(ALLOW);
    expect(runBpf(on, nr.bind, AUDIT[arch])).toBe(RET_USER_NOTIF);
  });

  it('refuses AF_UNIX datagram sockets (sendto any name) but keeps stream, seqpacket and other families', () => {
    for (const prog of [off, on]) {
      for (const call of [nr.socket, nr.socketpair]) {
        expect(runBpf(prog, call, AUDIT[arch], [1, 2])).toBe(EACCES); // SOCK_DGRAM
        expect(runBpf(prog, call, AUDIT[arch], [1, 3])).toBe(EACCES); // SOCK_RAW
        expect(runBpf(prog, call, AUDIT[arch], [1, 2 | 0o4000 | 0o2000000])).toBe(EACCES);
        expect(runBpf(prog, call, AUDIT[arch], [1, 1 | 0o2000000])).toBe(ALLOW);
        expect(runBpf(prog, call, AUDIT[arch], [1, 5])).toBe(ALLOW);
        expect(runBpf(prog, call, AUDIT[arch], [2, 2])).toBe(ALLOW); // AF_INET UDP: another layer's call
      }
    }
  });

  it('refuses io_uring_setup and kills foreign architectures', () => {
    expect(runBpf(off, nr.ioUringSetup, AUDIT[arch])).toBe(ENOSYS);
    expect(runBpf(off, nr.connect, arch === 'x64' ? AUDIT.arm64 : AUDIT.x64)).toBe(KILL);
    expect(runBpf(off, nr.connect, 0x40000003)).toBe(KILL); // i386
  });

  it('leaves everything else alone', () => {
    expect(runBpf(on, 0, AUDIT[arch])).toBe(ALLOW);
    expect(runBpf(on, 1, AUDIT[arch])).toBe(ALLOW);
  });
});

it('x32 calls are killed (their numbers would bypass the checks)', () => {
  const prog = buildUnixFilter({ arch: 'x64', network: 'on' });
  expect(runBpf(prog, 0x40000000 + 42, AUDIT.x64)).toBe(KILL);
});
