// The helper launch: the command's environment travels in CORDON_LANDLOCK_ENV_* (never in
// argv, which any local user can read in /proc/PID/cmdline), in chunks small enough for the
// kernel, and round-trips exactly; the helper's own Node sees no NODE_OPTIONS.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeHelperEnv,
  encodeHelperEnv,
  HELPER_ENV_PREFIX,
  prepareLandlockLaunch,
} from '../../src/backends/landlock/launch.ts';
import type { LandlockPlan } from '../../src/plan/types.ts';

const plan: LandlockPlan = {
  backend: 'landlock',
  executable: 'make',
  args: ['test'],
  env: { API_TOKEN: 'sekrit-value', NODE_OPTIONS: '--require /tmp/evil.js', PATH: '/usr/bin' },
  cwd: '/',
  notEnforced: [],
  abi: 7,
  handledFs: 0xffff,
  handledNet: 3,
  scoped: 3,
  rules: [{ path: '/usr', access: 'read', kind: 'dir', rights: 13, origin: 'policy' }],
  network: 'off',
  seccomp: { arch: 'x64', ip: 'refuse', ownsMountNamespace: false, unixNetworkOff: { refuseConnect: true } },
  privateTmp: undefined,
};

describe('Landlock helper launch', () => {
  it('keeps the environment out of argv and away from the helper Node', async () => {
    const launch = await prepareLandlockLaunch(plan);
    expect(launch.executable).toBe(process.execPath);
    expect(launch.args.join('\n')).not.toContain('sekrit-value');
    expect(launch.args.slice(-3)).toEqual(['--', 'make', 'test']);
    expect(Object.keys(launch.env).every((k) => k.startsWith(HELPER_ENV_PREFIX))).toBe(true);
    expect(launch.env['NODE_OPTIONS']).toBeUndefined();
    expect(decodeHelperEnv(launch.env)).toEqual(plan.env);
    const { cgroupProcs, ...spec } = JSON.parse(launch.args[2]!);
    // A per-run cgroup where this process may create one (root here), none otherwise.
    if (cgroupProcs !== undefined) expect(cgroupProcs).toMatch(/\/cordon-\d+-[0-9a-f]{8}\/cgroup\.procs$/);
    expect(spec).toEqual({
      abi: 7,
      handledFs: 0xffff,
      handledNet: 3,
      scoped: 3,
      rules: [{ path: '/usr', rights: 13 }],
      seccomp: {
        arch: 'x64',
        ip: 'refuse',
        ownsMountNamespace: false,
        unixNetworkOff: { refuseConnect: true },
      },
    });
    await launch.cleanup();
    if (cgroupProcs !== undefined) expect(existsSync(dirname(cgroupProcs))).toBe(false);
  });

  it('splits a large environment into chunks below the kernel limit and round-trips it', () => {
    const env = { A: 'x'.repeat(200_000), B: 'é'.repeat(50_000), EMPTY: '' };
    const encoded = encodeHelperEnv(env);
    expect(Object.keys(encoded).length).toBeGreaterThan(3);
    for (const v of Object.values(encoded)) expect(v.length).toBeLessThan(128 * 1024);
    expect(decodeHelperEnv(encoded)).toEqual(env);
    expect(decodeHelperEnv(encodeHelperEnv({}))).toEqual({});
  });
});
