// Denials and --changes through the real CLI and a real sandbox: each denial names the flag
// that allows it, and re-running with that flag really succeeds (checked on the host side).
// Backends are probed with `cordon explain --backend X`, so a backend that is not built or
// not usable here shows as skipped. Workspaces live under /var/tmp: /tmp is private inside.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CORDON, isLinux, isRoot, runCli } from '../helpers/cli.ts';

function backendUsable(backend: string, extra: readonly string[] = []): boolean {
  if (!isLinux) return false;
  const args = [CORDON, 'explain', '--backend', backend, ...extra, '--', 'true'];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return r.status === 0;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const base = realpathSync(mkdtempSync('/var/tmp/cordon-report-test-'));
  dirs.push(base);
  const home = join(base, 'home');
  const ws = join(base, 'ws');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(join(home, '.cache/tool'), { recursive: true });
  writeFileSync(join(home, '.ssh/id_rsa'), 'SECRET\n');
  mkdirSync(ws);
  const env = { PATH: process.env['PATH'], HOME: home, LANG: 'C.UTF-8' };
  return { base, home, ws, env };
}

const json = (stdout: string) =>
  JSON.parse(stdout) as Record<string, unknown> & { annotations: Record<string, unknown>[] };

// Landlock cannot deny inside a readable directory, so it runs the strict profile here (home
// not readable at all), with --best-effort for the protected .git it cannot keep
// read-only inside the writable cwd; bwrap runs the default workspace profile.
const BACKENDS = [
  {
    backend: 'bwrap',
    profile: [] as string[],
    writeRule: 'profile workspace (filesystem[0]): read /',
    readRule: 'profile workspace (filesystem[2]): none ~/.ssh',
    networkRule: 'network off: profile workspace',
  },
  {
    backend: 'landlock',
    profile: ['--profile', 'strict', '--best-effort'],
    writeRule: 'no rule grants access (paths outside the profile are not visible)',
    readRule: 'no rule grants access (paths outside the profile are not visible)',
    networkRule: 'network off: profile strict',
  },
];

describe.each(BACKENDS)('denials on $backend', ({ backend, profile, writeRule, readRule, networkRule }) => {
  const usable = backendUsable(backend, profile);
  const base = ['--backend', backend, ...profile];

  it.runIf(usable)(
    'a write outside the workspace names --write for the nearest existing directory',
    async () => {
      const { home, ws, env } = setup();
      const target = join(home, '.cache/tool/data.bin');
      const r = await runCli([...base, '--json', '--', 'touch', target], { cwd: ws, env });
      const result = json(r.stdout);
      expect(result['exitCode']).toBe(1);
      const denials = result.annotations.filter((a) => a['kind'] === 'denial');
      expect(denials.map((d) => [d['operation'], d['path'], d['rule'], d['fix']])).toEqual([
        ['create', target, writeRule, '--write ~/.cache/tool'],
      ]);
      expect(denials[0]?.['message']).toMatch(
        /^(possibly )?denied: create of ~\/\.cache\/tool\/data\.bin \(.*\) — allow with --write ~\/\.cache\/tool \(its directory: [^)]*\) \(inferred from the command.s output\)$/,
      );
      expect(existsSync(target)).toBe(false);
      const again = await runCli([...base, '--write', '~/.cache/tool', '--', 'touch', target], {
        cwd: ws,
        env,
      });
      expect([again.code, existsSync(target)]).toEqual([0, true]);
    },
  );

  it.runIf(usable)('a read of a denied credential file names the rule, suggests no flag', async () => {
    const { home, ws, env } = setup();
    const secret = join(home, '.ssh/id_rsa');
    const r = await runCli([...base, '--', 'cat', secret], { cwd: ws, env });
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(
        `cordon: (possibly )?denied: read of ~/\\.ssh/id_rsa \\(${readRule.replace(/[()[\].]/g, '\\$&')}\\) — no flag suggested: ~/\\.ssh/id_rsa: it is a credential store or a denied path \\(~/\\.ssh\\) \\(inferred from the command's output\\)\n`,
      ),
    );
    expect(r.stderr).toMatch(/ · 1 denial( · [^\n]*)?\n$/);
    // The user can still open it on purpose; cordon just never proposes it.
    const again = await runCli([...base, '--read', '~/.ssh/id_rsa', '--', 'cat', secret], { cwd: ws, env });
    expect([again.code, again.stdout]).toEqual([0, 'SECRET\n']);
  });

  it.runIf(usable)('a connection with the network off names --net', async () => {
    const { ws, env } = setup();
    const script =
      "require('http').get('http://example.com/').on('error', (e) => { console.error(e.message); process.exit(3); })";
    const r = await runCli(
      [...base, '--read', process.execPath, '--json', '--', process.execPath, '-e', script],
      {
        cwd: ws,
        env,
      },
    );
    const result = json(r.stdout);
    const denials = result.annotations.filter((a) => a['kind'] === 'denial');
    expect(result['exitCode']).toBe(3);
    expect(denials.map((d) => [d['operation'], d['path'], d['rule'], d['fix']])).toEqual([
      ['network', 'example.com', networkRule, '--net'],
    ]);
  });

  it.runIf(usable && isRoot)(
    'a failure with nothing to do with the sandbox (a 0400 file it owns) is not blamed',
    async () => {
      const { base: dir, ws, env } = setup();
      chmodSync(dir, 0o1777); // sticky, like /tmp: uid 65534 may use it, others cannot tamper
      chmodSync(ws, 0o777);
      writeFileSync(join(ws, 'ro.txt'), 'x');
      chownSync(join(ws, 'ro.txt'), 65534, 65534);
      chmodSync(join(ws, 'ro.txt'), 0o400);
      const r = await runCli([...base, '--json', '--', 'sh', '-c', 'echo y > ro.txt; echo y > ./ro.txt'], {
        cwd: ws,
        env,
        asUid: 65534,
      });
      const result = json(r.stdout);
      expect((result['stderr'] as { text: string }).text).toContain('Permission denied');
      expect([result['exitCode'], result.annotations.filter((a) => a['kind'] === 'denial')]).toEqual([2, []]);
      expect(readFileSync(join(ws, 'ro.txt'), 'utf8')).toBe('x');
    },
  );
});

describe.runIf(backendUsable('bwrap'))('--changes through the CLI', () => {
  it('prints a summary and the paths in text, and the report in JSON, with the same exit status', async () => {
    const { ws, env } = setup();
    writeFileSync(join(ws, 'old.txt'), 'x');
    const script = 'echo hi; mkdir d; touch d/new.txt; rm old.txt; exit 4';
    const text = await runCli(['--changes', '--', 'sh', '-c', script], { cwd: ws, env });
    expect(text.code).toBe(4);
    expect(text.stdout).toBe('hi\n');
    expect(text.stderr).toMatch(
      /^cordon: changes: 2 created, 0 modified, 1 deleted\ncordon: {3}\+ d\/\ncordon: {3}\+ d\/new\.txt\ncordon: {3}- old\.txt\ncordon: exit 4 · /,
    );
    writeFileSync(join(ws, 'old.txt'), 'x');
    rmSync(join(ws, 'd'), { recursive: true });
    const j = await runCli(['--changes', '--json', '--', 'sh', '-c', script], { cwd: ws, env });
    const result = json(j.stdout);
    expect([j.code, result['exitStatus'], (result['stdout'] as { text: string }).text]).toEqual([
      4,
      4,
      'hi\n',
    ]);
    expect(result['changes']).toMatchObject({
      roots: [ws],
      created: 2,
      modified: 0,
      deleted: 1,
      entries: [
        { change: 'created', path: `${ws}/d`, type: 'dir' },
        { change: 'created', path: `${ws}/d/new.txt`, type: 'file' },
        { change: 'deleted', path: `${ws}/old.txt`, type: 'file' },
      ],
    });
    expect((result['changes'] as Record<string, unknown>)['truncation']).toBeUndefined();
  });

  it('says how many changes the listing left out', async () => {
    const { ws, env } = setup();
    const r = await runCli(['--changes', '--', 'sh', '-c', 'for i in $(seq 1 90); do touch f$i; done'], {
      cwd: ws,
      env,
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('cordon: changes: 90 created, 0 modified, 0 deleted\n');
    expect(r.stderr).toContain('cordon:   70 more changed files not listed (max_files)\n');
  });
});

describe.runIf(isLinux && isRoot)('--changes and unreadable directories', () => {
  it('counts a directory it cannot read as unreadable and still reports the rest', async () => {
    const { base: dir, ws, env } = setup();
    chmodSync(dir, 0o1777); // sticky, like /tmp: uid 65534 may use it, others cannot tamper
    chmodSync(ws, 0o777);
    mkdirSync(join(ws, 'locked'), { mode: 0o700 });
    const r = await runCli(['--backend', 'none', '--changes', '--json', '--', 'touch', 'new.txt'], {
      cwd: ws,
      env,
      asUid: 65534,
    });
    const result = json(r.stdout);
    expect([r.code, result['changes']]).toEqual([
      0,
      {
        roots: [ws],
        created: 1,
        modified: 0,
        deleted: 0,
        entries: [{ change: 'created', path: `${ws}/new.txt`, type: 'file' }],
        truncation: {
          code: 'changes_truncated',
          reasons: { unreadable: 1 },
          skipped: [`${ws}/locked`],
          skipped_count: 1,
        },
        scanMs: expect.any(Object),
      },
    ]);
  });
});
