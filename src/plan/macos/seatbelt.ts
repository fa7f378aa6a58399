// Policy → `sandbox-exec -p PROFILE -DNAME=value ... -- COMMAND`. Pure: machine facts come
// from HostInfo. Every path (and every alias regex) reaches Seatbelt as a -D parameter and is
// referenced as (param "NAME"), never spliced into the profile text.
//
// Seatbelt applies the LAST matching rule of an operation. Generated allows never overlap
// wrongly; denies come after the allows they narrow. Emitted order:
//   1. The static base (seatbelt-base.ts): (deny default) and what every program needs.
//   2. Ancestors: file-read-metadata on the literal ancestors of each readable root that the
//      policy denies, so realpath()/stat can walk down to the root (no listing, no content).
//   3. Reads: (allow file-read* file-map-executable ...), then (allow process-exec ...) with the
//      same clauses. One clause per rule granting read or write (none when its parent's rule
//      already does): (subpath ROOT) minus, for each topmost `none` rule beneath it, its
//      literal, its subpath and its other spellings (case, Unicode form, /System/Volumes/Data).
//   4. Writes: (allow file-write* ...), one clause per `write` rule (same pruning) minus each
//      topmost `read`/`none` rule beneath it (protected .git, --deny, read-only carve-outs); the
//      literal is what stops the first `mkdir P` of a missing one. Nested reopening (write under
//      none under write) is the union of the clauses: the deeper root has its own. Then hard
//      links from the write clauses only (a link to a file outside would be writable, or
//      readable, by the link's path: Seatbelt matches paths, not inodes) and clones of files
//      from the read clauses (a copy of something readable); never of a directory.
//   5. Rename guard: (deny file-write-unlink (literal A)) for every writable directory A that
//      contains a read-only or denied path, so `mv A elsewhere` cannot carry the protected path
//      out from under its rule (Seatbelt checks a rename's two paths, not the subtree).
//   6. Sockets and network (seatbelt-network.ts): the command's own unix sockets in the write
//      clauses, host daemons' denied, --allow-unix; IP only with the network on, loopback only
//      with the profile key localBinding.
//   7. (deny file-ioctl TIOCSTI): last, so no earlier allow can re-open it.
// A path is in the read set of 3 exactly when the policy's deepest rule for it is read/write,
// and in the write set of 4 exactly when it is write: the clauses mirror policy/access.ts
// (test/property/seatbelt-model.test.ts). The builder's own rules (private temp, the user cache
// dir, /dev) are listed in seatbelt-rules.ts.
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import { resolveAccess } from '../../policy/access.ts';
import type { SandboxPolicy } from '../../policy/types.ts';
import type { SeatbeltPlan } from '../types.ts';
import { SEATBELT_BASE_PROFILE, SEATBELT_LOG_TAG, SEATBELT_TIOCSTI_DENY } from './seatbelt-base.ts';
import { daemonSocketPaths, networkSection, resolverFiles, socketSection } from './seatbelt-network.ts';
import {
  allowForm,
  ancestorsOf,
  canonicalRules,
  clause,
  isCoveredByParent,
  isReadable,
  isWritable,
  literalFilters,
  ParamTable,
  sortPaths,
  topmostExclusions,
} from './seatbelt-rules.ts';

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
  const rules = canonicalRules(policy, host, privateTmp);
  // Unlike bwrap's, sandbox-exec's own path needs no "not writable" check: /usr/bin is on the
  // sealed, read-only system volume, so no write rule can let a command replace it.
  const reserved = new Map<string, string>();
  if (privateTmp !== undefined) reserved.set(privateTmp, PRIVATE_TMP_PARAM);
  const table = new ParamTable(reserved);
  const sections: string[] = [SEATBELT_BASE_PROFILE.trimEnd()];

  const readable = rules.filter((r) => r.access !== 'none' && !isCoveredByParent(rules, r, isReadable));
  const writable = rules.filter((r) => r.access === 'write' && !isCoveredByParent(rules, r, isWritable));
  const resolver = policy.network === 'on' ? resolverFiles(rules) : [];

  // 2. ancestors of readable roots (and of the resolver's files) that the policy denies
  const ancestors = new Set<string>();
  for (const path of [...readable.map((r) => r.path), ...resolver]) {
    for (const a of ancestorsOf(path)) if (resolveAccess(rules, a) === 'none') ancestors.add(a);
  }
  if (ancestors.size > 0) {
    sections.push(
      `; Ancestors of readable roots: stat only, so realpath() can reach the roots.\n${allowForm(
        'file-read-metadata',
        sortPaths(ancestors).map((a) => `  (literal ${table.ref(a)})`),
      )}`,
    );
  }

  // 3. reads, mapping code, exec
  const readClauses = readable.map((r) => clause(table, r.path, topmostExclusions(rules, r, isReadable)));
  if (readable.length > 0) {
    sections.push(
      `; Reads, and mapping code from the same places (dyld, JITs, native addons).\n${allowForm(
        'file-read* file-map-executable',
        readClauses,
      )}`,
      `; Running programs: from the readable places only, as on Linux.\n${allowForm('process-exec', readClauses)}`,
    );
  }

  // 4. writes, hard links, clones
  const writeExclusions = writable.map((r) => topmostExclusions(rules, r, isWritable));
  if (writable.length > 0) {
    const writeClauses = writable.map((r, i) => clause(table, r.path, writeExclusions[i]!));
    sections.push(
      `; Writes: the writable roots minus the read-only and denied paths beneath them.\n${allowForm('file-write*', writeClauses)}`,
      `; Hard links (ln, pnpm, cargo, uv, bun) of files in the writable roots only: a link to a file\n; elsewhere would make it writable, or readable, under the link's path.\n${allowForm('file-link', writeClauses)}`,
      `; Clones (cp -c, clonefile) of readable files: a copy-on-write copy, nothing more. Never of a\n; directory: clonefile copies the whole tree beneath it in one call, denied files included.\n${allowForm('file-clone', readClauses)}\n(deny file-clone (vnode-type DIRECTORY) (with message "${SEATBELT_LOG_TAG}"))`,
    );
  }

  // 5. rename guard
  const guarded = new Set<string>();
  for (const rule of rules) {
    if (rule.access === 'write') continue;
    for (const a of ancestorsOf(rule.path)) if (resolveAccess(rules, a) === 'write') guarded.add(a);
  }
  if (guarded.size > 0) {
    sections.push(
      `; Writable directories holding protected or denied paths: no rename or removal.\n(deny file-write-unlink\n${sortPaths(
        guarded,
      )
        .flatMap((a) => literalFilters(table, a).map((f) => `  ${f}`))
        .join('\n')}\n  (with message "${SEATBELT_LOG_TAG}"))`,
    );
  }

  // 6. sockets and network
  sections.push(
    socketSection({
      table,
      writable,
      exclusions: writeExclusions,
      daemons: daemonSocketPaths(host, input.env),
      allowUnix: [...new Set(policy.allowUnix ?? [])],
    }),
  );
  const network = networkSection(policy, table, resolver);
  if (network !== '') sections.push(network);

  // 7. terminal input injection
  sections.push(
    `; No pushing input into a terminal (TIOCSTI), whatever was allowed above.\n${SEATBELT_TIOCSTI_DENY}`,
  );

  const profile = `${sections.join('\n\n')}\n`;
  const params = table.params;
  const defines = Object.entries(params).map(([name, value]) => `-D${name}=${value}`);
  const env = commandEnv(input.env, rules, host, privateTmp);
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
    ...(policy.allowNet ? { proxy: { allow: policy.allowNet } } : {}),
  };
}

/**
 * The command's environment: TMPDIR at the private temp dir, and PATH without the entries the
 * policy denies. macOS's execvp stops at the first EPERM (a denied directory) instead of
 * trying the next entry as it does on ENOENT, so a denied PATH entry would hide every program
 * after it.
 */
function commandEnv(
  base: Readonly<Record<string, string>>,
  rules: Parameters<typeof resolveAccess>[0],
  host: HostInfo,
  privateTmp: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = { ...base };
  if (privateTmp !== undefined) env['TMPDIR'] = privateTmp;
  const path = env['PATH'];
  if (path !== undefined) {
    const kept = path
      .split(':')
      .filter((dir) => !dir.startsWith('/') || resolveAccess(rules, host.realpath(dir)) !== 'none');
    env['PATH'] = kept.join(':');
  }
  return env;
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
