// Issue 18's CLI contract, in-process (runCli): completion and the man page come from the one
// flag table; defaults from CORDON_* and the config file show their source in explain; a flag
// on exactly a path the profile denies shows what it overrides; a contradiction is refused.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { flagList, SHELLS } from '../../src/cli/completion.ts';
import { FLAG_TABLE } from '../../src/cli/flag-table.ts';
import { runCli } from '../../src/cli/main.ts';

async function inProcess(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, (fd, text) => (fd === 1 ? out : err).push(text));
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const hasGroff = spawnSync('groff', ['--version'], { stdio: 'ignore' }).status === 0;
const longNames = Object.values(FLAG_TABLE).map((s) => /--[\w-]+/.exec(s.spelling)![0]);

describe('completion and man page from the flag table', () => {
  it.each(SHELLS)('cordon completion %s names every flag of the table', async (shell) => {
    const r = await inProcess(['completion', shell]);
    expect(r.code).toBe(0);
    for (const long of longNames) expect(r.stdout).toContain(shell === 'fish' ? `-l ${long.slice(2)}` : long);
    expect(r.stdout).toContain('--no-net'.slice(shell === 'fish' ? 2 : 0));
  });

  it('the bash script is valid bash and completes --backend values and subcommands', async () => {
    const r = await inProcess(['completion', 'bash']);
    const check = spawnSync('bash', ['-n'], { input: r.stdout });
    expect(check.status).toBe(0);
    const run = (words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${r.stdout}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _cordon; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      )
        .stdout.split('\n')
        .filter(Boolean);
    expect(run(['cordon', '--backend', 'b'])).toEqual(['bwrap']);
    expect(run(['cordon', 'ex'])).toEqual(['explain']);
    expect(run(['cordon', '--kill'])).toEqual(['--kill-after']);
    expect(run(['cordon', 'completion', 'z'])).toEqual(['zsh']);
  });

  it('cordon man is roff with every flag', async () => {
    const r = await inProcess(['man']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\.\\" Generated/);
    for (const f of flagList()) expect(r.stdout).toContain(`\\fB${f.long.replace(/-/g, '\\-')}\\fR`);
  });

  it.runIf(hasGroff)('groff reads the man page without a warning', async () => {
    const r = await inProcess(['man']);
    const groff = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z'], { input: r.stdout, encoding: 'utf8' });
    expect([groff.status, groff.stderr]).toEqual([0, '']);
  });

  it.each([
    [
      ['completion'],
      'no shell given for cordon completion — use one of bash, zsh, fish, e.g. cordon completion bash',
    ],
    [
      ['completion', 'tcsh'],
      "unknown shell 'tcsh' for cordon completion — use one of bash, zsh, fish, e.g. cordon completion bash",
    ],
    [
      ['completion', 'bash', 'zsh'],
      "cordon completion takes one shell name (got 'bash zsh') — e.g. cordon completion bash",
    ],
    [['man', 'extra'], "cordon man takes no arguments (got 'extra') — run cordon man"],
  ])('%j → 125', async (argv, message) => {
    const r = await inProcess(argv);
    expect([r.code, r.stdout, r.stderr]).toEqual([125, '', `cordon: ${message}\n`]);
  });
});

describe('settings in explain: where each came from', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  });

  it('flag, CORDON_* variable, config file and default, in text and JSON', async () => {
    const xdg = mkdtempSync(join(tmpdir(), 'cordon-xdg-'));
    mkdirSync(join(xdg, 'cordon'));
    const file = join(xdg, 'cordon', 'config.yaml');
    writeFileSync(file, 'timeout: 10m\nsignal: INT\n');
    process.env['XDG_CONFIG_HOME'] = xdg;
    process.env['CORDON_TIMEOUT'] = '90';
    process.env['CORDON_MAX_OUTPUT'] = '1MiB';
    const json = await inProcess(['explain', '--json', '--max-output', '2MiB', '--', 'true']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).settings).toEqual([
      { name: 'profile', value: null, source: 'default' },
      { name: 'backend', value: null, source: 'default' },
      { name: 'timeout', value: '90', source: 'environment CORDON_TIMEOUT' },
      { name: 'kill-after', value: null, source: 'default' },
      { name: 'signal', value: 'INT', source: `config file ${file}` },
      { name: 'max-output', value: '2MiB', source: 'flag --max-output' },
    ]);
    const text = await inProcess(['explain', '--', 'true']);
    expect(text.stdout).toContain(`  signal     INT    ← config file ${file}\n`);
    expect(text.stdout).toContain('  timeout    90    ← environment CORDON_TIMEOUT\n');
  });

  it('CORDON_BACKEND=none is refused (125) before anything runs', async () => {
    process.env['CORDON_BACKEND'] = 'none';
    const r = await inProcess(['--json', '--', 'true']);
    expect(r.code).toBe(125);
    expect(JSON.parse(r.stdout).error.code).toBe('bad-config');
  });
});

describe('flags on exactly a path the profile names', () => {
  it('explain shows the flag winning and what it overrides', async () => {
    const home = mkdtempSync(join(tmpdir(), 'cordon-home-'));
    mkdirSync(join(home, '.ssh'));
    const saved = process.env['HOME'];
    process.env['HOME'] = home;
    try {
      const r = await inProcess(['explain', '--json', '--read', '~/.ssh', '--', 'true']);
      const rules = JSON.parse(r.stdout).rules as { path: string; access: string; source: string }[];
      expect(rules.filter((x) => x.path.endsWith('/.ssh') && x.path.startsWith(home))).toEqual([
        {
          path: expect.stringMatching(/\.ssh$/),
          access: 'read',
          source: 'flag --read (overrides profile workspace filesystem[2]: none)',
        },
      ]);
    } finally {
      process.env['HOME'] = saved;
    }
  });

  it.each([
    [
      ['--read', '/etc', '--deny', '/etc', '--', 'true'],
      "--read and --deny both name '/etc' — keep one of them",
    ],
    [['--write', '/no/such/dir', '--', 'true'], "--write '/no/such/dir': no such file or directory"],
  ])('%j → 125', async (argv, message) => {
    const r = await inProcess(argv);
    expect(r.code).toBe(125);
    expect(r.stderr).toContain(message);
  });
});

describe('the man page names every default a user can set', () => {
  it('each CORDON_* variable and config key', async () => {
    const { SETTINGS } = await import('../../src/cli/config.ts');
    const r = await inProcess(['man']);
    for (const s of SETTINGS) {
      expect(r.stdout).toContain(`\\fB${s.env}\\fR`);
      expect(r.stdout).toContain(s.key.replace(/-/g, '\\-'));
    }
  });
});
