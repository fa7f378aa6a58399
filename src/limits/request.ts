// The limits a run asks for: the profile's `limits:` (each with the profile that set it) with
// the flags / library options on top (0 removes a profile's limit). Pure.
import type { RunOptions } from '../options/types.ts';
import type { MergedProfile } from '../profile/types.ts';
import type { LimitRequest } from './plan.ts';
import { LIMIT_FLAGS, LIMIT_NAMES, type LimitName } from './types.ts';

const OPTION_OF: Readonly<Record<LimitName, 'pids' | 'memoryBytes' | 'cpuTimeMs' | 'fileSizeBytes'>> = {
  pids: 'pids',
  memory: 'memoryBytes',
  cpuTime: 'cpuTimeMs',
  fileSize: 'fileSizeBytes',
};

export function limitRequest(
  profile: MergedProfile['limits'] | undefined,
  options: RunOptions,
  isBuiltin: (profile: string) => boolean,
): LimitRequest {
  const out: { [K in LimitName]?: LimitRequest[K] } = {};
  for (const name of LIMIT_NAMES) {
    const fromOption = options[OPTION_OF[name]];
    const fromProfile = profile?.[name];
    if (fromOption !== undefined)
      out[name] = { value: fromOption, source: LIMIT_FLAGS[name], builtin: false };
    else if (fromProfile)
      out[name] = {
        value: fromProfile.value,
        source: `profile ${fromProfile.profile}`,
        builtin: isBuiltin(fromProfile.profile),
      };
  }
  return out;
}
