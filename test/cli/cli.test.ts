// The real CLI (bin/cordon, built bundle) as users run it: flags, exit codes, JSON, report
// file, environment filtering, signals, and what is left behind.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canBwrap as bwrapWorks, CORDON, makeTempDir, runCli } from '../helpers/cli.ts';
import { findProcesses, uniqueMarker } from '../helpers/procs.ts';

const isLinux = process.platform === 'linux';

describe('cli: usage errors exit 125 and name the value', () => {
  it.each([
    [
      ['--timeout', '5 parsecs', '--', 'true'],
      /invalid duration for --timeout: '5 parsecs' — use seconds or a number with a unit: 90, 500ms, 30s, 10m, 1h, 2d \(0 = none\)/,
    ],
    [['--max-output', 'lots', '--', 'true'], /invalid size for --max-output: 'lots'/],
    [['--bogus', '--', 'true'], /unknown option '--bogus'/],
    [['--backend', 'docker', '--', 'true'], /unknown backend for --backend: 'docker'/],
    [['--env', '1BAD=x', '--', 'true'], /invalid name for --env: '1BAD'/],
    [['--cwd', '/no/such/dir', '--', 'true'], /working directory does not exist: '\/no\/such\/dir'/],
    [
      ['--profile', 'nosuch', '--', 'true'],
      /unknown profile 'nosuch'.*built-in profiles: read-only, strict, workspace/,
    ],
    [[], /no command given/],
    [['--backend', 'none', '--profile', 'strict', '--', 'true'], /--backend none runs without a sandbox/],
  ])('%j', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(125);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr.startsWith('cordon: ')).toBe(true);
  });

  it('prints {"error":{code,message}} with --json', async () => {
    const r = await runCli(['--json', '--timeout', 'x', '--', 'true']);
    expect(r.code).toBe(125);
    expect(JSON.parse(r.stdout)).toEqual({
      version: 1,
      error: {
        code: 'bad-duration',
        message:
          "invalid duration for --timeout: 'x' — use seconds or a number with a unit: 90, 500ms, 30s, 10m, 1h, 2d (0 = none)",
      },
    });
  });

  it('--version and --help exit 0', async () => {
    const v = await runCli(['--version']);
    expect([v.code, v.stdout.trim()]).toEqual([
      0,
      JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version,
    ]);
    const h = await runCli(['--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--max-output <size>');
  });
});

describe.runIf(isLinux)('cli: running (backend none)', () => {
  it('the command reads /dev/null even when cordon stdin is an open pipe', async () => {
    const r = await runCli(['--backend', 'none', '--', 'cat'], { stdin: 'pipe', timeoutMs: 20_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  for (const backend of ['none', 'bwrap']) {
    it.runIf(backend === 'none' || bwrapWorks)(
      `gives the command real pipes: /dev/stdout and /dev/stderr can be opened (${backend})`,
      async () => {
        const r = await runCli([
          '-q',
          '--backend',
          backend,
          '--',
          'sh',
          '-c',
          'echo out > /dev/stdout; echo err > /dev/stderr',
        ]);
        expect([r.code, r.stdout, r.stderr]).toEqual([0, 'out\n', 'err\n']);
      },
    );
  }

  it('prints stdout and stderr apart, then one metadata line', async () => {
    const r = await runCli(['--backend', 'none', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toMatch(/^err\ncordon: exit 3 · \d+(ms|\.\ds|s) · no sandbox\n$/);
    const q = await runCli(['-q', '--backend', 'none', '--', 'sh', '-c', 'echo err >&2']);
    expect(q.stderr).toBe('err\n');
  });

  it('--json prints exactly one object with the documented fields', async () => {
    const r = await runCli(
      [
        '--json',
        '--backend',
        'none',
        '--max-output',
        '64',
        '--',
        'sh',
        '-c',
        'printf "%0200d" 0; echo e >&2; exit 4',
      ],
      {
        env: {
          PATH: process.env['PATH'],
          HOME: '/root',
          GITHUB_TOKEN: 'secret-value',
          MY_SECRET_KEY: 'x',
          GIT_AUTHOR_NAME: 'Ada',
        },
      },
    );
    expect(r.code).toBe(4);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]!);
    expect(Object.keys(j).sort()).toEqual(
      [
        'annotations',
        'backend',
        'cache',
        'cancelled',
        'command',
        'cwd',
        'droppedEnv',
        'durationMs',
        'exitCode',
        'exitStatus',
        'limit',
        'limits',
        'notEnforced',
        'profile',
        'signal',
        'started',
        'status',
        'stderr',
        'stdout',
        'timedOut',
        'version',
      ].sort(),
    );
    expect(j).toMatchObject({
      version: 1,
      backend: 'none',
      started: true,
      status: 'exited',
      exitCode: 4,
      exitStatus: 4,
      signal: null,
      timedOut: false,
    });
    expect(j.stdout).toMatchObject({ totalBytes: 200, truncated: true });
    expect(j.stderr).toMatchObject({ text: 'e\n', totalBytes: 2, truncated: false });
    expect(Buffer.byteLength(j.stdout.text) + Buffer.byteLength(j.stderr.text)).toBeLessThanOrEqual(64);
    expect(j.droppedEnv).toEqual(['GITHUB_TOKEN', 'MY_SECRET_KEY']);
    expect(r.stdout).not.toContain('secret-value');
    expect(r.stderr).toBe('');
  });

  it('drops credential-like variables, keeps --env NAME, sets --env NAME=VALUE, --clear-env', async () => {
    const env = {
      PATH: process.env['PATH'],
      HOME: '/root',
      NPM_TOKEN: 't0k',
      AWS_SECRET_ACCESS_KEY: 'k',
      GIT_AUTHOR_NAME: 'Ada',
      FOO: 'bar',
    };
    const r = await runCli(
      [
        '-q',
        '--backend',
        'none',
        '--env',
        'NPM_TOKEN',
        '--env',
        'X=1',
        '--',
        'sh',
        '-c',
        'echo "$NPM_TOKEN|${AWS_SECRET_ACCESS_KEY-unset}|$GIT_AUTHOR_NAME|$X|$FOO"',
      ],
      { env },
    );
    expect(r.stdout).toBe('t0k|unset|Ada|1|bar\n');
    const c = await runCli(
      ['-q', '--backend', 'none', '--clear-env', '--', 'sh', '-c', 'echo "${FOO-unset}|$HOME"'],
      { env },
    );
    expect(c.stdout).toBe('unset|/root\n');
  });

  it('timeout exits 124 and leaves nothing behind, even a double-forked setsid daemon', async () => {
    const marker = uniqueMarker();
    const r = await runCli([
      '--backend',
      'none',
      '--timeout',
      '300ms',
      '--',
      'sh',
      '-c',
      `(setsid sh -c "sleep ${marker} & sleep ${marker}" &) ; nohup sleep ${marker} >/dev/null 2>&1 & sleep ${marker}`,
    ]);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/timed out after 300ms \(exit 124\)/);
    expect(findProcesses(marker)).toEqual([]);
  });

  it('a double-forked daemon is killed after a normal exit too', async () => {
    const marker = uniqueMarker();
    const r = await runCli(['--backend', 'none', '--', 'sh', '-c', `(setsid sleep ${marker} &); exit 5`]);
    expect(r.code).toBe(5);
    expect(findProcesses(marker)).toEqual([]);
  });

  it('maps signals: SIGKILL → 137, SIGTERM → 143, not found → 127, not executable → 126', async () => {
    expect((await runCli(['-q', '--backend', 'none', '--', 'sh', '-c', 'kill -KILL $$'])).code).toBe(137);
    expect((await runCli(['-q', '--backend', 'none', '--', 'sh', '-c', 'kill -TERM $$'])).code).toBe(143);
    expect((await runCli(['-q', '--backend', 'none', '--', 'cordon-no-such-cmd'])).code).toBe(127);
    const dir = makeTempDir();
    expect((await runCli(['-q', '--backend', 'none', '--', dir])).code).toBe(126);
  });

  it('forwards SIGINT/SIGTERM to the command, cleans up and exits 128+N', async () => {
    for (const [sig, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const) {
      const marker = uniqueMarker();
      const child = spawn(
        process.execPath,
        [CORDON, '--backend', 'none', '--', 'sh', '-c', `setsid sleep ${marker} & sleep ${marker}`],
        { stdio: 'ignore' },
      );
      await waitFor(() => findProcesses(marker).length >= 2);
      child.kill(sig);
      const exit = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(exit).toBe(code);
      expect(findProcesses(marker)).toEqual([]);
    }
  });

  const sigkillBackends = [
    'none',
    ...(spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', 'true']).status === 0 ? ['bwrap'] : []),
  ];
  it.each(sigkillBackends)(
    'if cordon is SIGKILLed, its command dies too (parent-death signal, %s)',
    async (backend) => {
      const marker = uniqueMarker();
      const child = spawn(process.execPath, [CORDON, '--backend', backend, '--', 'sleep', marker], {
        stdio: 'ignore',
        cwd: makeTempDir('cordon-sigkill-', '/var/tmp'),
      });
      await waitFor(() => findProcesses(`sleep ${marker}`).length === 1);
      child.kill('SIGKILL');
      await waitFor(() => findProcesses(`sleep ${marker}`).length === 0);
      // bwrap: the unix-socket supervisor between cordon and bwrap must die with cordon too.
      expect(findProcesses(`sleep ${marker}`)).toEqual([]);
    },
  );

  it('--report writes a 0600 file: running at start, the result at the end', async () => {
    const dir = makeTempDir();
    const report = join(dir, 'report.json');
    const marker = uniqueMarker();
    const child = spawn(
      process.execPath,
      [CORDON, '--backend', 'none', '--report', report, '--', 'sleep', marker],
      { stdio: 'ignore' },
    );
    await waitFor(() => existsSync(report) && readFileSync(report, 'utf8').includes('"running"'));
    expect(statSync(report).mode & 0o777).toBe(0o600);
    const running = JSON.parse(readFileSync(report, 'utf8'));
    expect(running).toMatchObject({ status: 'running', started: true, backend: 'none' });
    child.kill('SIGKILL'); // cordon dies: the report still says the command may have run
    await new Promise((resolve) => child.on('exit', resolve));
    expect(JSON.parse(readFileSync(report, 'utf8')).status).toBe('running');
    const r = await runCli(['-q', '--backend', 'none', '--report', report, '--', 'sh', '-c', 'exit 7']);
    expect(r.code).toBe(7);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({
      status: 'exited',
      exitCode: 7,
      started: true,
    });
    expect(statSync(report).mode & 0o777).toBe(0o600);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.runIf(isLinux && spawnSync('script', ['--version']).status === 0)(
  'cli: colours on a terminal',
  () => {
    it('the command gets FORCE_COLOR when cordon writes to a terminal, not on a pipe', async () => {
      const inner = `${JSON.stringify(process.execPath)} ${JSON.stringify(CORDON)} -q --backend none -- sh -c 'echo "fc=[$FORCE_COLOR] cf=[$CLICOLOR_FORCE]"'`;
      const tty = spawnSync('script', ['-qfec', inner, '/dev/null'], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'], TERM: 'xterm' },
      });
      expect(tty.stdout).toContain('fc=[1] cf=[1]');
      const pipe = await runCli(['-q', '--backend', 'none', '--', 'sh', '-c', 'echo "fc=[$FORCE_COLOR]"']);
      expect(pipe.stdout).toBe('fc=[]\n');
    });
  },
);

describe.runIf(isLinux)('cli: --env-file', () => {
  it('sets the variables for the command and never reaches Node itself; --env wins', async () => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'vars.env'), 'FROM_FILE=one\nBOTH=file\nGITHUB_TOKEN=kept-because-given\n');
    const r = await runCli(
      [
        '-q',
        '--backend',
        'none',
        '--env-file',
        join(dir, 'vars.env'),
        '--env',
        'BOTH=flag',
        '--',
        'sh',
        '-c',
        'echo "$FROM_FILE $BOTH $GITHUB_TOKEN"',
      ],
      { cwd: dir },
    );
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'one flag kept-because-given\n', '']);
    // First on the command line too, started through bin/cordon's own #! line as an installed
    // cordon is: Node itself must not take --env-file for its own option.
    const viaShebang = spawnSync(CORDON, ['--env-file', join(dir, 'nope.env'), '--', 'true'], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: process.env['HOME'] ?? '/root' },
    });
    expect(viaShebang.status).toBe(125);
    expect(viaShebang.stderr).toMatch(/^cordon: cannot read --env-file '.*nope\.env': ENOENT/);
  });
});
