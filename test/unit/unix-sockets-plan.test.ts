// What each Linux backend promises about unix sockets (plan/linux/unix-sockets.ts), on
// synthetic hosts: with and without the supervisor, network off and on, --allow-unix.
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import type { HostInfo } from '../../src/host/types.ts';
import { buildBwrapPlan } from '../../src/plan/linux/bwrap.ts';
import { landlockUnixGaps, unixSocketCheck } from '../../src/plan/linux/unix-sockets.ts';
import { resolveAllowUnix } from '../../src/policy/allow-unix.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';

const SOCK = '/run/user/1000/bus';
const host = syntheticHost('linux', { files: { '/run': 'dir', '/run/user/1000': 'dir', [SOCK]: 'file' } });
const policy = (network: 'on' | 'off', allowUnix: string[] = []): SandboxPolicy => ({
  platform: 'linux',
  rules: [
    { path: '/', access: 'read', source: { kind: 'flag', flag: '--read' } },
    { path: '/home/user/project', access: 'write', source: { kind: 'flag', flag: '--write' } },
  ],
  network,
  privateTmp: true,
  cwd: '/home/user/project',
  profile: 'test',
  allowUnix,
});
const plan = (p: SandboxPolicy, h: HostInfo = host, bestEffort = false) =>
  buildBwrapPlan({ policy: p, command: ['true'], env: {}, host: h, bestEffort });
const noNotify: HostInfo = { ...host, seccompNotify: false };

describe('bubblewrap', () => {
  it('runs the supervisor in both network modes', () => {
    expect(plan(policy('off')).unixSupervisor).toEqual({ network: 'off', allow: [] });
    expect(plan(policy('on')).unixSupervisor).toEqual({ network: 'on', allow: [] });
  });

  it('--allow-unix under a fresh /run is bound in read-only, and handed to the supervisor', () => {
    const p = plan(policy('off', [SOCK]));
    expect(p.args.join(' ')).toContain(`--ro-bind ${SOCK} ${SOCK}`);
    expect(p.unixSupervisor?.allow).toEqual([SOCK]);
    // with --net /run is the host's: no extra mount
    expect(plan(policy('on', [SOCK])).args.join(' ')).not.toContain(`--ro-bind ${SOCK}`);
  });

  it('without the supervisor: network off keeps refusing every connect, --net is refused (125)', () => {
    const off = plan(policy('off'), noNotify);
    expect(off.unixSupervisor).toBeUndefined();
    expect(off.notEnforced).toEqual([]);
    expect(() => plan(policy('on'), noNotify)).toThrow(CordonError);
    expect(() => plan(policy('on'), noNotify)).toThrow(/host unix sockets .* would be reachable/);
    expect(() => plan(policy('off', [SOCK]), noNotify)).toThrow(/--allow-unix needs/);
  });

  it('without the supervisor, --best-effort with --net lists the gap instead of refusing', () => {
    const p = plan(policy('on'), noNotify, true);
    expect(p.notEnforced.map((n) => n.path)).toEqual(['(host unix sockets)']);
  });
});

describe('Landlock', () => {
  it('with --net (ABI < 9) host sockets are a gap; --allow-unix cannot be honoured', () => {
    expect(landlockUnixGaps(policy('off'), 7)).toEqual([]);
    expect(landlockUnixGaps(policy('on'), 7).map((g) => g.path)).toEqual(['(host unix sockets)']);
    expect(landlockUnixGaps(policy('off', [SOCK]), 7).map((g) => g.path)).toEqual([SOCK]);
  });
});

describe('--allow-unix paths', () => {
  it('are canonical, relative to the cwd, and must exist', () => {
    expect(resolveAllowUnix([SOCK, SOCK], host, '/home/user/project')).toEqual([SOCK]);
    expect(() => resolveAllowUnix(['nope.sock'], host, '/home/user/project')).toThrow(/no such socket/);
    expect(() => resolveAllowUnix([''], host, '/home/user/project')).toThrow(CordonError);
  });
});

describe('doctor', () => {
  it('says whether the supervisor can run, and what is lost when not', () => {
    const actions = 'kill_process errno user_notif allow';
    expect(unixSocketCheck(host, actions).ok).toBe(true);
    const missing = unixSocketCheck(noNotify, actions);
    expect(missing.ok).toBe(false);
    expect(missing.detail).toMatch(/--net needs --best-effort/);
    expect(unixSocketCheck(host, 'kill_process errno allow').detail).toMatch(/no user_notif/);
  });
});
