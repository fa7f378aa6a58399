// The seccomp program run through a small classic-BPF interpreter (the subset the builder
// emits, plus a refusal of anything else), on seccomp_data for each case that matters.
// The real-kernel behaviour is checked in test/sandbox/seccomp-baseline.test.ts.
import { describe, expect, it } from 'vitest';
import { BASELINE, MAX_KNOWN_NR, SYSCALL_TABLE } from '../../src/plan/linux/seccomp-baseline.ts';
import {
  AUDIT_ARCH,
  buildSeccompProgram,
  RET_ALLOW,
  RET_ERRNO,
  RET_KILL_PROCESS,
  type SeccompArch,
  type SeccompOptions,
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
      case 0x25:
        pc += 1 + (acc > k ? jt : jf);
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

const EAFNOSUPPORT = RET_ERRNO | 97;
const EPROTONOSUPPORT = RET_ERRNO | 93;
const AF_VSOCK = 40;
const NETLINK_ROUTE = 0;
const NETLINK_AUDIT = 9;

type Variant = 'bwrap-off' | 'bwrap-on' | 'landlock-off' | 'landlock-off-abi9' | 'landlock-on';
const variants = (arch: SeccompArch): Record<Variant, SeccompOptions> => ({
  'bwrap-off': { arch, ip: 'allow', ownsMountNamespace: true, unixNetworkOff: { refuseConnect: true } },
  'bwrap-on': { arch, ip: 'allow', ownsMountNamespace: true },
  'landlock-off': { arch, ip: 'refuse', ownsMountNamespace: false, unixNetworkOff: { refuseConnect: true } },
  'landlock-off-abi9': {
    arch,
    ip: 'refuse',
    ownsMountNamespace: false,
    unixNetworkOff: { refuseConnect: false },
  },
  'landlock-on': { arch, ip: 'allow', ownsMountNamespace: false },
});

describe.each(['x64', 'arm64'] as SeccompArch[])('seccomp program on %s', (arch) => {
  const nr = SYSCALL_TABLE[arch] as Record<string, number>;
  const own = AUDIT_ARCH[arch];
  const programs = Object.fromEntries(
    Object.entries(variants(arch)).map(([k, o]) => [k, buildSeccompProgram(o)]),
  ) as Record<Variant, Buffer>;
  const all = Object.values(programs);
  const run = (program: Buffer, n: number, args: number[] = []) =>
    runBpf(program, { nr: n, arch: own, args });

  it('kills any other architecture (i386, the other 64-bit arch)', () => {
    for (const program of all) {
      expect(runBpf(program, { nr: 1, arch: 0x40000003 })).toBe(RET_KILL_PROCESS);
      expect(
        runBpf(program, { nr: nr['socket']!, arch: arch === 'x64' ? AUDIT_ARCH.arm64 : AUDIT_ARCH.x64 }),
      ).toBe(RET_KILL_PROCESS);
    }
  });

  it.runIf(arch === 'x64')('kills x32 system calls', () => {
    for (const program of all) {
      expect(run(program, 0x40000000 + nr['socket']!, [AF_UNIX, SOCK_STREAM])).toBe(RET_KILL_PROCESS);
      expect(run(program, 0x40000000 + 1)).toBe(RET_KILL_PROCESS);
    }
  });

  it('refuses every number above the highest it knows with ENOSYS (setxattrat, file_setattr, ...)', () => {
    for (const program of all) {
      expect(run(program, MAX_KNOWN_NR[arch])).toBe(RET_ALLOW);
      for (const n of [MAX_KNOWN_NR[arch] + 1, 463, 466, 469, 1000, 0x3fffffff])
        expect(run(program, n)).toBe(ENOSYS);
    }
  });

  it('refuses every baseline entry in every mode, the mount family where no mount namespace is owned', () => {
    for (const [variant, program] of Object.entries(programs)) {
      for (const entry of BASELINE) {
        for (const name of entry.names) {
          const n = nr[name];
          if (n === undefined) continue; // not on this architecture (create_module on arm64)
          const owned = variant.startsWith('bwrap');
          const expected = entry.when === 'no-mount-namespace' && owned ? RET_ALLOW : RET_ERRNO | entry.errno;
          expect([variant, name, run(program, n)]).toEqual([variant, name, expected]);
        }
      }
    }
    expect(run(programs['landlock-on'], nr['keyctl']!)).toBe(ENOSYS);
    expect(run(programs['bwrap-on'], nr['mount']!)).toBe(RET_ALLOW);
    expect(run(programs['landlock-on'], nr['mount']!)).toBe(ENOSYS);
  });

  it('socket families: AF_UNIX, IP and NETLINK_ROUTE only, in every mode', () => {
    for (const program of all) {
      for (const call of ['socket', 'socketpair']) {
        const n = nr[call]!;
        expect(run(program, n, [AF_VSOCK, SOCK_STREAM, 0])).toBe(EAFNOSUPPORT);
        expect(run(program, n, [AF_PACKET, SOCK_RAW, 0])).toBe(EAFNOSUPPORT);
        expect(run(program, n, [38 /* AF_ALG */, 5, 0])).toBe(EAFNOSUPPORT);
        expect(run(program, n, [AF_NETLINK, SOCK_RAW, NETLINK_AUDIT])).toBe(EPROTONOSUPPORT);
        expect(run(program, n, [AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE])).toBe(RET_ALLOW);
        expect(run(program, n, [0x1_0000_0000 + AF_VSOCK, SOCK_STREAM, 0])).toBe(EAFNOSUPPORT);
      }
    }
  });

  it('IP: allowed under bwrap (own network namespace) and with the network on; EACCES under Landlock off', () => {
    for (const v of ['bwrap-off', 'bwrap-on', 'landlock-on'] as Variant[]) {
      expect(run(programs[v], nr['socket']!, [AF_INET, SOCK_STREAM, 0])).toBe(RET_ALLOW);
      expect(run(programs[v], nr['socket']!, [AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0])).toBe(RET_ALLOW);
    }
    for (const v of ['landlock-off', 'landlock-off-abi9'] as Variant[]) {
      expect(run(programs[v], nr['socket']!, [AF_INET, SOCK_STREAM, 0])).toBe(EACCES);
      expect(run(programs[v], nr['socket']!, [AF_INET6, SOCK_DGRAM, 0])).toBe(EACCES);
      // the family is compared on the low 32 bits the kernel uses
      expect(run(programs[v], nr['socket']!, [0x1_0000_0000 + AF_INET, SOCK_STREAM])).toBe(EACCES);
    }
  });

  it('network off: AF_UNIX stream/seqpacket only and connect() refused (the rules the unix layer replaces)', () => {
    for (const v of ['bwrap-off', 'landlock-off', 'landlock-off-abi9'] as Variant[]) {
      const p = programs[v];
      expect(run(p, nr['socket']!, [AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0])).toBe(RET_ALLOW);
      expect(run(p, nr['socket']!, [AF_UNIX, SOCK_SEQPACKET, 0])).toBe(RET_ALLOW);
      expect(run(p, nr['socket']!, [AF_UNIX, SOCK_DGRAM, 0])).toBe(EACCES);
      expect(run(p, nr['socketpair']!, [AF_UNIX, SOCK_STREAM, 0, 0])).toBe(RET_ALLOW);
    }
    expect(run(programs['bwrap-off'], nr['connect']!, [3, 0, 0])).toBe(EACCES);
    expect(run(programs['landlock-off'], nr['connect']!, [3, 0, 0])).toBe(EACCES);
    expect(run(programs['landlock-off-abi9'], nr['connect']!, [3, 0, 0])).toBe(RET_ALLOW);
  });

  it('network on: every AF_UNIX socket and connect allowed', () => {
    for (const v of ['bwrap-on', 'landlock-on'] as Variant[]) {
      expect(run(programs[v], nr['socket']!, [AF_UNIX, SOCK_DGRAM, 0])).toBe(RET_ALLOW);
      expect(run(programs[v], nr['connect']!, [3, 0, 0])).toBe(RET_ALLOW);
    }
  });

  it('allows unrelated system calls', () => {
    const named = new Set(Object.values(nr));
    for (const n of [0, 1, 2, 56, 57, 59, 60, 93, 220, 221, 231, 435, 439, 452])
      if (!named.has(n)) for (const program of all) expect(run(program, n, [0, 0, 0])).toBe(RET_ALLOW);
  });
});

describe('seccomp program shape', () => {
  it('is stable (golden hex)', async () => {
    const text = (['x64', 'arm64'] as SeccompArch[])
      .flatMap((arch) =>
        Object.entries(variants(arch)).map(([name, o]) => {
          const buf = buildSeccompProgram(o);
          const lines = [];
          for (let i = 0; i < buf.length; i += 8) lines.push(`  ${buf.subarray(i, i + 8).toString('hex')}`);
          return `${arch} ${name} (${buf.length / 8} insns)\n${lines.join('\n')}`;
        }),
      )
      .join('\n');
    await expect(`${text}\n`).toMatchFileSnapshot('./__snapshots__/seccomp-bpf.txt');
  });

  it('refuses unknown architectures', () => {
    expect(() =>
      buildSeccompProgram({ arch: 'ia32' as SeccompArch, ip: 'allow', ownsMountNamespace: false }),
    ).toThrow(/not supported/);
  });

  it('names every baseline call on both architectures except those that do not exist there', () => {
    const missing = (['x64', 'arm64'] as SeccompArch[]).map((arch) => [
      arch,
      BASELINE.flatMap((e) => e.names).filter((n) => SYSCALL_TABLE[arch][n] === undefined),
    ]);
    expect(missing).toEqual([
      ['x64', []],
      ['arm64', ['create_module']],
    ]);
  });
});
