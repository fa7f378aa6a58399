// Parses profile text (YAML or JSON) into a ProfileSpec. Pure. Every problem is a CordonError
// naming the file, the key path (e.g. filesystem[3].access) and what is allowed. Unknown keys
// are errors: a typo must never silently weaken a sandbox.
import { CordonError } from '../errors.ts';
import { parseAllowNet } from '../net/allowlist.ts';
import type { Access } from '../policy/types.ts';
import { parseProfileLimits } from './limits.ts';
import { syntaxMessage } from './syntax-error.ts';
import {
  CACHE_MODES,
  type CacheMode,
  type ProfileEnvSpec,
  type ProfileRuleSpec,
  type ProfileSpec,
} from './types.ts';

const TOP_KEYS = [
  'extends',
  'network',
  'localBinding',
  'allowNet',
  'privateTmp',
  'cache',
  'limits',
  'filesystem',
  'env',
] as const;
const RULE_KEYS = ['path', 'access'] as const;
const ENV_KEYS = ['keep', 'set', 'drop'] as const;
const ACCESS_VALUES: readonly Access[] = ['read', 'write', 'none'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fail(file: string, keyPath: string, problem: string): never {
  const where = keyPath ? `${file}: ${keyPath}` : file;
  throw new CordonError('bad-profile', `invalid profile ${where}: ${problem}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(
  file: string,
  keyPath: string,
  value: Record<string, unknown>,
  allowed: readonly string[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(
        file,
        keyPath ? `${keyPath}.${key}` : key,
        `unknown key '${key}' — allowed keys: ${allowed.join(', ')}`,
      );
    }
  }
}

function parseNameList(file: string, keyPath: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(file, keyPath, 'must be a list of environment variable names');
  return value.map((item, i) => {
    if (typeof item !== 'string' || !ENV_NAME.test(item)) {
      fail(
        file,
        `${keyPath}[${i}]`,
        `'${String(item)}' is not an environment variable name (letters, digits, _)`,
      );
    }
    return item;
  });
}

function parseEnv(file: string, value: unknown): ProfileEnvSpec {
  if (value === undefined || value === null) return { keep: [], set: {}, drop: [] };
  if (!isPlainObject(value)) fail(file, 'env', 'must be a mapping with keep, set and drop');
  checkKeys(file, 'env', value, ENV_KEYS);
  const set: Record<string, string> = {};
  if (value['set'] !== undefined && value['set'] !== null) {
    if (!isPlainObject(value['set'])) fail(file, 'env.set', 'must be a mapping of NAME: value');
    for (const [name, v] of Object.entries(value['set'])) {
      if (!ENV_NAME.test(name))
        fail(file, `env.set.${name}`, `'${name}' is not an environment variable name`);
      if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') {
        fail(file, `env.set.${name}`, 'the value must be a string');
      }
      set[name] = String(v);
    }
  }
  return {
    keep: parseNameList(file, 'env.keep', value['keep']),
    set,
    drop: parseNameList(file, 'env.drop', value['drop']),
  };
}

function parseRule(file: string, profile: string, index: number, value: unknown): ProfileRuleSpec {
  const keyPath = `filesystem[${index}]`;
  if (!isPlainObject(value)) fail(file, keyPath, 'must be a mapping { path: ..., access: read|write|none }');
  checkKeys(file, keyPath, value, RULE_KEYS);
  const path = value['path'];
  const access = value['access'];
  if (typeof path !== 'string' || path.length === 0) {
    fail(
      file,
      `${keyPath}.path`,
      'must be a non-empty string (an absolute or relative path, ~, {cwd}, {tmp}, {system}, {node} or /)',
    );
  }
  if (path.includes('\0')) fail(file, `${keyPath}.path`, 'must not contain a NUL byte');
  if (typeof access !== 'string' || !ACCESS_VALUES.includes(access as Access)) {
    fail(file, `${keyPath}.access`, `'${String(access)}' is not an access — allowed: read, write, none`);
  }
  return { path, access: access as Access, index, profile };
}

/**
 * Profile text → ProfileSpec. `parseYaml` is passed in (load.ts loads the yaml package only
 * when a YAML file is read: the built-in profiles are embedded already parsed).
 */
export function parseProfile(
  text: string,
  file: string,
  name: string,
  parseYaml: (text: string) => unknown,
): ProfileSpec {
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    fail(file, '', syntaxMessage(error, text, file.endsWith('.json')));
  }
  return parseProfileData(data, file, name);
}

/** Already-parsed profile data (a built-in profile, or the result of parseProfile's parse). */
export function parseProfileData(data: unknown, file: string, name: string): ProfileSpec {
  if (!isPlainObject(data))
    fail(
      file,
      '',
      'the top level must be a mapping with extends, network, localBinding, allowNet, privateTmp, cache, limits, filesystem, env',
    );
  checkKeys(file, '', data, TOP_KEYS);
  const ext = data['extends'];
  if (ext !== undefined && (typeof ext !== 'string' || ext.length === 0)) {
    fail(file, 'extends', 'must be a built-in profile name or a path to a profile file');
  }
  let network = data['network'];
  if (network === true) network = 'on';
  if (network === false) network = 'off';
  if (network !== undefined && network !== 'on' && network !== 'off') {
    fail(file, 'network', `'${String(network)}' is not allowed — use on or off`);
  }
  const localBinding = data['localBinding'];
  if (localBinding !== undefined && typeof localBinding !== 'boolean')
    fail(file, 'localBinding', 'must be true or false');
  const allowNet = data['allowNet'];
  if (allowNet !== undefined) {
    if (!Array.isArray(allowNet) || !allowNet.every((h) => typeof h === 'string'))
      fail(file, 'allowNet', 'must be a list of HOST[:PORT] strings, e.g. [registry.npmjs.org]');
    for (const [i, h] of (allowNet as string[]).entries()) {
      try {
        parseAllowNet(h);
      } catch (error) {
        fail(file, `allowNet[${i}]`, (error as Error).message.replace(/^--allow-net /, ''));
      }
    }
    if (allowNet.length > 0 && network === 'on')
      fail(file, 'allowNet', 'network: on already allows every host — drop one of the two');
  }
  const privateTmp = data['privateTmp'];
  if (privateTmp !== undefined && typeof privateTmp !== 'boolean')
    fail(file, 'privateTmp', 'must be true or false');
  let cache = data['cache'];
  if (cache === false) cache = 'off';
  if (cache !== undefined && !CACHE_MODES.includes(cache as CacheMode))
    fail(file, 'cache', `'${String(cache)}' is not allowed — use ${CACHE_MODES.join(', ')}`);
  const fsValue = data['filesystem'];
  if (fsValue !== undefined && fsValue !== null && !Array.isArray(fsValue)) {
    fail(file, 'filesystem', 'must be a list of { path, access } rules');
  }
  const filesystem = ((fsValue as unknown[] | null | undefined) ?? []).map((rule, i) =>
    parseRule(file, name, i, rule),
  );
  return {
    name,
    extends: ext as string | undefined,
    network: network as 'on' | 'off' | undefined,
    localBinding: localBinding as boolean | undefined,
    allowNet: allowNet as string[] | undefined,
    privateTmp: privateTmp as boolean | undefined,
    cache: cache as CacheMode | undefined,
    limits: parseProfileLimits(file, data['limits']),
    filesystem,
    env: parseEnv(file, data['env']),
  };
}
