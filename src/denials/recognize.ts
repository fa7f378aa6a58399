// Recognizes failure lines in a command's own stderr that a sandbox may have caused: file
// errors that name a path (EACCES, EROFS, EPERM, and ENOENT for paths hidden by the sandbox)
// and network failures (resolution, unreachable, refused). Pure text → candidates; whether
// the sandbox is to blame is decided against the policy in explain.ts, never here.

export type FsErrno = 'EACCES' | 'EROFS' | 'EPERM' | 'ENOENT';
export type NetErrno = 'resolve' | 'unreachable' | 'refused' | 'not-found' | 'socket' | 'denied';
/** What the line says the command tried, when it says it ('unknown' when it does not). */
export type OperationHint = 'read' | 'write' | 'create' | 'unknown';

export interface FsCandidate {
  readonly kind: 'fs';
  readonly errno: FsErrno;
  /** Paths named on the line, in the order they appear; relative ones as written. */
  readonly paths: readonly string[];
  readonly hint: OperationHint;
  readonly line: string;
}

export interface NetCandidate {
  readonly kind: 'net';
  readonly errno: NetErrno;
  /** Host name or address the line names, when it names one. */
  readonly address: string | undefined;
  readonly line: string;
}

export type Candidate = FsCandidate | NetCandidate;

const FS_ERRNO: readonly [RegExp, FsErrno][] = [
  [/read-only file system|\bEROFS\b/i, 'EROFS'],
  [/permission denied|\bEACCES\b/i, 'EACCES'],
  [/operation not permitted|\bEPERM\b/i, 'EPERM'],
  // dash: "cannot create /tmp/x/file: Directory nonexistent".
  [/no such file or directory|\bENOENT\b|directory nonexistent/i, 'ENOENT'],
];

const NET_ERRNO: readonly [RegExp, NetErrno][] = [
  [/network is unreachable|\bENETUNREACH\b|no route to host|\bEHOSTUNREACH\b/i, 'unreachable'],
  [
    /could not resolve host|temporary failure in name resolution|\bEAI_AGAIN\b|unable to resolve host|could not resolve hostname|resolving timed out/i,
    'resolve',
  ],
  [/\bENOTFOUND\b|name or service not known|no address associated with hostname/i, 'not-found'],
  [/\bECONNREFUSED\b|connection refused/i, 'refused'],
  // A connect() the sandbox refused (Landlock's TCP connect right gives EACCES): Node's
  // `connect EACCES 127.0.0.1:2222`, curl's `Failed to connect to … port …: Permission denied`.
  [
    /\bconnect (?:EACCES|EPERM) (?!\/)|(?:failed to connect|could not connect|connect to)\b[^\n]*(?:permission denied|operation not permitted|\bEACCES\b|\bEPERM\b)/i,
    'denied',
  ],
];

const CREATE_WORDS =
  /cannot (?:touch|create|make|mkdir)|unable to create|could not create|\bmkdir\b|\bmkdtemp\b|\bcreat\b|\bsymlink\b|\blink\b|cannot create directory|failed to create/i;
const WRITE_WORDS =
  /cannot (?:remove|write|overwrite|move|rename|lock|unlink|chmod|change|set|open [^:]* for writing)|unable to (?:write|lock|unlink|remove|rename)|could not (?:write|lock|remove|rename)|\b(?:rmdir|unlink|rename|write|writefile|appendfile|copyfile|truncate|chmod|chown|utime|futime|lchown)\b|for writing|failed to write/i;
const READ_WORDS =
  /cannot (?:open|access|read|stat)|could not (?:open|read)|unable to (?:open|read)|\b(?:scandir|opendir|readdir|readfile|stat|lstat|access)\b|for reading|failed to read/i;

/** The operation words on a line: create beats write beats read. */
export function hintOf(line: string): OperationHint {
  if (CREATE_WORDS.test(line)) return 'create';
  if (WRITE_WORDS.test(line)) return 'write';
  if (READ_WORDS.test(line)) return 'read';
  return 'unknown';
}

function looksLikePath(text: string): boolean {
  if (text.length === 0 || text.length > 4096 || text.includes('\0')) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return false; // a URL
  return text.startsWith('/') || text.startsWith('~/') || text.startsWith('./') || text.startsWith('../');
}

function cleanToken(token: string): string {
  return token.replace(/^[([{<]+/, '').replace(/[)\]}>,;:.]+$/, '');
}

/** Paths named on a line: quoted strings first, then `a: b: c` fields, then bare tokens. */
export function extractPaths(line: string): string[] {
  const found: string[] = [];
  const add = (p: string) => {
    if (looksLikePath(p) && !found.includes(p)) found.push(p);
  };
  for (const re of [/'([^'\n]+)'/g, /‘([^’\n]+)’/g, /"([^"\n]+)"/g, /`([^'`\n]+)'/g, /«([^»\n]+)»/g]) {
    for (const m of line.matchAll(re)) {
      const q = m[1]!;
      // A quoted relative name counts when it is one word (touch: cannot touch 'out.txt').
      if (found.includes(q) || /^E[A-Z]+$/.test(q)) continue;
      if (looksLikePath(q) || (!/\s/.test(q) && !q.includes('://') && q.length < 4096)) found.push(q);
    }
  }
  for (const field of line.split(': ')) add(field.trim());
  for (const token of line.split(/\s+/)) add(cleanToken(token));
  // A bare relative path with a slash (could not lock config file .git/config: ...).
  for (const token of line.split(/\s+/)) {
    const t = cleanToken(token);
    if (/^[\w.@+-][^\s'"`]*\/[^\s'"`]*$/.test(t) && !t.includes('://') && !found.includes(t)) found.push(t);
  }
  // A relative name is trusted only as a whole `cmd: name: error` field (cat: notes.txt: ...).
  const fields = line.split(': ');
  if (fields.length >= 3) {
    for (const field of fields.slice(1, -1)) {
      const f = field.trim();
      if (
        f.length > 0 &&
        !f.includes(' ') &&
        !found.includes(f) &&
        !/^(\d+|E[A-Z]+)$/.test(f) &&
        !f.includes('://')
      )
        found.push(f);
    }
  }
  return found;
}

const ADDRESS_PATTERNS: readonly RegExp[] = [
  /could not resolve host(?:name)?:?\s+['"]?([A-Za-z0-9_.:[\]-]+?)['"]?(?::|\s|$)/i,
  /unable to resolve host(?: address)?\s+['‘"]?([A-Za-z0-9_.:[\]-]+?)['’"]?(?:\s|$)/i,
  /\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)\s+([A-Za-z0-9_.:[\]-]+)/,
  /\bconnect (?:EACCES|EPERM)\s+([A-Za-z0-9_.:[\]-]+)/,
  /connect to (?:host )?([A-Za-z0-9_.:[\]-]+) port (\d+)/i,
  /failed to connect to ([A-Za-z0-9_.:[\]-]+) port (\d+)/i,
  /Resolving ([A-Za-z0-9_.-]+)(?:\s|\.\.\.|\()/,
  /host='([A-Za-z0-9_.:[\]-]+)'/,
  /request to [a-z]+:\/\/([A-Za-z0-9_.:[\]-]+?)(?::\d+)?\//i,
  /unable to access '[a-z]+:\/\/([A-Za-z0-9_.:[\]-]+?)(?::\d+)?\//i,
];

export function extractAddress(line: string): string | undefined {
  for (const re of ADDRESS_PATTERNS) {
    const m = re.exec(line);
    if (m) {
      const host = m[1]!.replace(/\.+$/, '');
      return m[2] !== undefined ? `${host}:${m[2]}` : host;
    }
  }
  return undefined;
}

function recognizeLine(line: string): Candidate | undefined {
  for (const [re, errno] of NET_ERRNO) {
    if (re.test(line)) return { kind: 'net', errno, address: extractAddress(line), line };
  }
  for (const [re, errno] of FS_ERRNO) {
    if (!re.test(line)) continue;
    // A refused socket() (seccomp network filter) names no path: ping: socket: Operation not permitted.
    if ((errno === 'EPERM' || errno === 'EACCES') && /\bsocket\b/i.test(line) && !/(^|\s|')\//.test(line))
      return { kind: 'net', errno: 'socket', address: undefined, line };
    const paths = extractPaths(line);
    if (paths.length > 0) return { kind: 'fs', errno, paths, hint: hintOf(line), line };
    return undefined;
  }
  return undefined;
}

/** Candidates in the order they appear; at most `maxLines` lines are examined. */
export function recognizeFailures(text: string, maxLines = 5000): Candidate[] {
  const out: Candidate[] = [];
  const lines = text.split('\n');
  for (const raw of lines.slice(0, maxLines)) {
    const line = raw.replace(/\r$/, '');
    if (line.length === 0 || line.length > 8192) continue;
    const candidate = recognizeLine(line);
    if (candidate) out.push(candidate);
  }
  return out;
}
