// Filters an .npmrc (npm's ini format) down to its settings: every line that carries a
// credential is removed, credentials embedded in URLs are cut out, everything else (registry,
// scoped registries, proxy, CA, strict-ssl, ...) is kept verbatim. Pure. The stripped keys
// are listed in docs/caches.md; keep the two in step. Comment lines are dropped too.

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

const URL_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@\s"']*@/g;

function unquote(key: string): string {
  const k = key.trim();
  if (k.length >= 2 && (k[0] === '"' || k[0] === "'") && k.endsWith(k[0])) return k.slice(1, -1);
  return k;
}

export function isSecretNpmrcKey(rawKey: string): boolean {
  const key = unquote(rawKey).replace(/\[\]$/, '');
  const last = key.slice(key.lastIndexOf(':') + 1).toLowerCase();
  return (NPMRC_SECRET_KEYS as readonly string[]).includes(last);
}

export function sanitizeNpmrc(text: string): SanitizedText {
  const removed: string[] = [];
  const redacted: string[] = [];
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    // Comments are dropped: an old token is often left commented out.
    if (trimmed.startsWith(';') || trimmed.startsWith('#')) continue;
    if (trimmed === '' || trimmed.startsWith('[')) {
      out.push(line);
      continue;
    }
    const eq = line.indexOf('=');
    // A bare key is a boolean flag in ini; a secret name alone carries no value, drop it anyway.
    const key = unquote(eq === -1 ? line : line.slice(0, eq));
    if (isSecretNpmrcKey(key)) {
      removed.push(key);
      out.push(`; cordon: removed ${key.replace(/[\r\n]/g, '')}`);
      continue;
    }
    if (eq !== -1) {
      const value = line.slice(eq + 1);
      const cleaned = value.replace(URL_USERINFO, '$1');
      if (cleaned !== value) redacted.push(key);
      out.push(line.slice(0, eq + 1) + cleaned);
    } else {
      out.push(line);
    }
  }
  return { text: out.join('\n'), removed, redacted };
}
