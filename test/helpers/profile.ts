// Profile parsing for tests: profile text through the same parser the CLI uses for files.
import { parseProfile } from '../../src/profile/parse.ts';
import type { ProfileSpec } from '../../src/profile/types.ts';
import { parseYamlText } from '../../src/profile/yaml.ts';

export function parseProfileText(text: string, file: string, name: string): ProfileSpec {
  return parseProfile(text, file, name, parseYamlText);
}
