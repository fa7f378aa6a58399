// Which backend enforces a policy on this host, and why the others were not chosen. Pure.
// Linux: bubblewrap when installed and able to create its namespaces; otherwise Landlock when
// the kernel has it and the policy fits it exactly (or --best-effort); otherwise a refusal
// with one sentence per reason. macOS: Seatbelt. Windows: restricted token.
// `none` is never chosen automatically: only `--backend none` runs a command unconfined.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { BackendName } from './types.ts';

export type BackendRequest = 'auto' | BackendName;

export interface BackendVerdict {
  readonly backend: BackendName;
  readonly usable: boolean;
  readonly reason: string;
}

export interface BackendChoice {
  readonly backend: BackendName;
  readonly verdicts: readonly BackendVerdict[];
}

/** Extra check a backend applies to a policy (Landlock's exactness); returns a reason when it can't. */
export type PolicyFit = (backend: BackendName, policy: SandboxPolicy, host: HostInfo) => string | undefined;

export function judgeBackends(
  host: HostInfo,
  policy: SandboxPolicy | undefined,
  checkFit: PolicyFit,
): BackendVerdict[] {
  const verdicts: BackendVerdict[] = [];
  if (host.platform === 'linux') {
    const bw = host.bwrap;
    if (!bw)
      verdicts.push({
        backend: 'bwrap',
        usable: false,
        reason: 'bubblewrap is not installed (apt-get install bubblewrap)',
      });
    else if (!bw.usable)
      verdicts.push({
        backend: 'bwrap',
        usable: false,
        reason: bw.unusableReason ?? 'bubblewrap is not usable',
      });
    else
      verdicts.push({
        backend: 'bwrap',
        usable: true,
        reason: `bubblewrap${bw.version ? ` ${bw.version}` : ''} at ${bw.path} creates its namespaces`,
      });
    const ll = host.landlock;
    if (!ll)
      verdicts.push({
        backend: 'landlock',
        usable: false,
        reason: bw?.usable ? 'not probed: bubblewrap is usable and preferred' : 'Landlock was not probed',
      });
    else if (ll.abi === 0)
      verdicts.push({
        backend: 'landlock',
        usable: false,
        reason: ll.reason ?? 'the kernel has no Landlock (5.13+ with lsm=landlock)',
      });
    else {
      const misfit = policy ? checkFit('landlock', policy, host) : undefined;
      verdicts.push(
        misfit
          ? { backend: 'landlock', usable: false, reason: misfit }
          : { backend: 'landlock', usable: true, reason: `Landlock ABI ${ll.abi} can enforce this policy` },
      );
    }
  } else if (host.platform === 'darwin') {
    verdicts.push({ backend: 'seatbelt', usable: true, reason: 'macOS Seatbelt via /usr/bin/sandbox-exec' });
  } else if (host.platform === 'win32') {
    verdicts.push({ backend: 'windows', usable: true, reason: 'restricted token with a job object' });
  }
  verdicts.push({
    backend: 'none',
    usable: false,
    reason: 'never chosen automatically: ask for it with --backend none',
  });
  return verdicts;
}

export function chooseBackend(
  request: BackendRequest,
  verdicts: readonly BackendVerdict[],
  host: HostInfo,
): BackendChoice {
  if (request === 'none') return { backend: 'none', verdicts };
  if (request !== 'auto') {
    const verdict = verdicts.find((v) => v.backend === request);
    if (!verdict) {
      throw new CordonError(
        'backend-unavailable',
        `backend '${request}' does not exist on ${host.platform} — use ${verdicts.map((v) => v.backend).join(', ')} or auto`,
      );
    }
    if (!verdict.usable)
      throw new CordonError('backend-unavailable', `backend '${request}' cannot run here: ${verdict.reason}`);
    return { backend: request, verdicts };
  }
  const first = verdicts.find((v) => v.usable && v.backend !== 'none');
  if (!first) {
    const reasons = verdicts.filter((v) => v.backend !== 'none').map((v) => `${v.backend}: ${v.reason}.`);
    throw new CordonError(
      'no-backend',
      `no sandbox backend can enforce this policy here — ${reasons.join(' ')} (nothing was run; --backend none runs without a sandbox)`,
    );
  }
  return { backend: first.backend, verdicts };
}
