// The denial step of a run: builds the context from the prepared run (policy, host facts, the
// plan's private directories) and returns the annotations. Any failure here yields none, so a
// recognizer bug can never change the command's output or exit status.
import type { HostInfo } from '../host/types.ts';
import type { Plan } from '../plan/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { Annotation } from '../result/types.ts';
import { DEFAULT_MAX_DENIALS, type DenialContext, explainDenials } from './explain.ts';
import { recognizeFailures } from './recognize.ts';

export interface DenialRunInput {
  readonly policy: SandboxPolicy | undefined;
  readonly plan: Plan;
  readonly host: HostInfo;
  readonly networkFromFlag: boolean;
  /** The command's captured stderr (head and tail as the collector kept them). */
  readonly stderr: { readonly head: Buffer; readonly tail: Buffer };
  /**
   * The command's captured stdout: denials there count too (`cat secret 2>&1`). The same
   * safe-hint rule applies — both streams are text the command controls.
   */
  readonly stdout?: { readonly head: Buffer; readonly tail: Buffer } | undefined;
  readonly maxDenials?: number | undefined;
  /** Annotations already made (a backend's exact log, e.g. Seatbelt): denials of the same path are not repeated. */
  readonly known?: readonly Annotation[] | undefined;
}

/**
 * What the backend makes privately writable (its own temp dir): failures there are not the
 * policy's. `dirs` are whole directories; `prefixes` are path prefixes of a directory made at
 * run time with a random suffix (Landlock's private temp dir).
 */
export function privateAreasOf(plan: Plan, policy: SandboxPolicy): { dirs: string[]; prefixes: string[] } {
  if (plan.backend === 'bwrap') {
    const dirs = policy.privateTmp ? ['/tmp'] : [];
    if (policy.network === 'off') dirs.push('/run', '/var/run');
    return { dirs, prefixes: [] };
  }
  if (plan.backend === 'landlock') {
    const tmp: unknown = plan.privateTmp;
    if (typeof tmp === 'string') return { dirs: [tmp], prefixes: [] };
    if (typeof tmp === 'object' && tmp !== null) {
      const { parent, prefix } = tmp as { parent?: unknown; prefix?: unknown };
      if (typeof parent === 'string' && typeof prefix === 'string')
        return { dirs: [], prefixes: [`${parent === '/' ? '' : parent}/${prefix}`] };
    }
  }
  return { dirs: [], prefixes: [] };
}

/** Bytes of each end of stderr that are examined (unlimited output can be very large). */
export const STDERR_SCAN_BYTES = 256 * 1024;

export function stderrSample(head: Buffer, tail: Buffer): string {
  const start = head.subarray(0, STDERR_SCAN_BYTES).toString('utf8');
  const end = (tail.length > 0 ? tail : head.subarray(STDERR_SCAN_BYTES)).subarray(-STDERR_SCAN_BYTES);
  return end.length > 0 ? `${start}\n${end.toString('utf8')}` : start;
}

export function denialAnnotations(input: DenialRunInput): Annotation[] {
  const { policy, plan, host } = input;
  if (!policy || plan.backend === 'none') return [];
  try {
    const err = stderrSample(input.stderr.head, input.stderr.tail);
    const outText = input.stdout ? stderrSample(input.stdout.head, input.stdout.tail) : '';
    if (err.length === 0 && outText.length === 0) return [];
    // stdout is data as often as it is messages: there only a line naming a path or an
    // address counts (a path still only when the policy explains the failure).
    const candidates = [
      ...recognizeFailures(err),
      ...recognizeFailures(outText).filter((c) => c.kind === 'fs' || c.address !== undefined),
    ];
    const areas = privateAreasOf(plan, policy);
    const ctx: DenialContext = {
      policy,
      home: host.home,
      networkFromFlag: input.networkFromFlag,
      privateDirs: areas.dirs,
      privatePrefixes: areas.prefixes,
      writeDenialErrno: plan.backend === 'bwrap' ? 'EROFS' : undefined,
      kindOf: (p) => host.kind(p),
      realpath: (p) => host.realpath(p),
      runsLater: [
        ...(host.stateDirs ?? []),
        ...(host.ownCode ?? []).map((o) => o.path),
        ...(host.node ? [host.node.executable] : []),
        ...(plan.env['PATH'] ?? '')
          .split(':')
          .filter((d) => d.startsWith('/'))
          .map((d) => host.realpath(d)),
      ],
      privateTmp: plan.backend === 'bwrap' && policy.privateTmp ? '/tmp' : undefined,
    };
    const max = input.maxDenials ?? DEFAULT_MAX_DENIALS;
    const report = explainDenials(candidates, ctx, max);
    const knownPaths = new Set(
      (input.known ?? []).filter((a) => a.kind === 'denial' && a.path !== undefined).map((a) => a.path),
    );
    const out: Annotation[] = report.denials.filter((d) => d.path === undefined || !knownPaths.has(d.path));
    if (report.omitted > 0)
      out.push({
        kind: 'note',
        message: `${report.omitted} more denial${report.omitted === 1 ? '' : 's'} not listed (limit ${max})`,
      });
    return out;
  } catch {
    return [];
  }
}
