// Windows path rules for the plan builder. Policy paths arrive with '/' separators
// (C:/Users/user/project). Here they are brought to one canonical spelling (drive letter upper
// case, \\?\ prefix dropped, drive root as C:/), classified, and refused when an ACL on them
// could not mean what the rule says: device and volume namespaces, alternate data streams,
// names Win32 silently rewrites (trailing dots/spaces, reserved device names), 8.3 short names
// that were not expanded. Comparison is case-insensitive (NTFS default); see policy/access.ts.

export type WindowsPathKind = 'all' | 'drive' | 'unc';

export interface CanonicalPath {
  readonly path: string;
  readonly kind: WindowsPathKind;
}

export type CanonicalResult =
  | { readonly ok: true; readonly value: CanonicalPath }
  | { readonly ok: false; readonly reason: string };

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(\..*)?$/i;
const INVALID_CHARS = /[<>"|?*\x00-\x1f]/;
/** 8.3 alias shape: up to six characters, ~, digits, an optional extension of up to three. */
const SHORT_NAME = /^[^~.]{1,6}~[0-9]{1,6}(\.[^.]{0,3})?$/i;

function fail(reason: string): CanonicalResult {
  return { ok: false, reason };
}

/** Checks each component of the part after the drive or share. */
function checkComponents(rest: string): string | undefined {
  for (const part of rest.split('/')) {
    if (part === '') continue;
    if (part.includes(':'))
      return `'${part}' names an alternate data stream (file:stream); ACLs apply to the whole file — name the file itself`;
    if (/[. ]$/.test(part))
      return `'${part}' ends with a dot or space, which Win32 strips (so it names a different file) — write the name without it`;
    if (RESERVED.test(part))
      return `'${part}' is a reserved DOS device name (CON, NUL, COM1, …), not a file — use another name`;
    if (INVALID_CHARS.test(part)) return `'${part}' contains a character not allowed in Windows file names`;
  }
  return undefined;
}

/**
 * Canonical spelling of a policy path on Windows, or why it cannot carry a rule. A path rooted
 * without a drive (/etc/shadow, from a cross-platform profile) is on the drive of the working
 * directory, as Win32 resolves it; `drive` is that letter.
 */
export function canonicalWindowsPath(raw: string, drive = 'C'): CanonicalResult {
  if (raw === '/' || raw === '') return { ok: true, value: { path: '/', kind: 'all' } };
  let path = raw.replace(/\\/g, '/');
  if (/^\/(?!\/)/.test(path)) path = `${drive}:${path}`;
  const verbatim = /^\/\/[?.]\//.exec(path);
  if (verbatim) {
    const rest = path.slice(4);
    if (/^[A-Za-z]:(\/|$)/.test(rest)) path = rest;
    else if (/^unc\//i.test(rest)) path = `//${rest.slice(4)}`;
    else
      return fail(
        `'${raw}' is a device or volume path (\\\\?\\ or \\\\.\\ namespace); cordon cannot relate it to the other rules — use the drive-letter path`,
      );
  }
  const letter = /^([A-Za-z]):(\/.*)?$/.exec(path);
  if (letter) {
    const rest = (letter[2] ?? '/').replace(/\/+$/, '');
    const problem = checkComponents(rest);
    if (problem) return fail(problem);
    return {
      ok: true,
      value: { path: `${letter[1]!.toUpperCase()}:${rest === '' ? '/' : rest}`, kind: 'drive' },
    };
  }
  const unc = /^\/\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
  if (unc) {
    const rest = (unc[3] ?? '').replace(/\/+$/, '');
    const problem = checkComponents(rest);
    if (problem) return fail(problem);
    return { ok: true, value: { path: `//${unc[1]}/${unc[2]}${rest}`, kind: 'unc' } };
  }
  return fail(
    `'${raw}' is not an absolute Windows path (drive-relative or rooted without a drive) — write it as C:/dir`,
  );
}

/** Whether a component looks like an unexpanded 8.3 alias (PROGRA~1, GIT~1). */
export function hasShortNameComponent(path: string): boolean {
  return path.split('/').some((part) => SHORT_NAME.test(part));
}

/** The key two spellings of one path share (NTFS compares names case-insensitively). */
export function pathKey(path: string): string {
  return path.toLowerCase();
}

/** C:/a/b → C:\a\b; \\?\ prefixed when the path reaches MAX_PATH (260). */
export function toNativePath(path: string): string {
  if (path.startsWith('//')) {
    const native = `\\\\${path.slice(2).replace(/\//g, '\\')}`;
    return native.length >= 260 ? `\\\\?\\UNC\\${native.slice(2)}` : native;
  }
  const native = path.replace(/\//g, '\\');
  return native.length >= 260 ? `\\\\?\\${native}` : native;
}

export function parentOf(path: string): string {
  if (/^[A-Z]:\/$/.test(path) || path === '/' || /^\/\/[^/]+\/[^/]+$/.test(path)) return '/';
  const i = path.lastIndexOf('/');
  if (/^[A-Z]:\/[^/]+$/.test(path)) return path.slice(0, 3);
  return i <= 0 ? '/' : path.slice(0, i);
}
