// The child's environment on Windows. Names are case-insensitive there (Path and PATH are one
// variable): spellings are merged, the last value wins, the first spelling is kept. A name
// may not contain '=' past its first character and nothing may contain NUL (the block is
// NUL-separated); such entries are refused. The launcher writes the block sorted
// case-insensitively, as CreateProcess documents (see sortedEnvBlock).
import { CordonError } from '../../errors.ts';

export function buildWindowsEnv(
  env: Readonly<Record<string, string>>,
  omit: readonly string[],
): Record<string, string> {
  const byKey = new Map<string, [string, string]>();
  const omitted = new Set(omit.map((n) => n.toUpperCase()));
  for (const [name, value] of Object.entries(env)) {
    if (name.length === 0 || name.slice(1).includes('=') || name.includes('\0') || value.includes('\0')) {
      throw new CordonError(
        'bad-env',
        `environment variable ${JSON.stringify(name)} cannot be passed on Windows (empty name, '=' in the name, or a NUL) — rename or drop it with --clear-env`,
      );
    }
    const key = name.toUpperCase();
    if (omitted.has(key)) continue;
    const existing = byKey.get(key);
    byKey.set(key, [existing ? existing[0] : name, value]);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of sortedEntries([...byKey.values()])) out[name] = value;
  return out;
}

function sortedEntries(entries: [string, string][]): [string, string][] {
  return entries.sort(([a], [b]) => compareEnvNames(a, b));
}

/** Case-insensitive ordinal order (upper-cased UTF-16 units), the order the block wants. */
export function compareEnvNames(a: string, b: string): number {
  const ua = a.toUpperCase();
  const ub = b.toUpperCase();
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/** NAME=VALUE\0...\0\0 as one string (UTF-16 when encoded by the launcher). */
export function sortedEnvBlock(env: Readonly<Record<string, string>>): string {
  const entries = sortedEntries(Object.entries(env));
  return `${entries.map(([n, v]) => `${n}=${v}\0`).join('')}\0`;
}
