// The denial step of a run: builds the context from the prepared run (policy, host facts, the
// plan's private directories) and returns the annotations. Any failure here yields none, so a
// recognizer bug can never change the command's output or exit status.
import type { HostInfo } from '../host/types.ts';
import type { Plan } from '../plan/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { Annotation } from '../result/types.ts';
import { DEFAULT_MAX_DENIALS, type DenialContext, findDenials } from './explain.ts';

export interface DenialRunInput {
  readonly policy: SandboxPolicy | undefined;
  readonly plan: Plan;
  readonly host: HostInfo;
  readonly networkFromFlag: boolean;
  /** The command's captured stderr (head and tail as captured). */
  readonly stderrText: string;
  readonly maxDenials?: number | undefined;
}

/** Directories the backend makes privately writable: failures there are not the policy's. */
export function privateDirsOf(plan: Plan, policy: SandboxPolicy): string[] {
  if (plan.backend === 'bwrap') {
    const dirs = policy.privateTmp ? ['/tmp'] : [];
    if (policy.network === 'off') dirs.push('/run', '/var/run');
    return dirs;
  }
  if (plan.backend === 'landlock' && plan.privateTmp !== undefined) return [plan.privateTmp];
  return [];
}

export function denialAnnotations(input: DenialRunInput): Annotation[] {
  const { policy, plan, host } = input;
  if (!policy || plan.backend === 'none' || input.stderrText.length === 0) return [];
  try {
    const ctx: DenialContext = {
      policy,
      home: host.home,
      networkFromFlag: input.networkFromFlag,
      privateDirs: privateDirsOf(plan, policy),
      kindOf: (p) => host.kind(p),
      realpath: (p) => host.realpath(p),
    };
    const max = input.maxDenials ?? DEFAULT_MAX_DENIALS;
    const report = findDenials(input.stderrText, ctx, max);
    const out: Annotation[] = [...report.denials];
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
