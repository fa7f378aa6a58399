// The network allowlist (--allow-net HOST[:PORT]), pure: parsing entries, matching a request's
// host and port, and judging the addresses a name resolved to. The proxy (proxy.ts) is the
// only caller at run time; validate.ts and the profile parser use parseAllowNet for messages.
import { CordonError } from '../errors.ts';
import { formatIp, type IpBytes, isLoopback, parseIp, sameIp, specialReason } from './ip.ts';

export type AllowNetEntry =
  /** An exact name (lower case, no trailing dot). */
  | {
      readonly kind: 'name';
      readonly name: string;
      readonly port?: number | undefined;
      readonly text: string;
    }
  /** `*.suffix`: any name below suffix (not suffix itself). */
  | {
      readonly kind: 'wildcard';
      readonly suffix: string;
      readonly port?: number | undefined;
      readonly text: string;
    }
  | { readonly kind: 'ip'; readonly ip: IpBytes; readonly port?: number | undefined; readonly text: string }
  /** The host's loopback: the name localhost, 127.0.0.0/8 and ::1. */
  | { readonly kind: 'localhost'; readonly port?: number | undefined; readonly text: string };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function bad(raw: string, why: string): CordonError {
  return new CordonError(
    'bad-flag',
    `--allow-net '${raw}': ${why} — use HOST[:PORT], e.g. --allow-net registry.npmjs.org, --allow-net '*.github.com', --allow-net localhost:8080 or --allow-net '[::1]:443'`,
  );
}

function parsePort(raw: string, text: string): number {
  if (!/^[1-9][0-9]{0,4}$/.test(text) || Number(text) > 65535)
    throw bad(raw, `port '${text}' is not 1-65535`);
  return Number(text);
}

export function normalizeName(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function validName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((l) => LABEL.test(l));
}

/** One entry; CordonError('bad-flag') naming the value and the fix. */
export function parseAllowNet(raw: string): AllowNetEntry {
  if (raw.trim() !== raw || raw === '') throw bad(raw, 'empty or surrounded by spaces');
  if (raw.includes('/')) throw bad(raw, 'a host, not a URL or a network range');
  let host = raw;
  let port: number | undefined;
  if (raw.startsWith('[')) {
    const close = raw.indexOf(']');
    if (close < 0) throw bad(raw, 'unclosed [');
    host = raw.slice(1, close);
    const rest = raw.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) throw bad(raw, `unexpected '${rest}' after ]`);
      port = parsePort(raw, rest.slice(1));
    }
    const ip = parseIp(host);
    if (ip?.length !== 16) throw bad(raw, `'${host}' is not an IPv6 address`);
    return { kind: 'ip', ip, port, text: raw };
  }
  const colons = raw.split(':').length - 1;
  if (colons > 1) {
    // A bare IPv6 address (a port needs brackets).
    const ip = parseIp(raw);
    if (!ip) throw bad(raw, 'not an IPv6 address (write [ADDRESS]:PORT for a port)');
    return { kind: 'ip', ip, port: undefined, text: raw };
  }
  if (colons === 1) {
    const at = raw.lastIndexOf(':');
    host = raw.slice(0, at);
    port = parsePort(raw, raw.slice(at + 1));
  }
  const name = normalizeName(host);
  if (name === 'localhost') return { kind: 'localhost', port, text: raw };
  if (/^[0-9.]+$/.test(name)) {
    const ip = parseIp(name);
    if (!ip) throw bad(raw, `'${host}' is not an IPv4 address (dotted decimal, no leading zeros)`);
    return { kind: 'ip', ip, port, text: raw };
  }
  if (name.startsWith('*.')) {
    const suffix = name.slice(2);
    if (!validName(suffix) || !suffix.includes('.'))
      throw bad(raw, `'*.${suffix}' needs a domain with at least two labels after '*.'`);
    return { kind: 'wildcard', suffix, port, text: raw };
  }
  if (name.includes('*')) throw bad(raw, "a wildcard is allowed only as a leading '*.'");
  if (!validName(name)) throw bad(raw, `'${host}' is not a host name`);
  return { kind: 'name', name, port, text: raw };
}

/** Parses and de-duplicates a list of entries (by their text). */
export function parseAllowNetList(raws: readonly string[]): AllowNetEntry[] {
  const out: AllowNetEntry[] = [];
  for (const raw of raws) {
    const entry = parseAllowNet(raw);
    if (!out.some((e) => e.text === entry.text)) out.push(entry);
  }
  return out;
}

/** A request's target as the proxy read it: a host (name or IP literal) and a port. */
export interface Target {
  readonly host: string;
  readonly port: number;
}

export type Match =
  | { readonly allowed: true; readonly entry: AllowNetEntry; readonly ip?: IpBytes | undefined }
  | { readonly allowed: false; readonly reason: string; readonly fix: string };

/** The `--allow-net` value that would allow `target`. */
export function fixFor(target: Target): string {
  const host = target.host.includes(':') ? `[${target.host}]` : normalizeName(target.host);
  const standard = target.port === 443 || target.port === 80;
  return `--allow-net ${standard ? host : `${host}:${target.port}`}`;
}

function portOk(entry: AllowNetEntry, port: number): boolean {
  return entry.port === undefined || entry.port === port;
}

/** Whether `target` is on the list (before resolution). */
export function matchTarget(list: readonly AllowNetEntry[], target: Target): Match {
  const refuse = (reason: string): Match => ({ allowed: false, reason, fix: fixFor(target) });
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535)
    return refuse(`bad port ${target.port}`);
  const ip = parseIp(target.host);
  if (ip) {
    for (const e of list) {
      if (!portOk(e, target.port)) continue;
      if (e.kind === 'ip' && sameIp(e.ip, ip)) return { allowed: true, entry: e, ip };
      if (e.kind === 'localhost' && isLoopback(ip)) return { allowed: true, entry: e, ip };
    }
    return refuse(`${formatIp(ip)}:${target.port} is not on the allowlist`);
  }
  const name = normalizeName(target.host);
  if (!validName(name)) return refuse(`'${target.host}' is not a host name`);
  for (const e of list) {
    if (!portOk(e, target.port)) continue;
    if (e.kind === 'localhost' && name === 'localhost') return { allowed: true, entry: e };
    if (e.kind === 'name' && e.name === name) return { allowed: true, entry: e };
    if (e.kind === 'wildcard' && name.endsWith(`.${e.suffix}`)) return { allowed: true, entry: e };
  }
  return refuse(`${name}:${target.port} is not on the allowlist`);
}

export type AddressVerdict =
  | { readonly ok: true; readonly addresses: readonly IpBytes[] }
  | { readonly ok: false; readonly reason: string };

/**
 * Of the addresses a listed name resolved to, those the proxy may connect to: public ones only
 * (a name never unlocks a loopback/private/metadata address: DNS rebinding). An `ip` or
 * `localhost` entry names its address, so it is connected to as is (resolution never happens).
 */
export function judgeAddresses(name: string, resolved: readonly IpBytes[]): AddressVerdict {
  const ok = resolved.filter((ip) => specialReason(ip) === undefined);
  if (ok.length > 0) return { ok: true, addresses: ok };
  if (resolved.length === 0) return { ok: false, reason: `${name} did not resolve` };
  const first = resolved[0]!;
  return {
    ok: false,
    reason: `${name} resolves to ${formatIp(first)} (${specialReason(first)}), which only an entry naming that address allows`,
  };
}
