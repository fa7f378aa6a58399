// Denials the command reports on stdout, and refused connect() calls (Landlock's EACCES):
// recognised, annotated, and never turned into a weakening hint (the text is the command's).
import { describe, expect, it } from 'vitest';
import { findDenials } from '../../src/denials/explain.ts';
import { denialAnnotations } from '../../src/denials/for-run.ts';
import { recognizeFailures } from '../../src/denials/recognize.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildPlan } from '../../src/plan/build.ts';
import { NO_POLICY_FLAGS, resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const CWD = '/home/user/project';
const host = syntheticHost('linux', {
  files: { '/home/user/.ssh': 'dir', '/home/user/.ssh/id_ed25519': 'file' },
});
const policy = resolvePolicy(loadProfile('workspace', CWD), NO_POLICY_FLAGS, host, CWD);
const ctx = {
  policy,
  home: host.home,
  networkFromFlag: false,
  privateDirs: ['/tmp'],
  kindOf: (p: string) => host.kind(p),
};

describe('refused connect()', () => {
  it.each([
    ['connect EACCES 127.0.0.1:2222 - Local (undefined:undefined)', '127.0.0.1:2222'],
    ['Error: connect EPERM 10.0.0.1:443', '10.0.0.1:443'],
    ['curl: (7) Failed to connect to 127.0.0.1 port 2222 after 0 ms: Permission denied', '127.0.0.1:2222'],
  ])('%s is a denied connect to %s', (line, address) => {
    expect(recognizeFailures(line)).toEqual([{ kind: 'net', errno: 'denied', address, line }]);
  });

  it('a loopback connect is annotated with no flag suggested', () => {
    const [d] = findDenials('Error: connect EACCES 127.0.0.1:2222', ctx).denials;
    expect(d).toMatchObject({
      operation: 'network',
      path: '127.0.0.1:2222',
      certainty: 'certain',
      fix: undefined,
    });
    expect(d?.message).toContain('no flag suggested');
  });

  it('a remote connect names --net like every other network denial', () => {
    const [d] = findDenials('Error: connect EACCES 10.0.0.1:443', ctx).denials;
    expect(d?.fix).toBe('--net');
  });

  it('with the network on it is not the sandbox', () => {
    const on = { ...ctx, policy: { ...policy, network: 'on' as const } };
    expect(findDenials('Error: connect EACCES 127.0.0.1:2222', on).denials).toEqual([]);
  });

  it('a unix socket path after connect EACCES is not an address', () => {
    expect(recognizeFailures('connect EACCES /run/x.sock')[0]?.kind).not.toBe('net');
  });
});

describe('denials on stdout', () => {
  const plan = buildPlan({
    backend: 'bwrap',
    policy,
    command: ['cat'],
    env: {},
    cwd: CWD,
    host,
    bestEffort: false,
  });
  const empty = { head: Buffer.alloc(0), tail: Buffer.alloc(0) };
  const line = Buffer.from('cat: /home/user/.ssh/id_ed25519: No such file or directory\n');

  it('a denial printed on stdout (2>&1) is annotated, with no flag for a credential store', () => {
    const out = denialAnnotations({
      policy,
      plan,
      host,
      networkFromFlag: false,
      stderr: empty,
      stdout: { head: line, tail: Buffer.alloc(0) },
    });
    expect(out).toHaveLength(1);
    expect(out[0]?.message).toContain('read of ~/.ssh/id_ed25519');
    expect(out[0]?.fix).toBeUndefined();
  });

  it('the same line on both streams is one annotation', () => {
    const both = { head: line, tail: Buffer.alloc(0) };
    expect(
      denialAnnotations({ policy, plan, host, networkFromFlag: false, stderr: both, stdout: both }),
    ).toHaveLength(1);
  });

  it('on stdout only a line naming a path or an address counts (stdout is often data)', () => {
    const noise = { head: Buffer.from('socket: Operation not permitted\n'), tail: Buffer.alloc(0) };
    const off = { ...policy, network: 'off' as const };
    const input = { policy: off, plan, host, networkFromFlag: false };
    expect(denialAnnotations({ ...input, stderr: empty, stdout: noise })).toEqual([]);
    expect(denialAnnotations({ ...input, stderr: noise, stdout: empty })).toHaveLength(1);
  });
});
