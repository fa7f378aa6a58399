// Loads a profile by built-in name or file path and follows `extends` (built-in names or
// paths relative to the extending file). Reads files; parsing is in parse.ts.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { CordonError } from '../errors.ts';
import { BUILTIN_PROFILES } from './builtin-data.ts';
import { mergeProfiles } from './merge.ts';
import { parseProfile, parseProfileData } from './parse.ts';
import type { MergedProfile, ProfileSpec } from './types.ts';
import { parseYamlText } from './yaml.ts';

export const DEFAULT_PROFILE = 'workspace';
const MAX_EXTENDS_DEPTH = 16;

export function listBuiltinProfiles(): string[] {
  return Object.keys(BUILTIN_PROFILES).sort();
}

function looksLikePath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || /\.(ya?ml|json)$/i.test(ref);
}

function loadOne(
  ref: string,
  baseDir: string,
  from: string | undefined,
): { spec: ProfileSpec; key: string; dir: string } {
  if (!looksLikePath(ref)) {
    const data = BUILTIN_PROFILES[ref];
    if (data === undefined) {
      const where = from ? ` (extends in ${from})` : '';
      throw new CordonError(
        'profile-not-found',
        `unknown profile '${ref}'${where} — built-in profiles: ${listBuiltinProfiles().join(', ')}; or give a path to a .yaml/.json file`,
      );
    }
    return { spec: parseProfileData(data, `profiles/${ref}.yaml`, ref), key: `builtin:${ref}`, dir: baseDir };
  }
  const file = isAbsolute(ref) ? ref : resolve(baseDir, ref);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const where = from ? ` (extends in ${from})` : '';
    throw new CordonError(
      'profile-not-found',
      `cannot read profile file '${file}'${where}: ${code} — check the path`,
    );
  }
  return { spec: parseProfile(text, file, file, parseYamlText), key: `file:${file}`, dir: dirname(file) };
}

export function loadProfile(ref: string, cwd: string): MergedProfile {
  const chain: ProfileSpec[] = [];
  const seen = new Set<string>();
  let current = loadOne(ref, cwd, undefined);
  for (;;) {
    if (seen.has(current.key)) {
      throw new CordonError(
        'bad-profile',
        `invalid profile ${current.spec.name}: extends forms a cycle — remove one extends`,
      );
    }
    seen.add(current.key);
    chain.unshift(current.spec);
    if (chain.length > MAX_EXTENDS_DEPTH) {
      throw new CordonError(
        'bad-profile',
        `invalid profile ${ref}: extends chain deeper than ${MAX_EXTENDS_DEPTH}`,
      );
    }
    const parent = current.spec.extends;
    if (parent === undefined) break;
    current = loadOne(parent, current.dir, current.spec.name);
  }
  return mergeProfiles(chain);
}
