// Explains "no such file" on a host /tmp path under a backend whose /tmp is private to the
// sandbox (bubblewrap: a fresh tmpfs each run): the host's /tmp/x exists, the sandbox's does
// not. The hint names the narrowest host directory below /tmp to share — never /tmp itself
// (that would drop the private temp dir: other programs' files, sockets and secrets) — and
// only when safe-fix.ts accepts it. Pure; the host's view comes through kindOf.
import { posix } from 'node:path';
import { escapeBytes } from '../changes/report.ts';
import type { PathKind } from '../host/types.ts';
import { isWithin, resolveAccess } from '../policy/access.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { Annotation } from '../result/types.ts';
import { abbreviateHome, type Need, quoteForShell, withFlagRule } from './fix.ts';
import type { FsCandidate } from './recognize.ts';
import { unsafeFixReason } from './safe-fix.ts';

export interface PrivateTmpContext {
  readonly policy: SandboxPolicy;
  readonly home: string;
  /** The directory the backend replaces with an empty private one (bwrap: /tmp). */
  readonly privateTmp: string;
  readonly kindOf: (path: string) => PathKind;
}

export const PRIVATE_TMP_RULE = 'private /tmp of the sandbox';

/** Text from the command's output, on one line with nothing a terminal would act on. */
function shown(text: string): string {
  return escapeBytes(Buffer.from(text, 'utf8'));
}

/** The host path to share: the path itself when it exists, else its deepest existing directory. */
function shareTarget(path: string, ctx: PrivateTmpContext): string | undefined {
  let target = path;
  while (target !== ctx.privateTmp && ctx.kindOf(target) === 'missing') target = posix.dirname(target);
  return target === ctx.privateTmp || !isWithin(target, ctx.privateTmp) ? undefined : target;
}

/**
 * An annotation when `path` is below the private tmp, no rule already shares it, the error
 * says it is missing, and the host has it (or a directory of it) below /tmp.
 */
export function privateTmpAnnotation(
  c: FsCandidate,
  path: string,
  ctx: PrivateTmpContext,
  inferred: string,
): Annotation | undefined {
  const tmp = ctx.privateTmp;
  if (c.errno !== 'ENOENT' || path === tmp || !isWithin(path, tmp)) return undefined;
  // A rule below /tmp is mounted into the private one: that path is shared already.
  if (ctx.policy.rules.some((r) => r.path !== tmp && isWithin(r.path, tmp) && isWithin(path, r.path)))
    return undefined;
  const target = shareTarget(path, ctx);
  if (target === undefined) return undefined;
  const creating = c.hint === 'create' || c.hint === 'write' || ctx.kindOf(path) === 'missing';
  const need: Need = creating ? 'write' : 'read';
  const operation = c.hint === 'create' || ctx.kindOf(path) === 'missing' ? 'create' : need;
  const after = withFlagRule(ctx.policy.rules, target, need);
  const granted =
    need === 'read' ? resolveAccess(after, path) !== 'none' : resolveAccess(after, path) === 'write';
  const refused = granted
    ? unsafeFixReason(ctx.policy, ctx.home, target, need, after, path)
    : 'no flag would allow it';
  const shownTarget = shown(abbreviateHome(target, ctx.home));
  const fix =
    refused === undefined ? `--${need} ${quoteForShell(abbreviateHome(target, ctx.home))}` : undefined;
  const what = target === path ? `the host's ${shownTarget}` : `the host's directory ${shownTarget}`;
  const how =
    fix !== undefined
      ? `share it with the command: ${shown(fix)}`
      : `no flag suggested: ${shownTarget}: ${refused}`;
  const verb = operation === 'read' ? 'read of' : operation === 'create' ? 'create of' : 'write to';
  return {
    kind: 'denial',
    message: `possibly hidden: ${verb} ${shown(abbreviateHome(path, ctx.home))} — ${tmp} is private to the sandbox (empty at the start of every run), so ${what} is not visible inside; ${how} ${inferred}`,
    operation,
    path,
    rule: PRIVATE_TMP_RULE,
    fix,
    certainty: 'possible',
  };
}
