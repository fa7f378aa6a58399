// The path side of the Seatbelt plan: the policy's rules canonicalized for Seatbelt plus the
// platform rules the builder adds, the -D parameter table, and the filter clauses that turn
// "this root minus those carve-outs" into SBPL. Pure. Every path reaches the profile as
// (param "NAME"); every carve-out is excluded by its literal, its subpath and a regex of its
// other spellings (seatbelt-aliases.ts).
import type { HostInfo } from '../../host/types.ts';
import { findGoverningRule, isEffective, isWithin, normalizeRules, parentOf } from '../../policy/access.ts';
import type { Access, PolicyRule, SandboxPolicy } from '../../policy/types.ts';
import { aliasesLiteralRegex, aliasesRegex } from './seatbelt-aliases.ts';

/** Distinct canonical paths (and alias regexes) → parameter names, in order of first use. */
export class ParamTable {
  readonly params: Record<string, string> = {};
  private readonly byPath = new Map<string, string>();
  private readonly byRegex = new Map<string, string>();

  constructor(private readonly reserved: ReadonlyMap<string, string>) {}

  ref(path: string): string {
    let name = this.byPath.get(path) ?? this.reserved.get(path);
    if (name === undefined) {
      name = `PATH_${this.byPath.size}`;
      this.byPath.set(path, name);
    }
    this.params[name] = path;
    return `(param "${name}")`;
  }

  /** A regex value (never spliced into the text either). */
  regex(value: string): string {
    let name = this.byRegex.get(value);
    if (name === undefined) {
      name = `ALIASES_${this.byRegex.size}`;
      this.byRegex.set(value, name);
    }
    this.params[name] = value;
    return `(param "${name}")`;
  }
}

/** Strict ancestors of `path`, nearest first, ending with '/'. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let current = path;
  while (current !== '/') {
    current = parentOf(current);
    out.push(current);
  }
  return out;
}

export const isReadable = (access: Access): boolean => access !== 'none';
export const isWritable = (access: Access): boolean => access === 'write';

/**
 * The rules strictly beneath `root` that `keep` rejects and that have no other rejected rule
 * between them and `root`: subtracting these from (subpath root) leaves exactly the paths the
 * root's rule (or an accepted rule beneath it, which has its own clause) governs.
 */
export function topmostExclusions(
  rules: readonly PolicyRule[],
  root: PolicyRule,
  keep: (access: Access) => boolean,
): PolicyRule[] {
  const rejected = rules.filter(
    (r) => r.path !== root.path && isWithin(r.path, root.path) && !keep(r.access),
  );
  return rejected.filter(
    (c) => !rejected.some((d) => d !== c && d.path !== c.path && isWithin(c.path, d.path)),
  );
}

/**
 * Whether the rule governing the parent of `rule` already grants what `rule` grants: then that
 * parent's clause covers `rule`'s subtree (no rule lies between them, and the same exclusions
 * apply), so `rule` needs no clause of its own.
 */
export function isCoveredByParent(
  rules: readonly PolicyRule[],
  rule: PolicyRule,
  grants: (a: Access) => boolean,
): boolean {
  if (rule.path === '/') return false;
  const parent = findGoverningRule(
    rules.filter((r) => r.path !== rule.path),
    parentOf(rule.path),
  );
  return parent !== undefined && grants(parent.access);
}

/**
 * A protected `<root>/.cordon`: nothing reads that file, so it is not protected on any backend
 * (the fidelity issue drops it from policy/protected.ts; until that lands this keeps it out
 * of the profile). A missing one was the only placeholder the profile needed, and the one a
 * case-insensitive volume would alias (`mkdir .CORDON`).
 */
function isCordonPlaceholder(rule: PolicyRule): boolean {
  return rule.source.kind === 'protected' && rule.path.endsWith('/.cordon');
}

/**
 * The policy's rules, canonicalized for Seatbelt (which sees /private/tmp, never /tmp), plus
 * the platform's own, each unless a rule names that exact path:
 *   - private temp: the per-run dir writable; the shared temp dirs it replaces ($TMPDIR,
 *     /private/tmp, the confstr user temp dir) hidden, as a fresh tmpfs hides /tmp on Linux;
 *   - the confstr user cache dir writable (clang/Swift module caches, xcrun, Foundation);
 *   - /dev hidden: the base profile grants the few devices a command needs, never another
 *     terminal (/dev/ttys*), a disk or a BPF device through a readable `/`.
 */
export function canonicalRules(
  policy: SandboxPolicy,
  host: HostInfo,
  privateTmp: string | undefined,
): PolicyRule[] {
  const rules: PolicyRule[] = policy.rules
    .filter((r) => !isCordonPlaceholder(r))
    .map((r) => ({ ...r, path: host.realpath(r.path) }));
  const named = new Set(rules.map((r) => r.path));
  const add = (path: string, access: Access, source: PolicyRule['source']) => {
    if (named.has(path)) return;
    rules.push({ path, access, source });
    named.add(path);
  };
  const platform = { kind: 'protected', reason: 'macOS platform rule' } as const;
  if (privateTmp !== undefined) {
    const shared = [host.tmpdir, '/tmp', host.darwinUserDirs?.temp];
    for (const dir of shared) if (dir !== undefined) add(host.realpath(dir), 'none', { kind: 'private-tmp' });
    rules.push({ path: privateTmp, access: 'write', source: { kind: 'private-tmp' } });
  }
  const cache = host.darwinUserDirs?.cache;
  if (cache !== undefined) add(host.realpath(cache), 'write', platform);
  add('/dev', 'none', platform);
  const normalized = normalizeRules(rules);
  return normalized.filter((r) => isEffective(normalized, r));
}

/** The filters excluding one carve-out, for a path filter wrapped by `at` (identity for files). */
function excluded(table: ParamTable, path: string, at: (f: string) => string): string[] {
  const ref = table.ref(path);
  return [
    `(require-not ${at(`(literal ${ref})`)})`,
    `(require-not ${at(`(subpath ${ref})`)})`,
    `(require-not ${at(`(regex ${table.regex(aliasesRegex(path))})`)})`,
  ];
}

/** (subpath ROOT) minus each exclusion (its literal, subpath and other spellings). */
export function clause(
  table: ParamTable,
  root: string,
  exclusions: readonly PolicyRule[],
  at: (filter: string) => string = (f) => f,
): string {
  const rootFilter = at(`(subpath ${table.ref(root)})`);
  if (exclusions.length === 0) return `  ${rootFilter}`;
  const parts = ['  (require-all', `    ${rootFilter}`];
  for (const c of exclusions) for (const f of excluded(table, c.path, at)) parts.push(`    ${f}`);
  parts[parts.length - 1] += ')';
  return parts.join('\n');
}

/** A path and its other spellings, literal only (the rename guard). */
export function literalFilters(table: ParamTable, path: string): string[] {
  return [`(literal ${table.ref(path)})`, `(regex ${table.regex(aliasesLiteralRegex(path))})`];
}

export function allowForm(operation: string, clauses: readonly string[]): string {
  return `(allow ${operation}\n${clauses.join('\n')})`;
}

export function sortPaths(paths: Iterable<string>): string[] {
  return [...paths].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}
