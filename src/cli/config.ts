// Defaults a user sets once: a config file in the XDG config dir and CORDON_* environment
// variables. Precedence: a flag, then the environment, then the file, then cordon's default.
//   $XDG_CONFIG_HOME/cordon/config.yaml (else ~/.config/cordon/config.yaml; %APPDATA% on Windows)
// The config dir is one of cordon's state dirs (host/probe.ts creates it, 0700): read-only
// inside every writable root, so a sandboxed command cannot rewrite the next run's defaults.
// Only settings that cannot open the sandbox are accepted here: profile, backend (not none),
// timeout, kill-after, signal, max-output. A per-project file is not read at all: the
// workspace is what the sandboxed command writes (README "Defaults").
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CordonError, isCordonError } from '../errors.ts';
import { configDir } from '../host/config-dir.ts';
import { parseDuration, parseSize } from '../options/parse-units.ts';
import { syntaxMessage } from '../profile/syntax-error.ts';
import { parseYamlText } from '../profile/yaml.ts';
import type { FlagName, RawFlags } from './flag-table.ts';
import { parseBackend, parseSignal } from './flags.ts';

export { configDir };

type Configurable = 'profile' | 'backend' | 'timeout' | 'killAfter' | 'signal' | 'maxOutput';

/** config-file key → flag, and the environment variable of each. */
export const SETTINGS: readonly { key: string; flag: Configurable; env: string }[] = [
  { key: 'profile', flag: 'profile', env: 'CORDON_PROFILE' },
  { key: 'backend', flag: 'backend', env: 'CORDON_BACKEND' },
  { key: 'timeout', flag: 'timeout', env: 'CORDON_TIMEOUT' },
  { key: 'kill-after', flag: 'killAfter', env: 'CORDON_KILL_AFTER' },
  { key: 'signal', flag: 'signal', env: 'CORDON_SIGNAL' },
  { key: 'max-output', flag: 'maxOutput', env: 'CORDON_MAX_OUTPUT' },
];

const FLAG_SPELLING: Record<Configurable, string> = {
  profile: '--profile',
  backend: '--backend',
  timeout: '--timeout',
  killAfter: '--kill-after',
  signal: '--signal',
  maxOutput: '--max-output',
};

/** Where one setting came from, for explain. */
export interface Setting {
  readonly name: string;
  readonly value: string | null;
  readonly source: string;
}

export function configFile(
  env: Readonly<Record<string, string | undefined>>,
  platform = process.platform,
): string {
  return join(configDir(env, platform), 'config.yaml');
}

function closest(word: string, options: readonly string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0]!;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const cur = d[j]!;
        d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = cur;
      }
    }
    return d[b.length]!;
  };
  const best = options.map((o) => [o, distance(word, o)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= 3 ? best[0] : undefined;
}

function ownedByMe(dir: string): boolean {
  const me = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (me === undefined) return true;
  try {
    return statSync(dir).uid === me;
  } catch {
    return false;
  }
}

/** The config file's settings (raw strings), or {} when there is none (or it is another user's). */
export function readConfigFile(file: string): Partial<Record<Configurable, string>> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return {};
    // Another user's config (HOME pointing at a home that is not ours): not this user's defaults.
    if (code === 'EACCES' && !ownedByMe(dirname(file))) return {};
    throw new CordonError(
      'bad-config',
      `cannot read config file '${file}': ${(error as NodeJS.ErrnoException).code ?? 'error'} — fix its permissions or remove it`,
    );
  }
  let data: unknown;
  try {
    data = parseYamlText(text);
  } catch (error) {
    throw new CordonError('bad-config', `invalid config file ${file}: ${syntaxMessage(error, text, false)}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new CordonError(
      'bad-config',
      `invalid config file ${file}: must be a mapping of settings, e.g. timeout: 10m — allowed keys: ${SETTINGS.map((s) => s.key).join(', ')}`,
    );
  const out: Partial<Record<Configurable, string>> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const setting = SETTINGS.find((s) => s.key === key);
    if (!setting) {
      const near = closest(
        key,
        SETTINGS.map((s) => s.key),
      );
      throw new CordonError(
        'bad-config',
        `invalid config file ${file}: unknown key '${key}'${near ? ` (did you mean '${near}'?)` : ''} — allowed keys: ${SETTINGS.map((s) => s.key).join(', ')}`,
      );
    }
    if (typeof value !== 'string' && typeof value !== 'number')
      throw new CordonError(
        'bad-config',
        `invalid config file ${file}: ${key} must be a string or a number, got ${JSON.stringify(value)}`,
      );
    out[setting.flag] = String(value);
  }
  return out;
}

/** Checks one value as its flag would, naming where it came from; refuses `backend: none`. */
function checkValue(flag: Configurable, value: string, where: string): void {
  if (flag === 'backend' && value === 'none')
    throw new CordonError(
      'bad-config',
      `${where} sets backend none, which would run every command without a sandbox — remove it, and pass --backend none on the command line for the one run that needs it`,
    );
  try {
    if (flag === 'backend') parseBackend(value);
    else if (flag === 'signal') parseSignal(value);
    else if (flag === 'timeout' || flag === 'killAfter') parseDuration(value, FLAG_SPELLING[flag], true);
    else if (flag === 'maxOutput') parseSize(value, FLAG_SPELLING[flag]);
    else if (value.length === 0)
      throw new CordonError('bad-config', 'empty profile name — give a built-in name or a file');
  } catch (error) {
    if (isCordonError(error)) throw new CordonError(error.code, `${where}: ${error.message}`);
    throw error;
  }
}

export interface Defaulted {
  readonly flags: RawFlags;
  readonly settings: readonly Setting[];
}

/**
 * The flags with every unset configurable one taken from the environment or the config file.
 * A profile path in the config file is relative to the file's directory.
 */
export function applyDefaults(
  flags: RawFlags,
  env: Readonly<Record<string, string | undefined>>,
  file: string = configFile(env),
  read: (file: string) => Partial<Record<Configurable, string>> = readConfigFile,
): Defaulted {
  const fromFile = read(file);
  const out: RawFlags = { ...flags };
  const settings: Setting[] = [];
  for (const s of SETTINGS) {
    const given = flags[s.flag as FlagName] as string | undefined;
    const fromEnv = env[s.env];
    let value: string | undefined;
    let source: string;
    if (given !== undefined) {
      value = given;
      source = `flag ${FLAG_SPELLING[s.flag]}`;
    } else if (s.flag === 'profile' && flags.backend === 'none') {
      // --backend none has no policy: a default profile is not used (nor refused with it).
      settings.push({ name: s.key, value: null, source: 'not used: --backend none' });
      continue;
    } else if (fromEnv !== undefined && fromEnv !== '') {
      checkValue(s.flag, fromEnv, `environment variable ${s.env}`);
      value = fromEnv;
      source = `environment ${s.env}`;
    } else if (fromFile[s.flag] !== undefined) {
      value = fromFile[s.flag]!;
      checkValue(s.flag, value, `config file ${file} (${s.key})`);
      if (s.flag === 'profile' && (value.includes('/') || /\.(ya?ml|json)$/i.test(value)))
        value = resolve(join(file, '..'), value);
      source = `config file ${file}`;
    } else {
      settings.push({ name: s.key, value: null, source: 'default' });
      continue;
    }
    (out as Record<string, unknown>)[s.flag] = value;
    settings.push({ name: s.key, value, source });
  }
  return { flags: out, settings };
}
