// The Seatbelt denial log parser and annotations, on log lines written for these tests in the
// shape macOS prints them (kernel message "Sandbox: NAME(PID) deny(N) OPERATION TARGET",
// delivered by `log stream --style ndjson`).
import { describe, expect, it } from 'vitest';
import {
  buildLogStreamArgs,
  isNestedSandboxFailure,
  parseLogStreamLine,
  parseViolationMessage,
  renderViolation,
  selectViolations,
  suggestFlag,
} from '../../src/backends/seatbelt/violations.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';

const POLICY: SandboxPolicy = {
  platform: 'darwin',
  rules: [
    { path: '/', access: 'read', source: { kind: 'profile', profile: 'workspace', index: 0 } },
    { path: '/Users/me/.ssh', access: 'none', source: { kind: 'profile', profile: 'workspace', index: 2 } },
    { path: '/Users/me/proj', access: 'write', source: { kind: 'profile', profile: 'workspace', index: 1 } },
  ],
  network: 'off',
  privateTmp: true,
  cwd: '/Users/me/proj',
  profile: 'workspace',
};

const line = (eventMessage: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ timestamp: '2026-11-30 02:00:00.000000+0000', processID: 0, eventMessage, ...extra });

describe('parseViolationMessage', () => {
  it('reads process, pid, operation and target', () => {
    expect(
      parseViolationMessage('Sandbox: cat(4242) deny(1) file-read-data /Users/me/.ssh/id_ed25519'),
    ).toEqual({
      process: 'cat',
      pid: 4242,
      operation: 'file-read-data',
      target: '/Users/me/.ssh/id_ed25519',
    });
  });

  it('keeps spaces and parentheses in process names and paths', () => {
    expect(
      parseViolationMessage(
        'Sandbox: Google Chrome (Helper)(77) deny(3) file-write-create /Users/me/my dir (1)/x',
      ),
    ).toEqual({
      process: 'Google Chrome (Helper)',
      pid: 77,
      operation: 'file-write-create',
      target: '/Users/me/my dir (1)/x',
    });
  });

  it('network, mach and sysctl denials, and an operation with no target', () => {
    expect(parseViolationMessage('Sandbox: curl(10) deny(1) network-outbound 93.184.216.34:443')).toEqual({
      process: 'curl',
      pid: 10,
      operation: 'network-outbound',
      target: '93.184.216.34:443',
    });
    expect(
      parseViolationMessage('Sandbox: node(11) deny(1) mach-lookup com.apple.coreservices.launchservicesd')
        ?.operation,
    ).toBe('mach-lookup');
    expect(parseViolationMessage('Sandbox: go(12) deny(1) sysctl-read kern.bootargs')?.target).toBe(
      'kern.bootargs',
    );
    expect(parseViolationMessage('Sandbox: sh(13) deny(1) pseudo-tty')).toEqual({
      process: 'sh',
      pid: 13,
      operation: 'pseudo-tty',
      target: '',
    });
  });

  it('reads the first line when the rule tag follows on the next', () => {
    expect(
      parseViolationMessage('Sandbox: ls(3) deny(1) file-read-data /Users/me/.aws\ncordon-seatbelt'),
    ).toEqual({
      process: 'ls',
      pid: 3,
      operation: 'file-read-data',
      target: '/Users/me/.aws',
    });
  });

  it('ignores lines that are not denials', () => {
    expect(parseViolationMessage('Sandbox: cat(1) allow file-read-data /etc/hosts')).toBeUndefined();
    expect(parseViolationMessage('kernel: something else')).toBeUndefined();
    expect(parseViolationMessage('')).toBeUndefined();
  });
});

describe('parseLogStreamLine', () => {
  it('takes the eventMessage of an ndjson event', () => {
    expect(
      parseLogStreamLine(line('Sandbox: python3(900) deny(1) file-write-unlink /Users/me/proj')),
    ).toEqual({
      process: 'python3',
      pid: 900,
      operation: 'file-write-unlink',
      target: '/Users/me/proj',
    });
  });

  it('skips the banner, broken JSON and events without a message', () => {
    expect(parseLogStreamLine('Filtering the log data using "processID == 0"')).toBeUndefined();
    expect(parseLogStreamLine('{"eventMessage": "Sandbox: x(1) deny(1) file-read-data /a"')).toBeUndefined();
    expect(parseLogStreamLine(JSON.stringify({ processID: 0 }))).toBeUndefined();
    expect(parseLogStreamLine('null')).toBeUndefined();
  });
});

describe('selectViolations', () => {
  it('keeps the command tree only, each distinct denial once, in order', () => {
    const all = [
      'Sandbox: cat(5) deny(1) file-read-data /Users/me/.ssh/id',
      'Sandbox: mdworker(999) deny(1) file-read-data /Users/me/.ssh/id',
      'Sandbox: cat(6) deny(1) file-read-data /Users/me/.ssh/id',
      'Sandbox: sh(5) deny(1) file-write-create /Users/me/other',
    ].map((m) => parseViolationMessage(m)!);
    expect(selectViolations(all, new Set([5, 6]))).toEqual([all[0], all[3]]);
    expect(selectViolations(all)).toEqual([all[0], all[3]]);
  });
});

describe('suggestFlag and renderViolation', () => {
  it('names the flag that would allow the operation', () => {
    const v = (m: string) => parseViolationMessage(m)!;
    expect(suggestFlag(v('Sandbox: cat(1) deny(1) file-read-data /Users/me/.ssh/config'), POLICY)).toBe(
      '--read /Users/me/.ssh/config',
    );
    expect(suggestFlag(v('Sandbox: sh(1) deny(1) file-write-create /Users/me/out file.txt'), POLICY)).toBe(
      "--write '/Users/me/out file.txt'",
    );
    expect(suggestFlag(v('Sandbox: curl(1) deny(1) network-outbound 1.2.3.4:443'), POLICY)).toBe('--net');
    expect(suggestFlag(v('Sandbox: node(1) deny(1) mach-lookup com.apple.foo'), POLICY)).toBeUndefined();
    // a readable path denied for another reason (e.g. exec of a device) gets no --read advice
    expect(suggestFlag(v('Sandbox: sh(1) deny(1) file-read-data /Users/me/proj/x'), POLICY)).toBeUndefined();
  });

  it('unix sockets and loopback servers: the knob that opens them, never --net (issue 23 items 1, 7)', () => {
    const v = (m: string) => parseViolationMessage(m)!;
    expect(
      suggestFlag(v('Sandbox: nc(1) deny(1) network-outbound /Users/me/.docker/run/docker.sock'), POLICY),
    ).toBe('--allow-unix /Users/me/.docker/run/docker.sock');
    expect(suggestFlag(v('Sandbox: node(1) deny(1) network-bind /Users/me/elsewhere/s.sock'), POLICY)).toBe(
      '--write /Users/me/elsewhere',
    );
    expect(suggestFlag(v('Sandbox: node(1) deny(1) network-bind 127.0.0.1:3000'), POLICY)).toBe(
      "'localBinding: true' in a profile (loopback only), or --net",
    );
  });

  it('renders a denial annotation', () => {
    expect(
      renderViolation(
        parseViolationMessage('Sandbox: cat(7) deny(1) file-read-data /Users/me/.ssh/id')!,
        POLICY,
      ),
    ).toEqual({
      kind: 'denial',
      message:
        'sandbox denied file-read-data /Users/me/.ssh/id (cat, pid 7) — allow it with --read /Users/me/.ssh/id',
      operation: 'file-read-data',
      path: '/Users/me/.ssh/id',
      fix: '--read /Users/me/.ssh/id',
      certainty: 'certain',
    });
    expect(
      renderViolation(parseViolationMessage('Sandbox: x(8) deny(1) mach-lookup com.apple.foo')!, POLICY)
        .message,
    ).toBe(
      'sandbox denied mach-lookup com.apple.foo (x, pid 8) — no cordon flag allows this; report it if the command needs it',
    );
  });
});

describe('log stream command and nested sandboxes', () => {
  it('asks for ndjson with a predicate on the sandbox kernel messages', () => {
    expect(buildLogStreamArgs()).toEqual([
      'stream',
      '--style',
      'ndjson',
      '--predicate',
      '(((processID == 0) AND (senderImagePath CONTAINS "/Sandbox")) OR (subsystem == "com.apple.sandbox.reporting")) AND (eventMessage CONTAINS "cordon-seatbelt")',
    ]);
  });

  it('recognizes sandbox-exec failing inside another sandbox', () => {
    expect(isNestedSandboxFailure('sandbox-exec: sandbox_apply: Operation not permitted\n')).toBe(true);
    expect(isNestedSandboxFailure('cat: /x: Operation not permitted\n')).toBe(false);
  });
});
