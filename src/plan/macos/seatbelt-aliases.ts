// Other spellings of one path on a Mac. Seatbelt's (literal)/(subpath) filters compare bytes,
// but the default APFS volume is case-insensitive and normalization-insensitive, and the data
// volume is also reachable under /System/Volumes/Data (firmlinks). So `mkdir .ENV` next to a
// denied missing `.env`, `cat ~/.SSH/id_rsa` or `cat /System/Volumes/Data/Users/u/.ssh/id_rsa`
// might name the same file through a spelling no literal matches. Whether Seatbelt sees the
// spelling the command typed or the one on disk only a Mac can say (test/sandbox/seatbelt.test.ts),
// so every exclusion also carries a regex matching all of those spellings. The regex is built
// here from the path (each character escaped or turned into a class of its variants) and passed
// as a -D parameter like every path: it never enters the profile text. Pure.

/** Where the data volume is mounted; user paths are reachable under it too. */
export const DATA_VOLUME = '/System/Volumes/Data';

/** Characters with a meaning in Seatbelt's (POSIX extended) regular expressions. */
const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/;

function escapeChar(c: string): string {
  return REGEX_SPECIAL.test(c) ? `\\${c}` : c;
}

/** Every way the file system may spell this one (NFC) character: cases × NFC/NFD. */
function variantsOf(c: string): string[] {
  const out = new Set<string>();
  for (const cased of [c, c.toLowerCase(), c.toUpperCase()]) {
    out.add(cased.normalize('NFC'));
    out.add(cased.normalize('NFD'));
  }
  return [...out];
}

function charPattern(c: string): string {
  const variants = variantsOf(c);
  if (variants.length === 1) return escapeChar(c);
  if (variants.every((v) => /^[A-Za-z]$/.test(v))) return `[${variants.join('')}]`;
  return `(${variants.map((v) => [...v].map(escapeChar).join('')).join('|')})`;
}

/** The path (made absolute and canonical by the caller) with every character's variants. */
function spellings(path: string): string {
  let out = '';
  for (const c of path.normalize('NFC')) out += charPattern(c);
  return out;
}

function prefix(path: string): string {
  return path.startsWith(`${DATA_VOLUME}/`) || path === DATA_VOLUME ? '^' : `^(${DATA_VOLUME})?`;
}

/** The path and everything beneath it, in every spelling: (literal P) + (subpath P). */
export function aliasesRegex(path: string): string {
  if (path === '/') return '^/';
  return `${prefix(path)}${spellings(path)}(/.*)?$`;
}

/** The path itself only, in every spelling: (literal P). */
export function aliasesLiteralRegex(path: string): string {
  if (path === '/') return '^/$';
  return `${prefix(path)}${spellings(path)}$`;
}
