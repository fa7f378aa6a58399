// explain's and --verbose's line about the network when an allowlist is set. Pure.
import type { Plan } from '../plan/types.ts';
import type { SandboxPolicy } from '../policy/types.ts';

export function describeNetwork(policy: SandboxPolicy, plan: Plan): string {
  if (!policy.allowNet) return `network: ${policy.network}`;
  const how =
    plan.backend === 'bwrap'
      ? "enforced: the command's own empty network namespace; the unix-socket supervisor carries a TCP connect() to 127.0.0.1:PORT (PORT: the proxy's) to cordon's proxy on the host, which checks every request and needs the run's secret"
      : plan.backend === 'seatbelt'
        ? "enforced: Seatbelt allows outbound only to localhost at the proxy's port (set at launch); the proxy checks every request and needs the run's secret (loopback is shared with every local process)"
        : 'not enforced by this backend';
  return `network: allowlist through cordon's proxy — ${policy.allowNet.join(', ')} (${how})`;
}
