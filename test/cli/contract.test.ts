// The CLI contract in-process: the program definition (runCli) is imported, not spawned, and
// each case asserts the exit status, the error code and the message together, in text mode and
// with --json. Nothing here starts a command: every case fails before the launch. The smaller
// real-binary battery is test/cli/cli.test.ts.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAG_TABLE } from '../../src/cli/flag-table.ts';
import { runCli } from '../../src/cli/main.ts';
import { parseArgv } from '../../src/cli/program.ts';

async function inProcess(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, (fd, text) => (fd === 1 ? out : err).push(text));
  return { code, stdout: out.join(''), stderr: err.join('') };
}

const CASES: [string[], string, RegExp][] = [
  [
    ['--timeout', '5 parsecs', '--', 'true'],
    'bad-duration',
    /invalid duration for --timeout: '5 parsecs' — use seconds or a number with a unit: 90, 500ms/,
  ],
  [['--max-output', 'lots', '--', 'true'], 'bad-size', /invalid size for --max-output: 'lots'/],
  [['--bogus', '--', 'true'], 'bad-flag', /unknown option '--bogus'.*— see cordon --help/],
  [
    ['--backend', 'docker', '--', 'true'],
    'unknown-backend',
    /unknown backend for --backend: 'docker' — use auto, none, bwrap/,
  ],
  [['--env', '1BAD=x', '--', 'true'], 'bad-env', /invalid name for --env: '1BAD'/],
  [
    ['--cwd', '/no/such/dir', '--', 'true'],
    'bad-cwd',
    /working directory does not exist: '\/no\/such\/dir' — pass an existing directory to --cwd/,
  ],
  [['--quiet', '--verbose', '--', 'true'], 'bad-flag', /choose one of --quiet and --verbose/],
  [[], 'missing-command', /no command given — put it after --/],
  [['--backend', 'none', '--write', '.', '--', 'true'], 'bad-flag', /--backend none runs without a sandbox/],
  [['doctor', 'extra'], 'bad-flag', /cordon doctor takes no command \(got 'extra'\)/],
  [['cache', 'purge'], 'bad-flag', /unknown cache action 'purge'/],
  [['explain', '--platform', 'beos', '--', 'true'], 'bad-flag', /--platform.*beos/],
];

describe('CLI contract (in-process): exit status, error code and message together', () => {
  it.each(CASES)('%j → 125 %s', async (args, code, message) => {
    const text = await inProcess(args);
    expect(text.code).toBe(125);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^cordon: [^\n]+\n$/);
    expect(text.stderr).toMatch(message);

    // A subcommand's --json goes after its word.
    const sub = ['doctor', 'cache', 'explain'].includes(args[0] ?? '');
    const json = await inProcess(sub ? [args[0]!, '--json', ...args.slice(1)] : ['--json', ...args]);
    expect(json.code).toBe(125);
    expect(json.stderr).toBe('');
    const doc = JSON.parse(json.stdout);
    expect(doc).toEqual({ version: 1, error: { code, message: expect.stringMatching(message) } });
  });

  it('subcommand errors carry their code with --json after the word', async () => {
    const r = await inProcess(['doctor', '--json', 'extra']);
    expect(r.code).toBe(125);
    expect(JSON.parse(r.stdout)).toEqual({
      version: 1,
      error: {
        code: 'bad-flag',
        message: expect.stringContaining("cordon doctor takes no command (got 'extra')"),
      },
    });
  });

  it('a policy under which the working directory is unreadable is refused before anything runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-contract-'));
    const profile = join(dir, 'no-cwd.yaml');
    writeFileSync(profile, 'filesystem:\n  - { path: "{system}", access: read }\n');
    const r = await inProcess([
      '--json',
      '--profile',
      profile,
      '--cwd',
      dir,
      '--',
      'touch',
      join(dir, 'ran'),
    ]);
    expect(r.code).toBe(125);
    expect(JSON.parse(r.stdout)).toEqual({
      version: 1,
      error: {
        code: 'unusable-cwd',
        message: `the working directory '${realpathSync(dir)}' is not readable under this policy: no rule grants it — add --read ${realpathSync(dir)} (or --write), or run from a directory the profile grants`,
      },
    });
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('--version and --help exit 0 and print to stdout', async () => {
    const v = await inProcess(['--version']);
    expect([v.code, v.stderr]).toEqual([0, '']);
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const h = await inProcess(['--help']);
    expect(h.code).toBe(0);
    for (const spec of Object.values(FLAG_TABLE)) expect(h.stdout).toContain(spec.spelling.split(' <')[0]);
    expect(h.stdout).toContain('--no-net');
  });

  it('words after -- are the command, even when they look like flags or subcommands', () => {
    const p = parseArgv(['--timeout', '1s', '--', 'explain', '--json'], '0');
    expect(p.kind).toBe('run');
    expect(p.command).toEqual(['explain', '--json']);
    expect(p.flags.json).toBeUndefined();
    expect(p.flags.timeout).toBe('1s');
  });

  it('repeatable flags collect, --no-net negates', () => {
    const p = parseArgv(['--read', 'a', '--read', 'b', '--no-net', '--', 'true'], '0');
    expect(p.flags.read).toEqual(['a', 'b']);
    expect(p.flags.net).toBe(false);
  });
});

describe('words that look like subcommands', () => {
  it.each(['help', 'version', 'init', 'config'])(
    '%s without -- is refused, after -- it is the command',
    async (word) => {
      const r = await inProcess([word]);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(
        new RegExp(
          `^cordon: '${word}' is reserved: .*; to run a program named ${word}, put it after --: cordon -- ${word}\\n$`,
        ),
      );
      expect(parseArgv(['--', word], '0').command).toEqual([word]);
    },
  );
});

describe('durations as GNU timeout takes them', () => {
  it('bare seconds, d, and 0 = no timeout; -k and -s', async () => {
    const { toRunOptions } = await import('../../src/cli/flags.ts');
    const opts = (flags: Record<string, string>) => toRunOptions(flags).run;
    expect(opts({ timeout: '90' }).timeoutMs).toBe(90_000);
    expect(opts({ timeout: '1.5' }).timeoutMs).toBe(1500);
    expect(opts({ timeout: '2d' }).timeoutMs).toBe(172_800_000);
    expect(opts({ timeout: '0' }).timeoutMs).toBeUndefined();
    expect(opts({ killAfter: '0' }).killAfterMs).toBe(0);
    expect(opts({ killAfter: '5' }).killAfterMs).toBe(5000);
    expect(opts({ signal: 'int' }).timeoutSignal).toBe('SIGINT');
    expect(opts({ signal: 'SIGHUP' }).timeoutSignal).toBe('SIGHUP');
    const bad = await inProcess(['--json', '--signal', 'STOP', '--', 'true']);
    expect(bad.code).toBe(125);
    expect(JSON.parse(bad.stdout).error).toEqual({
      code: 'bad-flag',
      message:
        "unknown signal for --signal: 'STOP' — use one of TERM, INT, HUP, QUIT, USR1, USR2, ALRM, KILL",
    });
  });
});

describe('-v says what it promises', () => {
  it('the policy, the backend and why, and the dropped variable names, before the run', async () => {
    const { renderVerboseHeader } = await import('../../src/cli/verbose.ts');
    const { preparePlan } = await import('../../src/prepare.ts');
    const { syntheticHost } = await import('../../src/host/synthetic.ts');
    const host = syntheticHost('linux');
    const prepared = preparePlan(
      ['make'],
      { env: { PATH: '/usr/bin', GITHUB_TOKEN: 'x' } },
      { probe: () => host, platform: 'linux', cwdOverride: host.cwd },
    );
    const text = renderVerboseHeader(prepared).join('');
    expect(text).toMatch(/^cordon: policy: profile workspace, network off, private \/tmp yes/);
    expect(text).toContain('cordon:   write /home/user/project  ← profile workspace');
    expect(text).toMatch(/cordon: backend: bwrap — bubblewrap 0\.11\.0 at \/usr\/bin\/bwrap/);
    expect(text).toMatch(/cordon: {3}not landlock: /);
    expect(text).toMatch(/cordon: environment dropped: GITHUB_TOKEN\n$/);
  });
});
