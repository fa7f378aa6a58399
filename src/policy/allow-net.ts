// --allow-net / the profile's allowNet → the policy's allowlist ("proxy mode"). Pure.
// The flag's entries add to the profile's. `--net` with an allowlist is refused: --net means
// every host, an allowlist means only these. A profile's `network: on` is narrowed by it.
import { CordonError } from '../errors.ts';
import { parseAllowNetList } from '../net/allowlist.ts';
import type { SandboxPolicy } from './types.ts';

export function withAllowNet(
  policy: SandboxPolicy,
  fromProfile: readonly string[],
  fromFlags: readonly string[],
  networkOption: boolean | undefined,
): SandboxPolicy {
  if (fromFlags.length === 0 && fromProfile.length === 0) return policy;
  if (networkOption === true)
    throw new CordonError(
      'bad-flag',
      `--net allows every host and --allow-net only ${[...fromProfile, ...fromFlags].join(', ')} — drop one of the two`,
    );
  const entries = parseAllowNetList([...fromProfile, ...fromFlags]);
  return { ...policy, network: 'off', allowNet: entries.map((e) => e.text) };
}
