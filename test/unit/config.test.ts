// Defaults a user sets once: precedence flag > CORDON_* variable > config file > default, every
// bad value named with where it came from, `backend: none` never accepted from a default, and
// a profile path in the file taken relative to the file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyDefaults, configFile, readConfigFile } from '../../src/cli/config.ts';
import { isCordonError } from '../../src/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'cordon-config-'));
function file(text: string): string {
  const f = join(mkdtempSync(join(dir, 'c-')), 'config.yaml');
  writeFileSync(f, text);
  return f;
}
function refusal(f: () => unknown): { code: string; message: string } | undefined {
  try {
    f();
  } catch (error) {
    if (isCordonError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

describe('where the config file is', () => {
  it('XDG_CONFIG_HOME when absolute, else ~/.config', () => {
    expect(configFile({ XDG_CONFIG_HOME: '/x/cfg' }, 'linux')).toBe('/x/cfg/cordon/config.yaml');
    expect(configFile({ XDG_CONFIG_HOME: 'relative' }, 'linux')).toMatch(/\/\.config\/cordon\/config\.yaml$/);
  });
});

describe('precedence', () => {
  it('flag, then environment, then file, then default — and each says where it came from', () => {
    const f = file('timeout: 10m\nmax-output: 1MiB\nsignal: INT\nprofile: ./mine.yaml\n');
    const d = applyDefaults({ timeout: '5s' }, { CORDON_MAX_OUTPUT: '2MiB' }, f);
    expect(d.flags).toMatchObject({
      timeout: '5s',
      maxOutput: '2MiB',
      signal: 'INT',
      profile: join(f, '..', 'mine.yaml'),
    });
    expect(d.settings).toEqual([
      { name: 'profile', value: join(f, '..', 'mine.yaml'), source: `config file ${f}` },
      { name: 'backend', value: null, source: 'default' },
      { name: 'timeout', value: '5s', source: 'flag --timeout' },
      { name: 'kill-after', value: null, source: 'default' },
      { name: 'signal', value: 'INT', source: `config file ${f}` },
      { name: 'max-output', value: '2MiB', source: 'environment CORDON_MAX_OUTPUT' },
    ]);
  });

  it('no file and no variables: nothing changes', () => {
    const d = applyDefaults({ read: ['x'] }, {}, join(dir, 'absent', 'config.yaml'));
    expect(d.flags).toEqual({ read: ['x'] });
    expect(d.settings.every((s) => s.source === 'default')).toBe(true);
  });

  it('a YAML number is a string value (timeout: 90 = 90 seconds)', () => {
    expect(readConfigFile(file('timeout: 90\n'))).toEqual({ timeout: '90' });
  });
});

describe('bad defaults are refused with the value, the source and the fix', () => {
  it.each([
    [
      { CORDON_BACKEND: 'none' },
      '',
      'environment variable CORDON_BACKEND sets backend none, which would run every command without a sandbox',
    ],
    [{}, 'backend: none\n', 'sets backend none, which would run every command without a sandbox'],
    [
      { CORDON_TIMEOUT: 'soon' },
      '',
      "environment variable CORDON_TIMEOUT: invalid duration for --timeout: 'soon'",
    ],
    [
      { CORDON_SIGNAL: 'STOP' },
      '',
      "environment variable CORDON_SIGNAL: unknown signal for --signal: 'STOP'",
    ],
    [{}, 'max-output: lots\n', "(max-output): invalid size for --max-output: 'lots'"],
    [
      {},
      'timeot: 10m\n',
      "unknown key 'timeot' (did you mean 'timeout'?) — allowed keys: profile, backend, timeout, kill-after, signal, max-output",
    ],
    [{}, 'net: true\n', "unknown key 'net' — allowed keys"],
    [{}, '- a\n', 'must be a mapping of settings'],
    [{}, 'timeout: [\n', 'not valid YAML at line 2, column 1'],
  ])('%j %j', (env, text, message) => {
    const r = refusal(() => applyDefaults({}, env, text ? file(text) : join(dir, 'none.yaml')));
    expect(r?.message).toContain(message);
    expect(r?.code).toMatch(/^bad-/);
    expect(r?.message).not.toContain('\n');
  });

  it('a flag still wins over a bad variable? No: the variable is only checked when it is used', () => {
    expect(
      refusal(() => applyDefaults({ backend: 'bwrap' }, { CORDON_BACKEND: 'none' }, join(dir, 'none.yaml'))),
    ).toBeUndefined();
  });
});

describe('--backend none on the command line', () => {
  it('a default profile is not used (it would be refused with --backend none)', () => {
    const d = applyDefaults({ backend: 'none' }, { CORDON_PROFILE: 'strict' }, join(dir, 'none.yaml'));
    expect(d.flags.profile).toBeUndefined();
    expect(d.settings[0]).toEqual({ name: 'profile', value: null, source: 'not used: --backend none' });
  });
});
