// Turns recognized failure lines into denial annotations, but only where the policy explains
// them: the path's governing rule must refuse the operation (or the network must be off).
// A failure the policy allows (a 0400 file the command owns in its writable cwd) is not the
// sandbox's doing and is never reported. Deduplicated by operation + path, capped.
import { posix } from 'node:path';
import { escapeBytes } from '../changes/report.ts';
import type { PathKind } from '../host/types.ts';
import { findGoverningRule, isWithin } from '../policy/access.ts';
import { describeSource, type PolicyRule, type SandboxPolicy } from '../policy/types.ts';
import type { Annotation } from '../result/types.ts';
import { abbreviateHome, findSafeFix, type Need, quoteForShell } from './fix.ts';
import { privateTmpAnnotation } from './private-tmp.ts';
import { type Candidate, type FsCandidate, type NetCandidate, recognizeFailures } from './recognize.ts';

export type DenialOperation = 'read' | 'write' | 'create' | 'network' | 'signal';

export interface DenialContext {
  readonly policy: SandboxPolicy;
  readonly home: string;
  /** Whether the network switch came from --net/--no-net (else from the profile). */
  readonly networkFromFlag: boolean;
  /** Directories the sandbox makes privately writable (its own /tmp): not the policy's doing. */
  readonly privateDirs: readonly string[];
  /** Path prefixes of private directories named at run time (a random suffix follows). */
  readonly privatePrefixes?: readonly string[] | undefined;
  /** Host path kind (lstat); tells create from write and hidden from really missing. */
  readonly kindOf: (path: string) => PathKind;
  /**
   * How the backend refuses a write to a readable path. bwrap's read-only mounts give EROFS,
   * so an EACCES there came from the file's own mode first and is not the sandbox's doing.
   * Landlock and Seatbelt refuse with EACCES/EPERM (undefined), which file modes also give.
   */
  readonly writeDenialErrno?: 'EROFS' | undefined;
  /** Canonical host path (symlinks resolved), as the policy's rules are. */
  readonly realpath?: ((path: string) => string) | undefined;
  /**
   * What runs outside the sandbox later, so a hint never makes it writable: cordon's own code
   * and state (compile cache, native module), the Node running cordon, and every PATH directory.
   */
  readonly runsLater?: readonly string[] | undefined;
  /** The directory the backend replaces with an empty private one (bwrap: /tmp), if any. */
  readonly privateTmp?: string | undefined;
}

export const DEFAULT_MAX_DENIALS = 20;

export interface DenialReport {
  readonly denials: Annotation[];
  /** Further distinct denials left out by the cap. */
  readonly omitted: number;
}

function toAbsolute(raw: string, ctx: DenialContext): string {
  let path = raw;
  if (path === '~' || path.startsWith('~/')) path = ctx.home + path.slice(1);
  const abs = posix.normalize(posix.isAbsolute(path) ? path : posix.join(ctx.policy.cwd, path));
  const trimmed = abs.length > 1 && abs.endsWith('/') ? abs.slice(0, -1) : abs;
  if (!ctx.realpath) return trimmed;
  try {
    return ctx.realpath(trimmed);
  } catch {
    return trimmed;
  }
}

function describeRule(rule: PolicyRule | undefined, home: string): string {
  if (!rule) return 'no rule grants access (paths outside the profile are not visible)';
  return `${describeSource(rule.source)}: ${rule.access} ${abbreviateHome(rule.path, home)}`;
}

interface Judged {
  readonly operation: DenialOperation;
  readonly path: string;
  readonly rule: PolicyRule | undefined;
  readonly certainty: 'certain' | 'possible';
}

/** Whether the policy explains this failure on `path`, and as what operation. */
function judgeFs(c: FsCandidate, path: string, ctx: DenialContext): Judged | undefined {
  const rule = findGoverningRule(ctx.policy.rules, path);
  // Inside the private /tmp only rules on paths below it are mounted; the rest is a fresh tmpfs.
  if (ctx.privateDirs.some((d) => isWithin(path, d) && !(rule && isWithin(rule.path, d) && rule.path !== d)))
    return undefined;
  if (ctx.privatePrefixes?.some((p) => path.startsWith(p))) return undefined;
  const access = rule?.access ?? 'none';
  if (access === 'write') return undefined; // the policy allowed it: not the sandbox
  const kind = ctx.kindOf(path);
  const writeLike = c.errno === 'EROFS' || c.hint === 'write' || c.hint === 'create';
  const createOp = c.hint === 'create' || (writeLike && kind === 'missing');
  if (c.errno === 'ENOENT') {
    // Hidden by the sandbox only if the policy denies it and it (or, to create it, its
    // directory) exists on the host.
    if (access !== 'none') return undefined;
    if (c.hint === 'create' && kind === 'missing' && ctx.kindOf(posix.dirname(path)) === 'dir')
      return { operation: 'create', path, rule, certainty: 'possible' };
    if (kind === 'missing' || writeLike) return undefined;
    return { operation: 'read', path, rule, certainty: 'possible' };
  }
  if (access === 'none') {
    const operation: DenialOperation = createOp ? 'create' : writeLike ? 'write' : 'read';
    return { operation, path, rule, certainty: 'certain' };
  }
  // Readable but not writable.
  if (ctx.writeDenialErrno === 'EROFS' && c.errno !== 'EROFS') return undefined;
  if (c.errno === 'EROFS')
    return { operation: createOp ? 'create' : 'write', path, rule, certainty: 'certain' };
  if (writeLike) return { operation: createOp ? 'create' : 'write', path, rule, certainty: 'certain' };
  // EACCES/EPERM on a readable path without a write word: perhaps a write, perhaps the file's mode.
  return { operation: 'write', path, rule, certainty: 'possible' };
}

/** Appended to every hint: the denial was read from text the command itself printed. */
export const INFERRED = "(inferred from the command's output)";

/** The command's text, shown on one line with nothing a terminal would act on. */
function shownText(text: string): string {
  return escapeBytes(Buffer.from(text, 'utf8'));
}

function fsAnnotation(j: Judged, ctx: DenialContext): Annotation {
  const need: Need = j.operation === 'read' ? 'read' : 'write';
  const shown = shownText(abbreviateHome(j.path, ctx.home));
  const rule = describeRule(j.rule, ctx.home);
  const verb = j.operation === 'read' ? 'read of' : j.operation === 'create' ? 'create of' : 'write to';
  const prefix = j.certainty === 'possible' ? 'possibly denied' : 'denied';
  let fix: string | undefined;
  let how: string;
  if (j.rule?.source.kind === 'flag' && j.rule.source.flag === '--deny') {
    // The user's own protection: say so, never suggest dropping it.
    how = `your --deny ${shownText(quoteForShell(abbreviateHome(j.rule.path, ctx.home)))} keeps it out ${INFERRED}`;
  } else {
    const found = findSafeFix(ctx.policy, ctx.home, j.path, need, ctx.kindOf, ctx.runsLater);
    if (found.target !== undefined) {
      fix = `--${need} ${quoteForShell(abbreviateHome(found.target, ctx.home))}`;
      // A rule on a path that does not exist yet is not enforced: its directory is the narrowest.
      const dirNote =
        found.target === j.path
          ? ''
          : ' (its directory: a path that does not exist yet cannot be granted alone)';
      how = `allow with ${shownText(fix)}${dirNote} ${INFERRED}`;
    } else if (found.refused !== undefined) {
      how = `no flag suggested: ${found.refused} ${INFERRED}`;
    } else if (j.rule?.source.kind === 'protected') {
      how = `kept read-only in every writable root; no flag suggested ${INFERRED}`;
    } else {
      how = `no flag suggested ${INFERRED}`;
    }
  }
  return {
    kind: 'denial',
    message: `${prefix}: ${verb} ${shown} (${shownText(rule)}) — ${how}`,
    operation: j.operation,
    path: j.path,
    rule,
    fix,
    certainty: j.certainty,
  };
}

const LOCAL_ADDRESS = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\]|0\.0\.0\.0)(:\d+)?$/i;

function netAnnotation(c: NetCandidate, ctx: DenialContext): Annotation | undefined {
  if (ctx.policy.network !== 'off') return undefined;
  if (c.errno === 'refused' && (c.address === undefined || LOCAL_ADDRESS.test(c.address))) return undefined;
  const certainty =
    c.errno === 'resolve' || c.errno === 'unreachable' || c.errno === 'denied' ? 'certain' : 'possible';
  if (ctx.policy.allowNet) return allowlistAnnotation(c, ctx.policy.allowNet, certainty);
  const rule = ctx.networkFromFlag
    ? 'network off: flag --no-net'
    : `network off: profile ${ctx.policy.profile}`;
  // The address is the command's own text, so shown escaped.
  const address = c.address === undefined ? undefined : shownText(c.address);
  const what = address !== undefined ? `network access to ${address}` : 'network access';
  // A refused connect to a loopback address: the only flag that allows it, --net, opens every
  // network and the host's own loopback services — broader than the denial, so not suggested
  // from text the command printed (the safe-hint rule, safe-fix.ts).
  const local = c.errno === 'denied' && c.address !== undefined && LOCAL_ADDRESS.test(c.address);
  const how = local
    ? `no flag suggested: --net would open every network and the host's loopback services, not just this port ${INFERRED}`
    : ctx.networkFromFlag
      ? 'drop --no-net (or pass --net) to allow it'
      : 'allow with --net';
  return {
    kind: 'denial',
    message: `${certainty === 'possible' ? 'possibly denied' : 'denied'}: ${what} (${rule}) — ${how}`,
    operation: 'network',
    path: c.address,
    rule,
    fix: local ? undefined : '--net',
    certainty,
  };
}

/**
 * With an allowlist the way out is the proxy: a direct attempt failed (the client ignored the
 * proxy variables), or the host is not listed. Never "--net": that would drop the allowlist.
 */
function allowlistAnnotation(
  c: NetCandidate,
  allowNet: readonly string[],
  certainty: 'certain' | 'possible',
): Annotation {
  const rule = `network: only ${allowNet.join(', ')}, through cordon's proxy`;
  const what = c.address !== undefined ? `network access to ${c.address}` : 'network access';
  const how =
    c.address !== undefined
      ? `if the host should be reachable, allow it with --allow-net ${c.address} and make sure the client uses HTTP_PROXY/HTTPS_PROXY`
      : 'the client must use HTTP_PROXY/HTTPS_PROXY; a host that is not listed needs --allow-net HOST';
  return {
    kind: 'denial',
    message: `${certainty === 'possible' ? 'possibly denied' : 'denied'}: ${what} (${rule}) — ${how}`,
    operation: 'network',
    path: c.address,
    rule,
    fix: c.address !== undefined ? `--allow-net ${c.address}` : undefined,
    certainty,
  };
}

/** Denials the policy explains, in the order the command reported them. */
export function explainDenials(
  candidates: readonly Candidate[],
  ctx: DenialContext,
  maxDenials = DEFAULT_MAX_DENIALS,
): DenialReport {
  const seen = new Map<string, Annotation>();
  let addressless: Annotation | undefined;
  for (const c of candidates) {
    if (c.kind === 'net') {
      const a = netAnnotation(c, ctx);
      if (!a) continue;
      if (a.path === undefined) addressless ??= a;
      else if (!seen.has(`network ${a.path}`)) seen.set(`network ${a.path}`, a);
      continue;
    }
    for (const raw of c.paths) {
      const abs = toAbsolute(raw, ctx);
      // A relative name counts only where its directory exists ('and/or' is not a path).
      if (!raw.startsWith('/') && !raw.startsWith('~') && ctx.kindOf(posix.dirname(abs)) === 'missing')
        continue;
      const hidden =
        ctx.privateTmp !== undefined
          ? privateTmpAnnotation(c, abs, { ...ctx, privateTmp: ctx.privateTmp }, INFERRED)
          : undefined;
      if (hidden) {
        if (!seen.has(`${hidden.operation} ${abs}`)) seen.set(`${hidden.operation} ${abs}`, hidden);
        break;
      }
      const j = judgeFs(c, abs, ctx);
      if (!j) continue;
      const key = `${j.operation} ${j.path}`;
      const prior = seen.get(key);
      // A certain sighting replaces a possible one of the same operation and path.
      if (!prior || (prior.certainty === 'possible' && j.certainty === 'certain'))
        seen.set(key, fsAnnotation(j, ctx));
      break;
    }
  }
  const all = [...seen.values()];
  if (addressless && !all.some((a) => a.operation === 'network')) all.push(addressless);
  return { denials: all.slice(0, maxDenials), omitted: Math.max(0, all.length - maxDenials) };
}

/** Recognize failure lines in `stderrText` and keep those the policy explains. */
export function findDenials(
  stderrText: string,
  ctx: DenialContext,
  maxDenials = DEFAULT_MAX_DENIALS,
): DenialReport {
  return explainDenials(recognizeFailures(stderrText), ctx, maxDenials);
}
