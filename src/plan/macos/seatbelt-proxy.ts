// The Seatbelt plan with the allowlist proxy's port and variables filled in. Pure; the
// launcher calls it right after starting the proxy (src/net/run-proxy.ts).
import type { SeatbeltPlan } from '../types.ts';
import { PROXY_PORT_PLACEHOLDER } from './seatbelt-network.ts';

export function withProxyPort(
  plan: SeatbeltPlan,
  port: number,
  env: Readonly<Record<string, string>>,
): SeatbeltPlan {
  if (!plan.proxy) return plan;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`bad proxy port ${port}`);
  const profile = plan.profile.split(PROXY_PORT_PLACEHOLDER).join(String(port));
  const at = plan.args.indexOf(plan.profile);
  return {
    ...plan,
    profile,
    args: plan.args.map((a, i) => (i === at ? profile : a)),
    env: { ...plan.env, ...env },
  };
}
