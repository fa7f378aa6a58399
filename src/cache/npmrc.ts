// Filters an .npmrc (npm's ini format) down to its settings: every line that carries a
// credential is removed, credentials embedded in URLs are cut out, everything else (registry,
// scoped registries, proxy, CA, strict-ssl, ...) is kept verbatim. Pure. The stripped keys
// are listed in docs/caches.md; keep the two in step. Comment lines are dropped too. The file
// is read the way npm reads it (its `ini` parser), so no line ending, quoting or inline comment
// hides a key from the filter.
import { stripUrlUserinfo } from '../policy/url-userinfo.ts';

/**
 * Keys removed, compared case-insensitively with the part after the last ':' of the key
 * (so `//registry.example/:_authToken` matches `_authtoken`).
 */
export const NPMRC_SECRET_KEYS = [
  '_auth',
  '_authtoken',
  '_password',
  'username',
  'password',
  'otp',
  // client TLS identity: `key` is a private key in PEM, the others name or hold the pair
  'key',
  'cert',
  'keyfile',
  'certfile',
] as const;

export interface SanitizedText {
  readonly text: string;
  /** Keys whose lines were removed (names only, never values), in file order. */
  readonly removed: string[];
  /** Keys whose URL value had a user:password@ part cut out. */
  readonly redacted: string[];
}

/**
 * One key or value as npm's ini parser reads it: trimmed; a '…' or "…" string is unquoted (a
 * double-quoted one as JSON, so \u005f is '_'); otherwise it ends at the first unescaped ';'
 * or '#' and `\;`, `\#`, `\\` are unescaped.
 */
export function decodeIniPart(raw: string): string {
  const val = raw.trim();
  if ((val.startsWith('"') && val.endsWith('"')) || (val.startsWith("'") && val.endsWith("'"))) {
    const inner = val.startsWith("'") ? val.slice(1, -1) : val;
    try {
      const parsed: unknown = JSON.parse(inner);
      return typeof parsed === 'string' ? parsed : inner;
    } catch {
      return inner;
    }
  }
  let out = '';
  let esc = false;
  for (const c of val) {
    if (esc) {
      out += '\\;#'.includes(c) ? c : `\\${c}`;
      esc = false;
    } else if (c === ';' || c === '#') break;
    else if (c === '\\') esc = true;
    else out += c;
  }
  if (esc) out += '\\';
  return out.trim();
}

/** A value written so decodeIniPart reads it back exactly. */
function encodeIniValue(value: string): string {
  return /^[^\s;#"'\\](?:[^;#\\]*[^\s;#\\])?$/.test(value) || value === '' ? value : JSON.stringify(value);
}

export function isSecretNpmrcKey(rawKey: string): boolean {
  const key = decodeIniPart(rawKey).replace(/\[\]$/, '');
  const last = key.slice(key.lastIndexOf(':') + 1).toLowerCase();
  return (NPMRC_SECRET_KEYS as readonly string[]).includes(last);
}

const SECTION = /^\[([^\]]*)\]\s*$/;

/** Lines are split on [\r\n]+ and keys and values decoded exactly as npm's ini parser does. */
export function sanitizeNpmrc(text: string): SanitizedText {
  const removed: string[] = [];
  const redacted: string[] = [];
  const out: string[] = [];
  for (const line of text.split(/[\r\n]+/)) {
    // Comments are dropped: an old token is often left commented out.
    if (/^\s*[;#]/.test(line)) continue;
    if (/^\s*$/.test(line) || SECTION.test(line)) {
      out.push(line);
      continue;
    }
    const eq = line.indexOf('=');
    // A bare key is a boolean flag in ini; a secret name alone carries no value, drop it anyway.
    const rawKey = eq === -1 ? line : line.slice(0, eq);
    const key = decodeIniPart(rawKey);
    if (isSecretNpmrcKey(rawKey)) {
      removed.push(key);
      out.push(`; cordon: removed ${key.replace(/[\r\n]/g, '')}`);
      continue;
    }
    if (eq === -1) {
      out.push(line);
      continue;
    }
    const value = decodeIniPart(line.slice(eq + 1));
    const cleaned = stripUrlUserinfo(value);
    if (cleaned === value) out.push(line);
    else {
      redacted.push(key);
      out.push(`${rawKey}=${encodeIniValue(cleaned)}`);
    }
  }
  return { text: out.join('\n'), removed, redacted };
}
