// Landlock's gaps, each settled for real (issue: promise only what each backend mediates), as
// root and as uid 65534:
//   - file metadata (no Landlock right) and, network off, abstract unix listeners: refused
//     without --best-effort, listed as not enforced with it (text and JSON);
//   - the command cannot kill or stop cordon (cordon is outside its Landlock domain);
//   - /dev holds only the standard devices: another terminal of the same user and the host's
//     /dev/shm are out of reach, under Landlock and bubblewrap alike. Host side checked.
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();
const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

// Holds a pseudo-terminal open (the user's "other terminal"), prints the slave's path, then on
// a line from stdin reports whether anything reached the terminal.
const PTY_HOLDER = `
import os, pty, select, sys
m, s = pty.openpty()
print(os.ttyname(s), flush=True)
sys.stdin.readline()
r, _, _ = select.select([m], [], [], 0.2)
print("dirty" if r else "clean", flush=True)
`;

function startPty(uid: number | undefined): Promise<{ path: string; child: ChildProcessWithoutNullStreams }> {
  const argv =
    uid === undefined
      ? ['/usr/bin/python3', '-c', PTY_HOLDER]
      : [
          'setpriv',
          `--reuid=${uid}`,
          `--regid=${uid}`,
          '--clear-groups',
          '--',
          '/usr/bin/python3',
          '-c',
          PTY_HOLDER,
        ];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'pipe' });
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => resolve({ path: d.toString().trim(), child }));
  });
}

function ptyVerdict(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.stdin.write('check\n');
  });
}

describe.runIf(isRoot && abi > 0).each(users)('Landlock gaps as %s', (_label, uid) => {
  let fx: Fixture;
  let profile: string;
  const cordon = (args: string[]) =>
    runCli(['-q', ...args], {
      cwd: fx.ws,
      ...(uid === undefined ? {} : { asUid: uid }),
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
    });
  beforeAll(() => {
    fx = makeFixture(uid);
    // A policy Landlock could enforce exactly by paths alone: read-only, no carve-outs.
    profile = join(fx.base, 'exact.yaml');
    writeFileSync(profile, 'filesystem:\n  - { path: "/", access: read }\n', { mode: 0o644 });
  });
  afterAll(() => rmSync(fx.base, { recursive: true, force: true }));

  it('file metadata: refused without --best-effort (nothing runs), listed as not enforced with it', async () => {
    const marker = join(fx.outside, `ran-${uid ?? 0}`);
    const refused = await cordon([
      '--backend',
      'landlock',
      '--profile',
      profile,
      '--net',
      '--',
      'touch',
      marker,
    ]);
    expect(refused.code).toBe(125);
    expect(refused.stderr).toContain('(file metadata)');
    expect(refused.stderr).toContain('--best-effort');
    expect(refused.stderr).not.toContain('(abstract unix sockets)');
    expect(existsSync(marker)).toBe(false);
    const r = await cordon([
      '--backend',
      'landlock',
      '--profile',
      profile,
      '--net',
      '--best-effort',
      '--json',
      '--',
      'true',
    ]);
    const json = JSON.parse(r.stdout) as {
      exitCode: number;
      notEnforced: { path: string; access: string }[];
    };
    expect(json.exitCode).toBe(0);
    // With --net below ABI 9 the host unix sockets are not mediated either.
    expect(json.notEnforced.map((n) => n.path)).toEqual(['(file metadata)', '(host unix sockets)']);
  });

  it('network off: an abstract unix listener is refused without --best-effort, listed with it', async () => {
    const refused = await cordon(['--backend', 'landlock', '--profile', profile, '--', 'true']);
    expect(refused.code).toBe(125);
    expect(refused.stderr).toContain('(abstract unix sockets)');
    const r = await cordon(['--backend', 'landlock', '--profile', profile, '--best-effort', '--', 'true']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('not enforced: listen (abstract unix sockets)');
    expect(r.stderr).toContain('not enforced: chmod/chown/utimes/xattr (file metadata)');
  });

  it.runIf(abi >= 6)(
    'the command can neither kill nor stop cordon: the timeout still fires and output arrives',
    async () => {
      const r = await cordon([
        '--backend',
        'landlock',
        '--best-effort',
        '--timeout',
        '2s',
        '--',
        'sh',
        '-c',
        'kill -9 $PPID || echo kill-refused; kill -STOP $PPID || echo stop-refused; echo survived; exec sleep 30',
      ]);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(124);
      expect(r.stdout).toBe('kill-refused\nstop-refused\nsurvived\n');
    },
  );

  for (const backend of ['landlock', 'bwrap'] as const)
    it.runIf(backend === 'landlock' || canBwrap)(
      `${backend}: another terminal and the host's /dev/shm are out of reach; the standard devices work`,
      async () => {
        const { path: tty, child } = await startPty(uid);
        const shm = `/dev/shm/cordon-test-${process.pid}-${uid ?? 0}`;
        writeFileSync(shm, 'SHM-SECRET\n', { mode: 0o600 });
        if (uid !== undefined) chownSync(shm, uid, uid);
        try {
          const r = await cordon([
            '--backend',
            backend,
            ...(backend === 'landlock' ? ['--best-effort'] : []),
            '--',
            'sh',
            '-c',
            `(echo INJECT > ${tty}) 2>/dev/null && echo tty-open || echo tty-denied; cat ${shm} 2>/dev/null || echo shm-denied; echo x > /dev/null && head -c 3 /dev/zero | wc -c && head -c 3 /dev/urandom | wc -c; ls / >/dev/null && echo root-listable`,
          ]);
          expect(r.stdout).toBe('tty-denied\nshm-denied\n3\n3\nroot-listable\n');
          expect(await ptyVerdict(child)).toBe('clean');
        } finally {
          child.kill();
          unlinkSync(shm);
        }
      },
    );

  // The fallback line itself (auto → Landlock when bubblewrap is unusable) is pinned in
  // test/unit/landlock-fallback.test.ts: bubblewrap is now always found at its fixed system path,
  // so a PATH without it no longer makes this machine fall back.
});
