// One entry from (policy, command, env, HostInfo, backend) to a Plan. Pure.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import { checkAllowNetBackend } from './allow-net.ts';
import { buildBwrapPlan } from './linux/bwrap.ts';
import { buildLandlockPlan } from './linux/landlock.ts';
import { buildSeatbeltPlan } from './macos/seatbelt.ts';
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
    // No sandbox, but still tied to cordon's life: setpriv sets the parent-death signal.
    const wrapped = host.setpriv ? [host.setpriv, '--pdeathsig', 'KILL', '--', ...command] : [...command];
    return {
      backend: 'none',
      executable: wrapped[0]!,
      args: wrapped.slice(1),
      env: { ...env },
      cwd: input.cwd,
      notEnforced: [],
      parentDeathWrapper: Boolean(host.setpriv),
    };
  }
  if (!policy) throw new CordonError('internal', `backend ${backend} needs a policy`);
  checkAllowNetBackend(backend, policy, input.bestEffort);
  switch (backend) {
    case 'bwrap':
      return buildBwrapPlan({ policy, command, env, host, bestEffort: input.bestEffort });
    case 'landlock':
      return buildLandlockPlan({ policy, command, env, host, bestEffort: input.bestEffort });
    case 'seatbelt':
      return buildSeatbeltPlan({ policy, command, env, host });
    case 'windows':
      return buildWindowsPlan({ policy, command, env, host, bestEffort: input.bestEffort });
    default:
      throw new CordonError(
        'backend-unavailable',
        `backend '${backend}' is not available in this build of cordon — use --backend bwrap or none`,
      );
  }
}
