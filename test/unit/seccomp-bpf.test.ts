// The seccomp program run through a small classic-BPF interpreter (the subset the builder
// emits, plus a refusal of anything else), on seccomp_data for each case that matters.
// The real-kernel behaviour is checked in test/sandbox/landlock.test.ts.
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ARCH,
  buildSeccompProgram,
  RET_ALLOW,
  RET_ERRNO,
  RET_KILL_PROCESS,
  type SeccompArch,
  SYSCALL_NR,
} from '../../src/plan/linux/seccomp-bpf.ts';

interface Data {
  nr: number;
  arch: number;
  args?: number[];
}

function runBpf(program: Buffer, data: Data): number {
  const mem = Buffer.alloc(64);
  mem.writeInt32LE(data.nr, 0);
  mem.writeUInt32LE(data.arch, 4);
  (data.args ?? []).forEach((a, i) => {
    mem.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i);
  });
  let acc = 0;
  for (let pc = 0; pc < program.length / 8; ) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    switch (code) {
      case 0x20:
        if (k % 4 !== 0 || k > 60) throw new Error(`bad load offset ${k}`);
        acc = mem.readUInt32LE(k);
        pc++;
        break;
      case 0x54:
        acc = (acc & k) >>> 0;
        pc++;
        break;
      case 0x15:
        pc += 1 + (acc === k ? jt : jf);
        break;
      case 0x35:
        pc += 1 + (acc >= k ? jt : jf);
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`unexpected opcode ${code.toString(16)} at ${pc}`);
    }
  }
  throw new Error('fell off the end of the program');
}

const EACCES = RET_ERRNO | 13;
const ENOSYS = RET_ERRNO | 38;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const AF_PACKET = 17;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_DGRAM = 2;
const SOCK_RAW = 3;
const SOCK_SEQPACKET = 5;
const SOCK_CLOEXEC = 0o2000000;
const SOCK_NONBLOCK = 0o4000;

describe.each(['x64', 'arm64'] as SeccompArch[])('seccomp program on %s', (arch) => {
  const nr = SYSCALL_NR[arch];
  const own = AUDIT_ARCH[arch];
  const off = buildSeccompProgram({ arch, network: 'off', refuseConnect: true });
  const offAbi9 = buildSeccompProgram({ arch, network: 'off', refuseConnect: false });
  const on = buildSeccompProgram({ arch, network: 'on', refuseConnect: false });
  const run = (program: Buffer, n: number, args: number[] = []) =>
    runBpf(program, { nr: n, arch: own, args });

  it('kills any other architecture (i386, the other 64-bit arch)', () => {
    for (const program of [off, on]) {
      expect(runBpf(program, { nr: 1, arch: 0x40000003 })).toBe(RET_KILL_PROCESS);
      expect(
        runBpf(program, { nr: nr.socket, arch: arch === 'x64' ? AUDIT_ARCH.arm64 : AUDIT_ARCH.x64 }),
      ).toBe(RET_KILL_PROCESS);
    }
  });

  it.runIf(arch === 'x64')('kills x32 system calls', () => {
    expect(run(off, 0x40000000 + nr.socket, [AF_UNIX, SOCK_STREAM])).toBe(RET_KILL_PROCESS);
    expect(run(on, 0x40000000 + 1)).toBe(RET_KILL_PROCESS);
  });

  it('refuses io_uring_setup with ENOSYS in both network modes', () => {
    expect(run(off, nr.ioUringSetup)).toBe(ENOSYS);
    expect(run(on, nr.ioUringSetup)).toBe(ENOSYS);
  });

  it('network off: socket() only for AF_UNIX stream/seqpacket', () => {
    const cases: [number, number, number][] = [
      [AF_INET, SOCK_STREAM, EACCES],
      [AF_INET, SOCK_DGRAM, EACCES],
      [AF_INET6, SOCK_STREAM, EACCES],
      [AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, EACCES],
      [AF_NETLINK, SOCK_RAW, EACCES],
      [AF_PACKET, SOCK_RAW, EACCES],
      [40 /* AF_VSOCK */, SOCK_STREAM, EACCES],
      [AF_UNIX, SOCK_STREAM, RET_ALLOW],
      [AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, RET_ALLOW],
      [AF_UNIX, SOCK_SEQPACKET, RET_ALLOW],
      [AF_UNIX, SOCK_DGRAM, EACCES],
      [AF_UNIX, SOCK_RAW, EACCES],
    ];
    for (const [family, type, expected] of cases) {
      expect([family, type, run(off, nr.socket, [family, type, 0])]).toEqual([family, type, expected]);
      expect([family, type, run(off, nr.socketpair, [family, type, 0, 0])]).toEqual([family, type, expected]);
    }
  });

  it('network off: the family is compared on the low 32 bits the kernel uses', () => {
    expect(run(off, nr.socket, [0x1_0000_0000 + AF_INET, SOCK_STREAM])).toBe(EACCES);
  });

  it('network off: connect() refused below ABI 9, left to Landlock from ABI 9', () => {
    expect(run(off, nr.connect, [3, 0, 0])).toBe(EACCES);
    expect(run(offAbi9, nr.connect, [3, 0, 0])).toBe(RET_ALLOW);
    expect(run(offAbi9, nr.socket, [AF_INET, SOCK_STREAM])).toBe(EACCES);
  });

  it('network on: every socket and connect allowed', () => {
    expect(run(on, nr.socket, [AF_INET, SOCK_STREAM])).toBe(RET_ALLOW);
    expect(run(on, nr.socket, [AF_NETLINK, SOCK_RAW])).toBe(RET_ALLOW);
    expect(run(on, nr.connect, [3, 0, 0])).toBe(RET_ALLOW);
  });

  it('allows unrelated system calls', () => {
    for (const n of [0, 1, 2, 59, 60, 231, 435])
      expect(run(off, n === nr.socket || n === nr.connect ? 0 : n, [0, 0, 0])).toBe(RET_ALLOW);
  });
});

describe('seccomp program shape', () => {
  it('is stable (golden hex)', async () => {
    const text = (['x64', 'arm64'] as SeccompArch[])
      .flatMap((arch) =>
        [
          { network: 'off', refuseConnect: true },
          { network: 'off', refuseConnect: false },
          { network: 'on', refuseConnect: false },
        ].map((o) => {
          const buf = buildSeccompProgram({
            arch,
            ...(o as { network: 'on' | 'off'; refuseConnect: boolean }),
          });
          const lines = [];
          for (let i = 0; i < buf.length; i += 8) lines.push(`  ${buf.subarray(i, i + 8).toString('hex')}`);
          return `${arch} network=${o.network} refuseConnect=${o.refuseConnect} (${buf.length / 8} insns)\n${lines.join('\n')}`;
        }),
      )
      .join('\n');
    await expect(`${text}\n`).toMatchFileSnapshot('./__snapshots__/seccomp-bpf.txt');
  });

  it('refuses unknown architectures', () => {
    expect(() =>
      buildSeccompProgram({ arch: 'ia32' as SeccompArch, network: 'off', refuseConnect: true }),
    ).toThrow(/not supported/);
  });
});
