// The bwrap mount gate with real bubblewrap: a bind path swapped for a symlink after cordon
// pinned it and before bwrap mounted it (deterministically, between the two) is caught inside
// the sandbox, which is killed before the command runs — checked on the host (no marker file,
// the real directory unwritten). As root and as uid 65534 (the gate runs as that user).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listBinds, parseMountInfo } from '../../src/backends/bwrap/mount-gate.ts';
import { isLinux, isRoot, ROOT } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const canBwrap =
  isLinux &&
  spawnSync('/usr/bin/bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' })
    .status === 0;

describe('mount gate parsing', () => {
  it('lists the binds before --, except /proc, and reads mountinfo mount points', () => {
    expect(
      listBinds([
        '--ro-bind',
        '/',
        '/',
        '--ro-bind',
        '/proc/sys',
        '/proc/sys',
        '--bind',
        '/w',
        '/w',
        '--',
        '--bind',
        'x',
        'y',
      ]),
    ).toEqual([
      { source: '/', dest: '/', readOnly: true },
      { source: '/w', dest: '/w', readOnly: false },
    ]);
    expect(
      parseMountInfo(
        '36 35 98:0 /mnt1 /a\\040b rw,noatime master:1 - ext3 /dev/root rw\n37 36 98:0 / /c ro - ext4 /dev/x rw\n',
      ),
    ).toEqual([
      { mountPoint: '/a b', readOnly: false },
      { mountPoint: '/c', readOnly: true },
    ]);
  });
});

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

describe.runIf(canBwrap && isRoot).each(users)('mount gate with real bwrap as %s', (_l, uid) => {
  let fx: Fixture;
  beforeEach(() => {
    fx = makeFixture(uid);
    mkdirSync(join(fx.ws, 'vendor'));
    mkdirSync(join(fx.ws, 'decoy'));
    if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, fx.ws]);
  });
  afterEach(() => rmSync(fx.base, { recursive: true, force: true }));
  const gateRun = (mode: 'swap' | 'plain') => {
    const argv = [
      process.execPath,
      '--no-warnings',
      join(ROOT, 'test/fixtures/mount-gate-run.ts'),
      fx.ws,
      mode,
    ];
    const full =
      uid === undefined
        ? argv
        : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
    const r = spawnSync(full[0]!, full.slice(1), { cwd: ROOT, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as { refused: string | null; status: number | null };
  };

  it('releases the command when every mount is where it was pinned', () => {
    expect(gateRun('plain')).toEqual({ refused: null, status: 0 });
    expect(existsSync(join(fx.ws, 'ran'))).toBe(true);
    expect(readdirSync(join(fx.ws, 'vendor'))).toEqual([]);
  });

  it('kills the sandbox before the command runs when a bind path was swapped for a symlink', () => {
    const r = gateRun('swap');
    expect(r.refused).toMatch(/^refusing to start the command: /);
    expect(existsSync(join(fx.ws, 'ran'))).toBe(false);
    expect(readdirSync(join(fx.ws, 'vendor.real'))).toEqual([]);
  });
});
