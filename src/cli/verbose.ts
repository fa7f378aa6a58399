// What -v/--verbose prints before the run, on stderr in cordon's voice: the resolved policy
// (profile, network, private /tmp, every rule with its source), the backend chosen and why the
// others were not, and the names of the environment variables dropped. Pure text.

import { describeLimits } from '../limits/describe.ts';
import { describeSource } from '../policy/types.ts';
import type { PreparedRun } from '../prepare.ts';

export function renderVerboseHeader(prepared: PreparedRun): string[] {
  const { policy, choice, env } = prepared;
  const lines: string[] = [];
  if (policy) {
    lines.push(
      `policy: profile ${policy.profile}, network ${policy.allowNet ? `allowlist (${policy.allowNet.join(', ')}) through cordon's proxy` : policy.network}, private /tmp ${policy.privateTmp ? 'yes' : 'no'} (deepest path wins)`,
    );
    for (const r of policy.rules)
      lines.push(`  ${r.access.padEnd(5)} ${r.path}  ← ${describeSource(r.source)}`);
  } else {
    lines.push('policy: none (--backend none runs the command without a sandbox)');
  }
  const chosen = choice.verdicts.find((v) => v.backend === choice.backend);
  lines.push(`backend: ${choice.backend}${chosen ? ` — ${chosen.reason}` : ''}`);
  for (const v of choice.verdicts)
    if (v.backend !== choice.backend) lines.push(`  not ${v.backend}: ${v.reason}`);
  for (const ne of prepared.plan.notEnforced)
    lines.push(`  not enforced: ${ne.access} ${ne.path} (${ne.reason})`);
  if (prepared.plan.limits) lines.push(...describeLimits(prepared.plan.limits));
  lines.push(`environment dropped: ${env.dropped.length > 0 ? env.dropped.join(' ') : '(none)'}`);
  return lines.map((l) => `cordon: ${l}\n`);
}
