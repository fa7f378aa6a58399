// The network allowlist at launch (bubblewrap, Seatbelt): starts cordon's proxy (src/net/proxy.ts) in
// this process for the life of the run, gives the command the proxy variables, and turns the
// proxy's refusals into denial annotations and the result's `network` summary.

import type { Annotation, NetworkSummary } from '../result/types.ts';
import { parseAllowNetList } from './allowlist.ts';
import { MAX_REFUSED, type RunningProxy, startProxy } from './proxy.ts';

/** Loopback inside the sandbox's own namespace stays direct (the command's own servers). */
/** Refused hosts shown as denials (as many as recognized denials: DEFAULT_MAX_DENIALS). */
const MAX_ANNOTATIONS = 20;

export const NO_PROXY = 'localhost,127.0.0.1,::1';

export function proxyEnv(url: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY']) {
    env[name] = url;
    env[name.toLowerCase()] = url;
  }
  env['NO_PROXY'] = NO_PROXY;
  env['no_proxy'] = NO_PROXY;
  // Node >= 24.5 / 22.21: fetch and http(s) follow the variables only when this is set.
  env['NODE_USE_ENV_PROXY'] = '1';
  return env;
}

export interface RunProxy {
  readonly port: number;
  readonly env: Record<string, string>;
  /** Stops the proxy (every open tunnel is cut) and reports what it refused. */
  finish(): Promise<{ annotations: Annotation[]; network: NetworkSummary }>;
}

export async function startRunProxy(allow: readonly string[]): Promise<RunProxy> {
  const proxy: RunningProxy = await startProxy({ allow: parseAllowNetList(allow) });
  return {
    port: proxy.port,
    env: proxyEnv(proxy.url),
    finish: async () => {
      await proxy.close();
      const seen = new Set<string>();
      const annotations: Annotation[] = [];
      for (const r of proxy.refused) {
        const key = `${r.host}:${r.port}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (annotations.length === MAX_ANNOTATIONS) continue;
        annotations.push({
          kind: 'denial',
          operation: 'network-connect',
          path: key,
          message: `network: connection to ${key} refused: ${r.reason} (allow with ${r.fix})`,
          fix: r.fix,
          certainty: 'certain',
        });
      }
      if (seen.size > MAX_ANNOTATIONS)
        annotations.push({
          kind: 'note',
          message: `network: ${seen.size - MAX_ANNOTATIONS} more refused hosts (--json has up to ${MAX_REFUSED} refused connections)`,
        });
      return { annotations, network: { allowed: [...allow], refused: proxy.refused.map((r) => ({ ...r })) } };
    },
  };
}
