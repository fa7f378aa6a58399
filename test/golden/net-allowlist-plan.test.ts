// Golden plans for the network allowlist (issue 21) on synthetic hosts: proxy mode on
// bubblewrap (network namespace kept, the supervisor told to carry connections to the proxy),
// and every refusal (125) with its message: no supervisor, Landlock (also with --best-effort),
// Windows; Seatbelt's profile allows outbound only to the proxy's port (filled in at launch), --net with --allow-net, bad entries, --backend none.
import { describe, expect, it } from 'vitest';
import { isCordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { describeNetwork } from '../../src/net/describe.ts';
import { proxyEnv } from '../../src/net/run-proxy.ts';
import type { RunOptions } from '../../src/options/types.ts';
import { withProxyPort } from '../../src/plan/macos/seatbelt-proxy.ts';
import type { Platform } from '../../src/policy/types.ts';
import { preparePlan } from '../../src/prepare.ts';

interface Case {
  name: string;
  platform: Platform;
  options: RunOptions;
  noSupervisor?: boolean;
}

const NPM: RunOptions = { allowNet: ['registry.npmjs.org', '*.github.com:443', 'localhost:8080'] };
const CASES: Case[] = [
  { name: 'linux bwrap: proxy mode', platform: 'linux', options: NPM },
  { name: 'linux bwrap, strict profile', platform: 'linux', options: { ...NPM, profile: 'strict' } },
  {
    name: 'linux bwrap without the supervisor: refused',
    platform: 'linux',
    options: NPM,
    noSupervisor: true,
  },
  { name: 'linux landlock: refused', platform: 'linux', options: { ...NPM, backend: 'landlock' } },
  {
    name: 'linux landlock --best-effort: still refused',
    platform: 'linux',
    options: { ...NPM, backend: 'landlock', bestEffort: true },
  },
  { name: 'linux --net with --allow-net: refused', platform: 'linux', options: { ...NPM, network: true } },
  {
    name: 'linux --no-net with --allow-net: proxy mode',
    platform: 'linux',
    options: { ...NPM, network: false },
  },
  { name: 'linux bad entry: refused', platform: 'linux', options: { allowNet: ['https://x.org/'] } },
  { name: 'linux --backend none: refused', platform: 'linux', options: { ...NPM, backend: 'none' } },
  { name: 'darwin seatbelt: outbound only to the proxy port', platform: 'darwin', options: NPM },
  { name: 'win32: refused', platform: 'win32', options: NPM },
];

function render(c: Case): string {
  const base = syntheticHost(c.platform);
  const host = c.noSupervisor ? { ...base, seccompNotify: false } : base;
  const lines = [`## ${c.name}`, `options: ${JSON.stringify(c.options)}`];
  try {
    const { plan, policy } = preparePlan(['npm', 'install'], c.options, {
      probe: () => host,
      platform: c.platform,
      cwdOverride: base.cwd,
    });
    lines.push(`backend: ${plan.backend}`, `policy network: ${policy?.network}`);
    lines.push(`policy allowNet: ${JSON.stringify(policy?.allowNet ?? null)}`);
    if (policy) lines.push(describeNetwork(policy, plan));
    if (plan.backend === 'bwrap') {
      lines.push(`unshare-net: ${plan.args.includes('--unshare-net')}`);
      lines.push(`supervisor: ${JSON.stringify(plan.unixSupervisor ?? null)}`);
    }
    if (plan.backend === 'seatbelt') {
      const outbound = (profile: string) =>
        profile.split('\n').filter((l) => /network-outbound|remote ip/.test(l));
      lines.push(`plan proxy: ${JSON.stringify(plan.proxy ?? null)}`);
      lines.push('outbound rules in the plan:', ...outbound(plan.profile).map((l) => `  ${l}`));
      const env = proxyEnv('http://cordon:SECRET@127.0.0.1:40123');
      const launched = withProxyPort(plan, 40123, env);
      lines.push(
        'outbound rules at launch (port 40123):',
        ...outbound(launched.profile).map((l) => `  ${l}`),
      );
      lines.push(
        `-p argument replaced: ${launched.args[launched.args.indexOf('-p') + 1] === launched.profile}`,
      );
      lines.push(
        `env at launch: ${Object.keys(env)
          .map((k) => `${k}=${launched.env[k]}`)
          .join(' ')}`,
      );
    }
  } catch (error) {
    if (!isCordonError(error)) throw error;
    lines.push(`refused (125, ${error.code}): ${error.message}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('network allowlist plans', () => {
  it('every case, one golden file', async () => {
    await expect(CASES.map(render).join('\n')).toMatchFileSnapshot('./__snapshots__/net-allowlist-plans.txt');
  });
});
