// Seatbelt denials as data. macOS logs each denial as a kernel message
// "Sandbox: NAME(PID) deny(COUNT) OPERATION TARGET", followed by the rule's (with message ...)
// text, which for cordon's rules is SEATBELT_LOG_TAG; `log stream --style ndjson` with the
// predicate below delivers only those, one JSON object per line. This module (pure) builds that
// command, parses its lines, de-duplicates them (optionally keeping only given pids), and turns
// each into an annotation naming the flag that would allow it. log.ts runs `log stream` during
// a run (with --verbose, --json, or the library's reportDenials); launch.ts adds the findings.

import { SEATBELT_LOG_TAG } from '../../plan/macos/seatbelt-base.ts';
import { parentOf, resolveAccess } from '../../policy/access.ts';
import type { SandboxPolicy } from '../../policy/types.ts';
import type { Annotation } from '../../result/types.ts';

/** Absolute, for the same reason as sandbox-exec: never a PATH lookup. */
export const LOG_PATH = '/usr/bin/log';

/** Kernel messages from the Sandbox kext (or the sandbox reporting subsystem) carrying cordon's tag. */
export const SANDBOX_LOG_PREDICATE = `(((processID == 0) AND (senderImagePath CONTAINS "/Sandbox")) OR (subsystem == "com.apple.sandbox.reporting")) AND (eventMessage CONTAINS "${SEATBELT_LOG_TAG}")`;

export function buildLogStreamArgs(): string[] {
  return ['stream', '--style', 'ndjson', '--predicate', SANDBOX_LOG_PREDICATE];
}

export interface SeatbeltViolation {
  readonly process: string;
  readonly pid: number;
  /** e.g. file-read-data, file-write-create, network-outbound, mach-lookup, sysctl-read */
  readonly operation: string;
  /** The path, address, service or sysctl name; empty when the message has none. */
  readonly target: string;
}

const MESSAGE = /^Sandbox:\s*(.+?)\((\d+)\)\s+(?:System Policy:\s*)?deny\(\d+\)\s+(\S+)(?:\s+(.*))?$/;

/** One denial from a message text, or undefined when the text is not a denial. */
export function parseViolationMessage(message: string): SeatbeltViolation | undefined {
  // The first line is the denial; a rule's (with message ...) text may follow on the next.
  const match = MESSAGE.exec((message.trim().split('\n')[0] ?? '').trim());
  if (!match) return undefined;
  return {
    process: match[1]!,
    pid: Number(match[2]),
    operation: match[3]!,
    target: (match[4] ?? '').trim(),
  };
}

/** One denial from a `log stream --style ndjson` line (its eventMessage), or undefined. */
export function parseLogStreamLine(line: string): SeatbeltViolation | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let event: unknown;
  try {
    event = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (typeof event !== 'object' || event === null) return undefined;
  const message = (event as Record<string, unknown>)['eventMessage'];
  return typeof message === 'string' ? parseViolationMessage(message) : undefined;
}

/** Each distinct denial once, in order; only those from `pids` (a process tree) when given. */
export function selectViolations(
  violations: readonly SeatbeltViolation[],
  pids?: ReadonlySet<number>,
): SeatbeltViolation[] {
  const seen = new Set<string>();
  const out: SeatbeltViolation[] = [];
  for (const v of violations) {
    if (pids && !pids.has(v.pid)) continue;
    const key = `${v.operation}\u0000${v.target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

/** The cordon flag that would allow this operation, or undefined when no flag does. */
export function suggestFlag(violation: SeatbeltViolation, policy: SandboxPolicy): string | undefined {
  const { operation, target } = violation;
  const path = target.startsWith('/') ? target : undefined;
  if (operation.startsWith('file-write') && path) return `--write ${quoteForShell(path)}`;
  if (
    (operation.startsWith('file-read') ||
      operation === 'process-exec' ||
      operation === 'file-map-executable') &&
    path
  ) {
    return resolveAccess(policy.rules, path) === 'none' ? `--read ${quoteForShell(path)}` : undefined;
  }
  // Unix sockets are decided by path in every network mode (seatbelt-network.ts): --net does
  // not open one; --allow-unix (the unix-socket hardening issue's flag) does. Loopback servers
  // with the network off take the profile key.
  if (operation.startsWith('network-') && path)
    return operation === 'network-bind'
      ? `--write ${quoteForShell(parentOf(path))}`
      : `--allow-unix ${quoteForShell(path)}`;
  if ((operation === 'network-bind' || operation === 'network-inbound') && policy.network === 'off')
    return "'localBinding: true' in a profile (loopback only), or --net";
  if (operation.startsWith('network-') && policy.network === 'off') return '--net';
  return undefined;
}

export function renderViolation(violation: SeatbeltViolation, policy: SandboxPolicy): Annotation {
  const fix = suggestFlag(violation, policy);
  const what = `${violation.operation}${violation.target ? ` ${violation.target}` : ''}`;
  const who = `${violation.process}, pid ${violation.pid}`;
  return {
    kind: 'denial',
    message: fix
      ? `sandbox denied ${what} (${who}) — allow it with ${fix}`
      : `sandbox denied ${what} (${who}) — no cordon flag allows this; report it if the command needs it`,
    operation: violation.operation,
    path: violation.target.startsWith('/') ? violation.target : undefined,
    fix,
    certainty: 'certain',
  };
}

function quoteForShell(path: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * sandbox-exec inside another sandbox (an already-sandboxed terminal or agent) cannot apply a
 * profile and says so on stderr; that is the environment, not the policy.
 */
export function isNestedSandboxFailure(stderr: string): boolean {
  return /sandbox-exec: sandbox_apply: Operation not permitted/.test(stderr);
}

export const NESTED_SANDBOX_MESSAGE =
  'sandbox-exec could not apply the profile: this process is already inside a macOS sandbox, and Seatbelt sandboxes cannot nest — run cordon from a normal terminal, or use --backend none inside the outer sandbox';
