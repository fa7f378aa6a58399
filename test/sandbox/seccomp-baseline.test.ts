// The baseline seccomp filter against the real kernel: every call it lists, the numbers above
// its table and the socket families it refuses, attempted by a real process under real
// bubblewrap and real Landlock, in both network modes, as root and as uid 65534. The probe
// (test/fixtures/syscall-probe.py) uses arguments the kernel itself answers with something
// other than ENOSYS, so ENOSYS is the filter's answer. Then the host-side escapes the list
// exists for: a host SysV segment attached and overwritten, a segment left behind, a secret
// in the user keyring read back.
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { BASELINE } from '../../src/plan/linux/seccomp-baseline.ts';
import { isLinux, isRoot, ROOT, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const PYTHON = '/usr/bin/python3';
const hasPython = isLinux && spawnSync(PYTHON, ['-c', 'import ctypes'], { stdio: 'ignore' }).status === 0;
const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();
const onArch = process.arch === 'x64' || process.arch === 'arm64';

type Backend = 'bwrap' | 'landlock';
const settings: [Backend, 'off' | 'on', boolean][] = [
  ['bwrap', 'off', canBwrap],
  ['bwrap', 'on', canBwrap],
  ['landlock', 'off', abi > 0],
  ['landlock', 'on', abi > 0],
];
const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];
const MOUNT_FAMILY = new Set(BASELINE.find((e) => e.when === 'no-mount-namespace')?.names ?? []);
const ABOVE_TABLE = ['setxattrat', 'getxattrat', 'removexattrat', 'file_setattr'];

/** Runs python code as `uid` on the host (outside any sandbox). */
function hostPython(code: string, uid: number | undefined): string {
  const argv =
    uid === undefined
      ? [PYTHON, '-c', code]
      : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', PYTHON, '-c', code];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`host python failed: ${r.stderr}`);
  return r.stdout.trim();
}

const SHM = `
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
`;

describe.runIf(isRoot && hasPython && onArch).each(users)('baseline seccomp filter as %s', (_label, uid) => {
  let fx: Fixture;
  const cordon = (backend: Backend, network: 'off' | 'on', command: string[]) =>
    runCli(
      [
        '--backend',
        backend,
        '-q',
        ...(backend === 'landlock' ? ['--best-effort'] : []),
        ...(network === 'on' ? ['--net'] : []),
        '--',
        ...command,
      ],
      {
        cwd: fx.ws,
        ...(uid === undefined ? {} : { asUid: uid }),
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
      },
    );
  beforeAll(() => {
    fx = makeFixture(uid);
    copyFileSync(join(ROOT, 'test/fixtures/syscall-probe.py'), join(fx.ws, 'probe.py'));
  });
  afterAll(() => rmSync(fx.base, { recursive: true, force: true }));

  for (const [backend, network, usable] of settings)
    it.runIf(usable)(
      `${backend}, network ${network}: every listed call and every number above the table gets ENOSYS`,
      async () => {
        const r = await cordon(backend, network, [PYTHON, 'probe.py']);
        expect(r.stderr.replace(/^cordon: not enforced: .*\n/gm, '')).toBe('');
        expect(r.code).toBe(0);
        const got = JSON.parse(r.stdout) as Record<string, string>;
        const expected: Record<string, string> = {};
        for (const name of Object.keys(got)) {
          if (name.startsWith('socket ')) continue;
          // bwrap owns a mount namespace: the mount family is the kernel's to answer there.
          expected[name] = backend === 'bwrap' && MOUNT_FAMILY.has(name) ? got[name]! : 'ENOSYS';
        }
        for (const name of ABOVE_TABLE) expect(expected[name]).toBe('ENOSYS');
        const ip = backend === 'landlock' && network === 'off' ? 'EACCES' : 'ok';
        Object.assign(expected, {
          'socket AF_VSOCK': 'EAFNOSUPPORT',
          'socket AF_PACKET': 'EAFNOSUPPORT',
          'socket AF_ALG': 'EAFNOSUPPORT',
          'socket NETLINK_AUDIT': 'EPROTONOSUPPORT',
          'socket NETLINK_KOBJECT_UEVENT': 'EPROTONOSUPPORT',
          'socket NETLINK_ROUTE': 'ok',
          'socket AF_INET': ip,
          'socket AF_INET6': ip,
          'socket AF_UNIX': 'ok',
        });
        expect(got).toEqual(expected);
        if (backend === 'bwrap') for (const name of MOUNT_FAMILY) expect(got[name]).not.toBe('ENOSYS');
      },
    );

  for (const [backend, network, usable] of settings)
    it.runIf(usable)(
      `${backend}, network ${network}: a host SysV segment cannot be attached or overwritten, none is left behind`,
      async () => {
        // The host's 0600 segment, owned by the user cordon runs as (root: attachable by anyone root).
        const id = hostPython(
          `${SHM}
i = libc.shmget(0, 4096, 0o1000 | 0o600)
p = libc.shmat(i, None, 0)
ctypes.memmove(p, b"host-data", 9)
print(i)`,
          uid,
        );
        const segments = () =>
          readFileSync('/proc/sysvipc/shm', 'utf8').split('\n').slice(1).filter(Boolean).length;
        const before = segments();
        try {
          const r = await cordon(backend, network, [
            PYTHON,
            '-c',
            `${SHM}
p = libc.shmat(${id}, None, 0)
if p not in (None, ctypes.c_void_p(-1).value): ctypes.memmove(p, b"PWNED!!!!", 9); print("attached")
else: print("shmat", ctypes.get_errno())
j = libc.shmget(0, 64 << 20, 0o1000 | 0o600)
print("left" if j >= 0 else "no-segment")`,
          ]);
          expect(r.stdout).toMatch(/^shmat \d+\nno-segment\n$/);
          const content = hostPython(
            `${SHM}
p = libc.shmat(${id}, None, 0)
print(ctypes.string_at(p, 9).decode())`,
            uid,
          );
          expect(content).toBe('host-data');
          expect(segments()).toBe(before);
        } finally {
          hostPython(`${SHM}\nlibc.shmctl(${id}, 0, None)`, uid);
        }
      },
    );

  for (const [backend, network, usable] of settings)
    it.runIf(usable)(
      `${backend}, network ${network}: a secret in the user keyring cannot be read`,
      async () => {
        const serial = hostPython(
          `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.syscall(${process.arch === 'x64' ? 248 : 217}, b"user", b"cordon-test-secret", b"TOPSECRET-KEY", 13, -4))`,
          uid,
        );
        expect(Number(serial)).toBeGreaterThan(0);
        try {
          const keyctl = process.arch === 'x64' ? 250 : 219;
          const r = await cordon(backend, network, [
            PYTHON,
            '-c',
            `import ctypes
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(64)
n = libc.syscall(${keyctl}, 11, ${serial}, buf, 64)
print(buf.raw[:n].decode() if n > 0 else "keyctl %d" % ctypes.get_errno())`,
          ]);
          expect(r.stdout).toBe('keyctl 38\n');
          expect(r.stdout).not.toContain('TOPSECRET');
        } finally {
          hostPython(
            `import ctypes\nctypes.CDLL(None).syscall(${process.arch === 'x64' ? 250 : 219}, 3, ${serial})`,
            uid,
          );
        }
      },
    );
});
