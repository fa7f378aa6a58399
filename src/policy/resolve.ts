// Builds one SandboxPolicy from a merged profile, the rule flags and HostInfo: expands path
// tokens, resolves relative paths against the policy cwd, canonicalizes through HostInfo,
// adds the protected paths inside every writable root, and refuses carve-outs that a
// sandboxed command could redirect through a symlink it controls.
import { posix, win32 } from 'node:path';
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { MergedProfile } from '../profile/types.ts';
import { canWrite, findGoverningRule, normalizeRules, parentOf } from './access.ts';
import { checkBroadRoots, isLiteralProfilePath } from './broad-roots.ts';
import { applyFlagRules } from './flag-rules.ts';
import { protectedRules } from './protected.ts';
import type { Access, Network, PolicyRule, RuleSource, SandboxPolicy } from './types.ts';

export interface PolicyFlags {
  readonly read: readonly string[];
  readonly write: readonly string[];
  readonly deny: readonly string[];
  readonly network?: Network | undefined;
  /** Unix sockets the command may connect to (absolute or relative to the cwd). */
  readonly allowUnix?: readonly string[] | undefined;
}

export const NO_POLICY_FLAGS: PolicyFlags = { read: [], write: [], deny: [] };

/** Lexically normalized absolute path in the host's syntax ('/' separators on every OS). */
export function normalizePath(raw: string, host: HostInfo, cwd: string): string {
  if (host.platform === 'win32') {
    const abs = win32.isAbsolute(raw) ? raw : win32.join(cwd, raw);
    return win32
      .normalize(abs)
      .replace(/\\/g, '/')
      .replace(/(.)\/$/, '$1');
  }
  const abs = posix.isAbsolute(raw) ? raw : posix.join(cwd, raw);
  const norm = posix.normalize(abs);
  return norm.length > 1 && norm.endsWith('/') ? norm.slice(0, -1) : norm;
}

/** Expands ~, {cwd}, {tmp}, {system}, {node} and relative paths; returns absolute paths. */
export function expandPathToken(raw: string, host: HostInfo, cwd: string, where: string): string[] {
  if (raw === '{system}') return [...host.systemRoots];
  if (raw === '{node}') return [...(host.node?.readRoots ?? [])];
  let path = raw;
  if (path === '~' || path.startsWith('~/')) path = host.home + path.slice(1);
  else if (path.startsWith('{cwd}')) path = cwd + path.slice('{cwd}'.length);
  else if (path.startsWith('{tmp}')) path = host.tmpdir + path.slice('{tmp}'.length);
  else if (path.startsWith('~') || /\{[a-z-]*\}/.test(path)) {
    throw new CordonError(
      'bad-path',
      `unknown path token in ${where}: '${raw}' — use ~, {cwd}, {tmp}, {system}, {node}, / or a plain path`,
    );
  }
  return [normalizePath(path, host, cwd)];
}

interface LogicalRule {
  logical: string;
  access: Access;
  source: RuleSource;
  /** The user named this path (a flag, or a literal path in a profile), see broad-roots.ts. */
  explicit: boolean;
}

/** A rule cordon adds itself (the sandbox cache): an absolute path, taken literally. */
export interface ExtraRule {
  readonly path: string;
  readonly access: Access;
  readonly source: RuleSource;
}

export function resolvePolicy(
  profile: MergedProfile,
  flags: PolicyFlags,
  host: HostInfo,
  cwd: string,
  extra: readonly ExtraRule[] = [],
): SandboxPolicy {
  const logicalRules: LogicalRule[] = extra.map((r) => ({
    logical: normalizePath(r.path, host, cwd),
    access: r.access,
    source: r.source,
    explicit: false,
  }));
  const nodeRules: PolicyRule[] = [];
  for (const rule of profile.filesystem) {
    const where = `profile ${rule.profile} filesystem[${rule.index}].path`;
    if (rule.path === '{node}') {
      if (rule.access !== 'read')
        throw new CordonError('bad-path', `${where}: {node} can only be read — use access: read`);
      for (const path of expandPathToken(rule.path, host, cwd, where))
        nodeRules.push({
          path,
          access: 'read',
          source: { kind: 'profile', profile: rule.profile, index: rule.index },
        });
      continue;
    }
    for (const logical of expandPathToken(rule.path, host, cwd, where)) {
      logicalRules.push({
        logical,
        access: rule.access,
        source: { kind: 'profile', profile: rule.profile, index: rule.index },
        explicit: isLiteralProfilePath(rule.path),
      });
    }
  }
  const addFlag = (paths: readonly string[], access: Access, flag: '--read' | '--write' | '--deny') => {
    for (const raw of paths) {
      if (raw.length === 0)
        throw new CordonError('bad-path', `empty path for ${flag} — give a path, e.g. ${flag} ./build`);
      for (const logical of expandPathToken(raw, host, cwd, flag))
        logicalRules.push({ logical, access, source: { kind: 'flag', flag }, explicit: true });
    }
  };
  addFlag(flags.read, 'read', '--read');
  addFlag(flags.write, 'write', '--write');
  addFlag(flags.deny, 'none', '--deny');

  const logicalOf = new Map<string, string>();
  // Resolved once, in order: the symlink check below compares its own walk with these.
  const resolvedPaths = logicalRules.map((r) => host.realpath(r.logical));
  const rules: PolicyRule[] = applyFlagRules(
    logicalRules.map((r, i) => {
      const path = resolvedPaths[i]!;
      if (r.source.kind === 'flag' && !logicalOf.has(path)) logicalOf.set(path, r.logical);
      return { path, access: r.access, source: r.source };
    }),
    (path) => logicalOf.get(path) ?? path,
  );
  // {node} only opens what no other rule governs: never a read-only hole in a writable root
  // (nor a redundant rule under {system}), never through an explicit deny.
  rules.push(...nodeRules.filter((r) => findGoverningRule(rules, r.path) === undefined));
  checkBroadRoots(logicalRules, (logical) => host.realpath(logical), host, normalizePath(cwd, host, cwd));
  checkSymlinkedCarveOuts(logicalRules, resolvedPaths, rules, host);
  const withProtected = [...rules, ...protectedRules(rules, host)];
  return {
    platform: host.platform,
    rules: normalizeRules(withProtected),
    network: flags.network ?? profile.network,
    ...(profile.localBinding ? { localBinding: true } : {}),
    ...(flags.allowUnix && flags.allowUnix.length > 0
      ? { allowUnix: allowedSockets(flags.allowUnix, host, cwd) }
      : {}),
    privateTmp: profile.privateTmp,
    cwd,
    profile: profile.chain.join(' > '),
  };
}

/** Each named socket as written (absolute) and as it resolves: one socket, two spellings. */
function allowedSockets(raw: readonly string[], host: HostInfo, cwd: string): string[] {
  return [
    ...new Set(raw.flatMap((p) => [normalizePath(p, host, cwd), host.realpath(normalizePath(p, host, cwd))])),
  ];
}

/**
 * A rule whose path is reached through a symlink living in a writable directory can be
 * re-pointed by the sandboxed command (or another run's) between planning and use, or after:
 * refuse it, naming the link. Checked from the realpath answers themselves (a symlink is where
 * the canonical path of a prefix stops being its parent's plus the name), and the result must
 * agree with the path the rule was resolved to: another process swapping a directory for a
 * link while this runs cannot slip a link's target in as the rule's path.
 */
function checkSymlinkedCarveOuts(
  logicalRules: readonly LogicalRule[],
  resolvedPaths: readonly string[],
  rules: readonly PolicyRule[],
  host: HostInfo,
): void {
  for (const [i, rule] of logicalRules.entries()) {
    const resolved = resolvedPaths[i]!;
    const parts = rule.logical.split('/').filter((p) => p !== '');
    const drive = /^[A-Za-z]:$/.test(parts[0] ?? '') ? parts.shift()! : '';
    let logicalPrefix = drive;
    let realPrefix = drive;
    for (const part of parts) {
      const dir = logicalPrefix === '' ? '/' : logicalPrefix;
      const realDir = realPrefix === '' ? '/' : realPrefix;
      logicalPrefix = `${logicalPrefix}/${part}`;
      const real = host.realpath(logicalPrefix);
      const expected = `${realPrefix}/${part}`;
      if ((real !== expected || host.kind(logicalPrefix) === 'symlink') && canWrite(rules, realDir)) {
        throw new CordonError('unsafe-symlink', symlinkMessage(rule, logicalPrefix, dir, host));
      }
      realPrefix = real === '/' ? '' : real;
    }
    const walked = realPrefix === '' ? '/' : realPrefix;
    if (walked !== resolved && (canWrite(rules, parentOf(walked)) || canWrite(rules, parentOf(resolved))))
      throw new CordonError(
        'unsafe-symlink',
        `cannot resolve '${rule.logical}': it changed while cordon resolved it (first '${resolved}', then '${walked}'), inside a directory the command can write — another run may be swapping it for a symlink; wait for it and run again`,
      );
  }
}

function symlinkMessage(rule: LogicalRule, link: string, dir: string, host: HostInfo): string {
  // A write rule too: an earlier run can plant `./build -> /elsewhere`, and granting the
  // link's target would let this run write wherever the link points.
  const what = rule.access === 'none' ? 'deny' : rule.access === 'write' ? 'write' : 'read-only';
  const fix =
    rule.access === 'write'
      ? `grant the real target instead (--write ${host.realpath(rule.logical)}) if that is what you mean, or remove the link`
      : "name the link's target instead, or replace the link";
  return `cannot enforce ${what} rule on '${rule.logical}': it goes through the symlink '${link}', which the sandboxed command could replace because '${dir}' is writable — ${fix}`;
}
