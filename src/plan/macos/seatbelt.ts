// Policy → `sandbox-exec -p PROFILE -DNAME=path ... -- COMMAND`. Pure: machine facts come from
// HostInfo. Every path reaches Seatbelt as a -D parameter and is referenced as (param "NAME"),
// never spliced into the profile text, so no path can break or extend the profile.
//
// Seatbelt applies the LAST matching rule of an operation. Everything generated is an allow
// built so that allows never overlap wrongly; the only denies come last. Emitted order:
//   1. The static base (seatbelt-base.ts): (deny default) and what every program needs.
//   2. Ancestors: file-read-metadata on the literal ancestors of each readable root that the
//      policy denies, so realpath()/stat can walk down to the root (no listing, no content).
//   3. Reads: (allow file-read* file-map-executable ...), then (allow process-exec ...) with the
//      same clauses. One clause per rule granting read or write (none when its parent's rule
//      already does): (subpath ROOT) minus, for each topmost `none` rule beneath it,
//      (literal P) and (subpath P).
//   4. Writes: one (allow file-write* ...), one clause per `write` rule (same pruning):
//      (subpath ROOT) minus, for each topmost `read`/`none` rule beneath it (protected .git,
//      .cordon, --deny, read-only carve-outs), both (require-not (literal P)) and (require-not (subpath P)); the literal is
//      what stops the first `mkdir .cordon`. Nested reopening (write under none under write) is
//      the union of the clauses: the deeper root has its own.
//   5. Rename guard: (deny file-write-unlink (literal A)) for every writable directory A that
//      contains a read-only or denied path, so `mv A elsewhere` cannot carry the protected path
//      out from under its rule (Seatbelt checks a rename's two paths, not the subtree).
//   6. Network. Off: only unix-domain sockets, bound and connected by path inside the write
//      clauses of 4 (a socket needs a writable place on Linux too). On: outbound, inbound,
//      bind, and the services DNS and TLS need.
//   7. (deny file-ioctl TIOCSTI): last, so no earlier allow can re-open it.
// A path is in the read set of 3 exactly when the policy's deepest rule for it is read/write,
// and in the write set of 4 exactly when it is write: the clauses mirror policy/access.ts.
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import {
  findGoverningRule,
  isEffective,
  isWithin,
  normalizeRules,
  resolveAccess,
} from '../../policy/access.ts';
import type { Access, PolicyRule, SandboxPolicy } from '../../policy/types.ts';
import type { SeatbeltPlan } from '../types.ts';
import { SEATBELT_BASE_PROFILE, SEATBELT_LOG_TAG, SEATBELT_TIOCSTI_DENY } from './seatbelt-base.ts';

/**
 * Always this absolute path, never a PATH lookup: a fake `sandbox-exec` placed earlier on PATH
 * (by the user's tooling or by an earlier sandboxed command writing to ~/bin) would receive the
 * profile and simply run the command unconfined, defeating everything. /usr/bin is on the
 * sealed system volume; replacing it there already takes root and disabling SIP.
 */
export const SANDBOX_EXEC_PATH = '/usr/bin/sandbox-exec';

/** mkdtemp-style template for the per-run private temp dir; the launcher fills in the Xs. */
export const PRIVATE_TMP_TEMPLATE_NAME = 'cordon-XXXXXX';
export const PRIVATE_TMP_PARAM = 'PRIVATE_TMP';

export interface SeatbeltBuildInput {
  readonly policy: SandboxPolicy;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly host: HostInfo;
  /** The private temp dir, when the caller already made it; otherwise a template is planned. */
  readonly privateTmpDir?: string | undefined;
}

/** Distinct canonical paths → parameter names, in order of first use. */
class ParamTable {
  readonly params: Record<string, string> = {};
  private readonly byPath = new Map<string, string>();

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
}

function parentDir(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

/** Strict ancestors of `path`, nearest first, ending with '/'. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  let current = path;
  while (current !== '/') {
    current = parentDir(current);
    out.push(current);
  }
  return out;
}

/**
 * The rules strictly beneath `root` that `keep` rejects and that have no other rejected rule
 * between them and `root`: subtracting these from (subpath root) leaves exactly the paths the
 * root's rule (or an accepted rule beneath it, which has its own clause) governs.
 */
function topmostExclusions(
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

const isReadable = (access: Access): boolean => access !== 'none';
const isWritable = (access: Access): boolean => access === 'write';

/**
 * Whether the rule governing the parent of `rule` already grants what `rule` grants: then that
 * parent's clause covers `rule`'s subtree (no rule lies between them, and the same exclusions
 * apply), so `rule` needs no clause of its own.
 */
function isCoveredByParent(
  rules: readonly PolicyRule[],
  rule: PolicyRule,
  grants: (a: Access) => boolean,
): boolean {
  if (rule.path === '/') return false;
  const parent = findGoverningRule(
    rules.filter((r) => r.path !== rule.path),
    parentDir(rule.path),
  );
  return parent !== undefined && grants(parent.access);
}

/** The policy's rules, canonicalized for Seatbelt (which sees /private/tmp, never /tmp). */
function canonicalRules(input: SeatbeltBuildInput, privateTmp: string | undefined): PolicyRule[] {
  const { policy, host } = input;
  const rules: PolicyRule[] = policy.rules.map((r) => ({ ...r, path: host.realpath(r.path) }));
  if (privateTmp !== undefined) {
    // Private temp: the per-run dir is writable; the shared temp dirs it replaces are hidden
    // (as a fresh tmpfs hides /tmp on Linux) unless a rule names them exactly.
    const named = new Set(rules.map((r) => r.path));
    for (const shared of [host.realpath(host.tmpdir), host.realpath('/tmp')]) {
      if (named.has(shared)) continue;
      rules.push({ path: shared, access: 'none', source: { kind: 'private-tmp' } });
      named.add(shared);
    }
    rules.push({ path: privateTmp, access: 'write', source: { kind: 'private-tmp' } });
  }
  const normalized = normalizeRules(rules);
  return normalized.filter((r) => isEffective(normalized, r));
}

/** A unix-domain socket's path, for network-bind (local) or network-outbound (remote). */
function socketClause(
  table: ParamTable,
  side: 'local' | 'remote',
  root: string,
  exclusions: readonly PolicyRule[],
): string {
  const at = (ref: string) => `(${side} unix-socket (subpath ${ref}))`;
  if (exclusions.length === 0) return `  ${at(table.ref(root))}`;
  const parts = [`  (require-all`, `    ${at(table.ref(root))}`];
  for (const c of exclusions) parts.push(`    (require-not ${at(table.ref(c.path))})`);
  parts[parts.length - 1] += ')';
  return parts.join('\n');
}

function clause(table: ParamTable, root: string, exclusions: readonly PolicyRule[]): string {
  if (exclusions.length === 0) return `  (subpath ${table.ref(root)})`;
  const parts = [`  (require-all`, `    (subpath ${table.ref(root)})`];
  for (const c of exclusions) {
    const ref = table.ref(c.path);
    parts.push(`    (require-not (literal ${ref}))`, `    (require-not (subpath ${ref}))`);
  }
  parts[parts.length - 1] += ')';
  return parts.join('\n');
}

function allowForm(operation: string, clauses: readonly string[]): string {
  return `(allow ${operation}\n${clauses.join('\n')})`;
}

const NETWORK_SECTION = `; Network on: connections both ways and listening sockets.
(allow network-outbound)
(allow network-inbound)
(allow network-bind)
; Interface and route information (Network.framework, getifaddrs users, Go's net package).
(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))
(allow sysctl-read (sysctl-name-prefix "net.routetable."))
; Name resolution reads the resolver configuration from configd.
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.networkd"))
; TLS certificate trust (Security.framework: curl, git, Go's crypto/x509, Python via certifi
; fallbacks, Swift/ObjC URLSession) and revocation checks; dirhelper locates the cache dirs.
(allow mach-lookup
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.securityd.xpc")
  (global-name "com.apple.ocspd")
  (global-name "com.apple.bsd.dirhelper"))`;

export function buildSeatbeltPlan(input: SeatbeltBuildInput): SeatbeltPlan {
  const { policy, command, host } = input;
  if (host.platform !== 'darwin')
    throw new CordonError(
      'backend-unavailable',
      `the seatbelt backend runs only on macOS, not on ${host.platform} — use --backend auto, or explain --platform darwin to see the profile`,
    );
  if (command.length === 0)
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');

  const privateTmp = policy.privateTmp
    ? (input.privateTmpDir ?? `${host.realpath(host.tmpdir)}/${PRIVATE_TMP_TEMPLATE_NAME}`)
    : undefined;
  const rules = canonicalRules(input, privateTmp);
  // Unlike bwrap's, sandbox-exec's own path needs no "not writable" check: /usr/bin is on the
  // sealed, read-only system volume, so no write rule can let a command replace it.
  const reserved = new Map<string, string>();
  if (privateTmp !== undefined) reserved.set(privateTmp, PRIVATE_TMP_PARAM);
  const table = new ParamTable(reserved);
  const sections: string[] = [SEATBELT_BASE_PROFILE.trimEnd()];

  const readable = rules.filter((r) => r.access !== 'none' && !isCoveredByParent(rules, r, isReadable));
  const writable = rules.filter((r) => r.access === 'write' && !isCoveredByParent(rules, r, isWritable));

  // 2. ancestors of readable roots that the policy denies: stat only
  const ancestors = new Set<string>();
  for (const root of readable) {
    for (const a of ancestorsOf(root.path)) if (resolveAccess(rules, a) === 'none') ancestors.add(a);
  }
  if (ancestors.size > 0) {
    const sorted = [...ancestors].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    sections.push(
      `; Ancestors of readable roots: stat only, so realpath() can reach the roots.\n${allowForm(
        'file-read-metadata',
        sorted.map((a) => `  (literal ${table.ref(a)})`),
      )}`,
    );
  }

  // 3. reads, mapping code, exec
  if (readable.length > 0) {
    const clauses = readable.map((r) => clause(table, r.path, topmostExclusions(rules, r, isReadable)));
    sections.push(
      `; Reads, and mapping code from the same places (dyld, JITs, native addons).\n${allowForm(
        'file-read* file-map-executable',
        clauses,
      )}`,
      `; Running programs: from the readable places only, as on Linux.\n${allowForm('process-exec', clauses)}`,
    );
  }

  // 4. writes
  if (writable.length > 0) {
    const clauses = writable.map((r) => clause(table, r.path, topmostExclusions(rules, r, isWritable)));
    sections.push(
      `; Writes: the writable roots minus the read-only and denied paths beneath them.\n${allowForm('file-write*', clauses)}`,
    );
  }

  // 5. rename guard
  const guarded = new Set<string>();
  for (const rule of rules) {
    if (rule.access === 'write') continue;
    for (const a of ancestorsOf(rule.path)) if (resolveAccess(rules, a) === 'write') guarded.add(a);
  }
  if (guarded.size > 0) {
    const sorted = [...guarded].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    sections.push(
      `; Writable directories holding protected or denied paths: no rename or removal.\n(deny file-write-unlink\n${sorted
        .map((a) => `  (literal ${table.ref(a)})`)
        .join('\n')}\n  (with message "${SEATBELT_LOG_TAG}"))`,
    );
  }

  // 6. network: unix sockets in the writable roots when off, everything when on
  if (policy.network === 'off' && writable.length > 0) {
    const excluded = writable.map((r) => topmostExclusions(rules, r, isWritable));
    sections.push(
      `; Unix-domain sockets by path (build servers, test workers, language servers): bind and\n; connect inside the writable roots only, as on Linux, where a socket needs a writable place.\n${allowForm(
        'network-bind',
        writable.map((r, i) => socketClause(table, 'local', r.path, excluded[i]!)),
      )}\n${allowForm(
        'network-outbound',
        writable.map((r, i) => socketClause(table, 'remote', r.path, excluded[i]!)),
      )}`,
    );
  }
  if (policy.network === 'on') sections.push(NETWORK_SECTION);

  // 7. terminal input injection
  sections.push(
    `; No pushing input into a terminal (TIOCSTI), whatever was allowed above.\n${SEATBELT_TIOCSTI_DENY}`,
  );

  const profile = `${sections.join('\n\n')}\n`;
  const params = table.params;
  const defines = Object.entries(params).map(([name, value]) => `-D${name}=${value}`);
  const env = privateTmp !== undefined ? { ...input.env, TMPDIR: privateTmp } : { ...input.env };
  return {
    backend: 'seatbelt',
    executable: SANDBOX_EXEC_PATH,
    args: ['-p', profile, ...defines, '--', ...command],
    env,
    cwd: policy.cwd,
    notEnforced: [],
    profile,
    params: { ...params },
    privateTmp: privateTmp === undefined ? undefined : { path: privateTmp, param: PRIVATE_TMP_PARAM },
  };
}

/**
 * The plan with its private temp dir template replaced by the directory the launcher made
 * (mkdtemp). Pure; the launcher (backends/seatbelt/tmp.ts) calls it right before spawning.
 */
export function withPrivateTmpDir(plan: SeatbeltPlan, dir: string): SeatbeltPlan {
  const tmp = plan.privateTmp;
  if (!tmp) return plan;
  const define = `-D${tmp.param}=${tmp.path}`;
  return {
    ...plan,
    args: plan.args.map((a, i) =>
      a === define && plan.args.indexOf('--') > i ? `-D${tmp.param}=${dir}` : a,
    ),
    env: { ...plan.env, TMPDIR: dir },
    params: { ...plan.params, [tmp.param]: dir },
    privateTmp: { path: dir, param: tmp.param },
  };
}
