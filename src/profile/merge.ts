// Applies an extends chain: parent first, child on top. Filesystem rules accumulate (the
// resolver's precedence decides between them) except that a child's rule replaces an
// inherited rule with the same path text; scalars are overridden, env lists union.
import { LIMIT_NAMES } from '../limits/types.ts';
import type { CacheMode, MergedProfile, ProfileSpec } from './types.ts';

export function mergeProfiles(chain: readonly ProfileSpec[]): MergedProfile {
  let network: 'on' | 'off' = 'off';
  let privateTmp = false;
  let localBinding = false;
  const allowNet: string[] = [];
  let cache: CacheMode = 'off';
  const filesystem: ProfileSpec['filesystem'][number][] = [];
  const keep = new Set<string>();
  const drop = new Set<string>();
  const set: Record<string, string> = {};
  const limits: { -readonly [K in keyof MergedProfile['limits']]: MergedProfile['limits'][K] } = {};
  for (const spec of chain) {
    for (const name of LIMIT_NAMES) {
      const value = spec.limits?.[name];
      if (value !== undefined) limits[name] = { value, profile: spec.name };
    }
    if (spec.network !== undefined) network = spec.network;
    if (spec.privateTmp !== undefined) privateTmp = spec.privateTmp;
    if (spec.localBinding !== undefined) localBinding = spec.localBinding;
    for (const h of spec.allowNet ?? []) if (!allowNet.includes(h)) allowNet.push(h);
    // A child's rule replaces an inherited rule written with the same path: extends is how a
    // profile narrows its parent (read-only turns workspace's `{cwd}: write` into read), which
    // the tie-break (write beats read on the same path) would otherwise forbid.
    const overridden = new Set(spec.filesystem.map((r) => r.path));
    for (let i = filesystem.length - 1; i >= 0; i--)
      if (overridden.has(filesystem[i]!.path)) filesystem.splice(i, 1);
    if (spec.cache !== undefined) cache = spec.cache;
    filesystem.push(...spec.filesystem);
    for (const name of spec.env.keep) {
      keep.add(name);
      drop.delete(name);
    }
    for (const name of spec.env.drop) {
      drop.add(name);
      keep.delete(name);
    }
    Object.assign(set, spec.env.set);
  }
  const last = chain[chain.length - 1];
  return {
    name: last?.name ?? 'empty',
    chain: chain.map((s) => s.name),
    network,
    localBinding,
    allowNet,
    privateTmp,
    cache,
    limits,
    filesystem,
    env: { keep: [...keep], drop: [...drop], set },
  };
}
