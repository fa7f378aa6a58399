// One entry from (policy, command, env, HostInfo, backend) to a Plan. Pure.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import { buildBwrapPlan } from './linux/bwrap.ts';
import type { BackendName, Plan } from './types.ts';
import { buildWindowsPlan } from './windows/restricted-token.ts';

export interface PlanInput {
  readonly backend: BackendName;
  readonly policy: SandboxPolicy | undefined;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly host: HostInfo;
  readonly bestEffort: boolean;
}

export function buildPlan(input: PlanInput): Plan {
  const { backend, policy, command, env, host } = input;
  if (command.length === 0)
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');
  if (backend === 'none') {
    return {
      backend: 'none',
      executable: command[0]!,
      args: command.slice(1),
      env: { ...env },
      cwd: input.cwd,
      notEnforced: [],
    };
  }
  if (!policy) throw new CordonError('internal', `backend ${backend} needs a policy`);
  switch (backend) {
    case 'bwrap':
      return buildBwrapPlan({ policy, command, env, host });
    case 'windows':
      return buildWindowsPlan({ policy, command, env, host, bestEffort: input.bestEffort });
    default:
      throw new CordonError(
        'backend-unavailable',
        `backend '${backend}' is not available in this build of cordon — use --backend bwrap or none`,
      );
  }
}
