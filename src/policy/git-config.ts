// A small reader for git's config format (.git/config, .gitmodules, a submodule's config):
// sections `[name]`, `[name "sub"]` and the old `[name.sub]`, `key = value` or a bare key,
// `#`/`;` comments outside quotes, double-quoted values with \" \\ \n \t escapes, and
// backslash-newline continuations. Section and key names compare case-insensitively, the
// subsection exactly, as git does. Includes are not followed. Pure.

export interface GitConfigEntry {
  /** Lower-cased section name. */
  readonly section: string;
  /** Subsection, case kept; undefined for `[core]`. */
  readonly subsection: string | undefined;
  /** Lower-cased key. */
  readonly key: string;
  /** The value; 'true' for a bare key. */
  readonly value: string;
}

function parseValue(raw: string): string {
  let out = '';
  let quoted = false;
  let pendingSpace = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (!quoted && (ch === '#' || ch === ';')) break;
    if (ch === '"') {
      quoted = !quoted;
      out += pendingSpace;
      pendingSpace = '';
      continue;
    }
    if (ch === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += pendingSpace + (next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next);
      pendingSpace = '';
      continue;
    }
    if (!quoted && (ch === ' ' || ch === '\t')) {
      if (out.length > 0) pendingSpace += ch;
      continue;
    }
    out += pendingSpace + ch;
    pendingSpace = '';
  }
  return out;
}

function parseHeader(text: string): { section: string; subsection: string | undefined } | undefined {
  const m = /^\[\s*([A-Za-z0-9.-]+)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]/.exec(text);
  if (!m) return undefined;
  if (m[2] !== undefined) return { section: m[1]!.toLowerCase(), subsection: m[2].replace(/\\(.)/g, '$1') };
  const dot = m[1]!.indexOf('.');
  if (dot === -1) return { section: m[1]!.toLowerCase(), subsection: undefined };
  return { section: m[1]!.slice(0, dot).toLowerCase(), subsection: m[1]!.slice(dot + 1).toLowerCase() };
}

export function parseGitConfig(text: string): GitConfigEntry[] {
  const out: GitConfigEntry[] = [];
  // Join continuation lines first (a backslash right before the newline).
  const lines = text.replace(/\\\r?\n/g, '').split(/\r?\n/);
  let section: string | undefined;
  let subsection: string | undefined;
  for (const rawLine of lines) {
    let line = rawLine.trim();
    if (line.length === 0 || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const header = parseHeader(line);
      section = header?.section;
      subsection = header?.subsection;
      const close = line.indexOf(']');
      line = close === -1 ? '' : line.slice(close + 1).trim();
      if (line.length === 0 || line.startsWith('#') || line.startsWith(';')) continue;
    }
    if (section === undefined) continue;
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!m) continue;
    out.push({
      section,
      subsection,
      key: m[1]!.toLowerCase(),
      value: m[2] === undefined ? 'true' : parseValue(m[2]),
    });
  }
  return out;
}

/** The last value of section.subsection.key (git's "last one wins"). */
export function configValue(
  entries: readonly GitConfigEntry[],
  section: string,
  subsection: string | undefined,
  key: string,
): string | undefined {
  let value: string | undefined;
  for (const e of entries)
    if (e.section === section && e.subsection === subsection && e.key === key) value = e.value;
  return value;
}

/** Subsection names of every `[section "…"]` block, in file order, without repeats. */
export function subsections(entries: readonly GitConfigEntry[], section: string): string[] {
  const out: string[] = [];
  for (const e of entries)
    if (e.section === section && e.subsection !== undefined && !out.includes(e.subsection))
      out.push(e.subsection);
  return out;
}
