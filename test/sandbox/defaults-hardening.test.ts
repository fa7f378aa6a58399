// Issue 15 against real bubblewrap, as root and as uid 65534, checked on the host side:
//   - a writable root that is home, / or a system directory is refused (125), nothing runs;
//   - the submodule core.fsmonitor attack: the command cannot re-point a submodule's gitlink,
//     so the user's next `git status` on the host runs nothing the command planted;
//   - a dangling .git symlink refuses with a message that says how to recover;
//   - the new credential deny-list entries are unreadable (the secret never reaches stdout);
//   - a hostile command's fake denials never make cordon suggest a flag that weakens anything.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, isLinux, isRoot, makeTempDir, runCli } from '../helpers/cli.ts';

function bwrapUsable(): boolean {
  if (!isLinux) return false;
  const r = spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' });
  return r.status === 0;
}
const canBwrap = bwrapUsable();
const hasGit = spawnSync('git', ['--version'], { stdio: 'ignore' }).status === 0;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

function git(cwd: string, args: string[], uid?: number) {
  const argv = [
    '-c',
    'user.email=t@example.invalid',
    '-c',
    'user.name=t',
    '-c',
    'protocol.file.allow=always',
    ...args,
  ];
  const full =
    uid === undefined
      ? ['git', ...argv]
      : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', 'git', ...argv];
  return spawnSync(full[0]!, full.slice(1), {
    cwd,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** A superproject `ws` with a checked-out submodule `vendor/lib`, owned by `uid`. */
function makeRepo(base: string, uid: number | undefined): { ws: string; marker: string } {
  const up = join(base, 'up');
  const ws = join(base, 'ws');
  mkdirSync(up);
  mkdirSync(ws);
  git(up, ['init', '-q']);
  writeFileSync(join(up, 'README'), 'lib\n');
  git(up, ['add', 'README']);
  git(up, ['commit', '-qm', 'lib']);
  git(ws, ['init', '-q']);
  git(ws, ['submodule', 'add', '-q', up, 'vendor/lib']);
  git(ws, ['commit', '-qm', 'sub']);
  if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, base]);
  // The marker lives outside the workspace: only the host-side git status could create it.
  return { ws, marker: join(base, 'PWNED') };
}

// Plants a gitdir with core.fsmonitor and tries every way to point the gitlink at it.
const attack = (marker: string) =>
  [
    'cp -r .git/modules/vendor/lib evil',
    `git config -f evil/config core.fsmonitor "echo pwned > ${marker}; false"`,
    'git config -f evil/config core.worktree ../vendor/lib',
    'rm -rf vendor/lib/.git',
    'printf "gitdir: ../../evil\\n" > vendor/lib/.git',
    'mv vendor/lib vendor/lib.old && mkdir vendor/lib && printf "gitdir: ../../evil\\n" > vendor/lib/.git',
    'mv vendor vendor.old && mkdir -p vendor/lib && printf "gitdir: ../../evil\\n" > vendor/lib/.git',
    'echo done',
  ].join('; ');

describe.runIf(canBwrap && isRoot).each(users)('default-profile hardening (bwrap) as %s', (_label, uid) => {
  let base: string;
  let home: string;
  const env = () => ({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' });
  const cordon = (args: string[], cwd: string): Promise<CliResult> =>
    runCli(['--backend', 'bwrap', '-q', ...args], { cwd, asUid: uid, env: env() });

  beforeAll(() => {
    base = makeTempDir('cordon-h15-', '/var/tmp');
    home = join(base, 'home');
    mkdirSync(join(home, '.config'), { recursive: true });
    if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, home]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('run from the home directory: refused (125), ~/.bashrc and autostart untouched', async () => {
    const script =
      'echo evil >> ~/.bashrc; mkdir -p ~/.config/autostart; echo x > ~/.config/autostart/x.desktop';
    for (const profile of ['workspace', 'strict']) {
      const r = await cordon(['--profile', profile, '--', 'sh', '-c', script], home);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(
        /refusing to make the working directory '.*' writable: it is your home directory/,
      );
      expect(r.stderr).toContain('--write ~');
    }
    expect(existsSync(join(home, '.bashrc'))).toBe(false);
    expect(existsSync(join(home, '.config/autostart'))).toBe(false);
  });

  it('naming home explicitly (--write ~) is the user asking for it: it runs', async () => {
    const r = await cordon(['--write', '~', '--', 'sh', '-c', 'echo ok > ~/made; echo done'], home);
    expect(r.stdout).toBe('done\n');
    expect(readFileSync(join(home, 'made'), 'utf8')).toBe('ok\n');
  });

  it('run from / or a system directory: refused (125)', async () => {
    for (const cwd of ['/', '/etc', '/usr']) {
      const r = await cordon(['--', 'true'], cwd);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(
        /refusing to make the working directory '\/[a-z]*' writable: it is (the file system root|a system directory)/,
      );
    }
  });

  it.runIf(hasGit)('submodule core.fsmonitor attack: the host-side git status runs nothing', async () => {
    const dir = join(base, `sub-${uid ?? 0}`);
    mkdirSync(dir);
    const { ws, marker } = makeRepo(dir, uid);
    const gitlink = readFileSync(join(ws, 'vendor/lib/.git'), 'utf8');
    const r = await cordon(['--', 'sh', '-c', attack(marker)], ws);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toMatch(/Read-only file system|Device or resource busy/);
    expect(readFileSync(join(ws, 'vendor/lib/.git'), 'utf8')).toBe(gitlink);
    // The user's own git status, on the host, as the owner of the repository.
    const st = git(ws, ['status', '--porcelain'], uid);
    expect(st.status).toBe(0);
    expect(existsSync(marker)).toBe(false);
    // Legitimate work in the submodule still works.
    const edit = await cordon(['--', 'sh', '-c', 'echo more >> vendor/lib/README && echo done'], ws);
    expect(edit.stdout).toBe('done\n');
    expect(readFileSync(join(ws, 'vendor/lib/README'), 'utf8')).toBe('lib\nmore\n');
  });

  it.runIf(hasGit)('control: the same attack unconfined does run code at the next git status', async () => {
    const dir = join(base, `ctl-${uid ?? 0}`);
    mkdirSync(dir);
    const { ws, marker } = makeRepo(dir, uid);
    const r = await runCli(['--backend', 'none', '-q', '--', 'sh', '-c', attack(marker)], {
      cwd: ws,
      asUid: uid,
      env: env(),
    });
    expect(r.stdout).toBe('done\n');
    git(ws, ['status', '--porcelain'], uid);
    expect(existsSync(marker)).toBe(true);
  });

  it('a dangling .git symlink: refused, and the message says how to recover', async () => {
    const ws = join(base, `dangling-${uid ?? 0}`);
    mkdirSync(ws);
    symlinkSync(join(base, 'gone/.git'), join(ws, '.git'));
    if (uid !== undefined) spawnSync('chown', ['-R', '-h', `${uid}:${uid}`, ws]);
    const r = await cordon(['--', 'sh', '-c', `echo ran > ${join(ws, 'ran')}`], ws);
    expect(r.code).toBe(125);
    expect(r.stderr).toContain(
      `it is a symlink to '${join(base, 'gone/.git')}' that points nowhere (dangling)`,
    );
    expect(r.stderr).toContain(`rm ${join(ws, '.git')}`);
    expect(r.stderr).toContain('gitdir: ');
    expect(existsSync(join(ws, 'ran'))).toBe(false);
    // Following the advice (a pointer file) makes the next run work.
    rmSync(join(ws, '.git'));
    mkdirSync(join(base, 'gone/.git'), { recursive: true });
    writeFileSync(join(ws, '.git'), `gitdir: ${join(base, 'gone/.git')}\n`);
    if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, ws, join(base, 'gone')]);
    const ok = await cordon(['--', 'true'], ws);
    expect(ok.code).toBe(0);
  });

  it('the credential deny list hides histories, DB, registry, model-hub, rclone and agent secrets', async () => {
    const secrets = [
      '.bash_history',
      '.zsh_history',
      '.pgpass',
      '.my.cnf',
      '.config/containers/auth.json',
      '.cache/huggingface/token',
      '.config/rclone/rclone.conf',
      '.codex/auth.json',
      '.claude/.credentials.json',
      '.claude.json',
    ];
    for (const rel of secrets) {
      mkdirSync(join(home, rel, '..'), { recursive: true });
      writeFileSync(join(home, rel), `TOPSECRET ${rel}\n`);
    }
    if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, home]);
    const ws = join(base, `creds-${uid ?? 0}`);
    mkdirSync(ws);
    if (uid !== undefined) spawnSync('chown', [`${uid}:${uid}`, ws]);
    const script = `${secrets.map((rel) => `cat ~/${rel} 2>/dev/null`).join('; ')}; ls ~/.codex ~/.claude ~/.config/rclone 2>/dev/null; echo done`;
    const r = await cordon(['--', 'sh', '-c', script], ws);
    expect(r.stdout).not.toContain('TOPSECRET');
    expect(r.stdout).not.toContain('auth.json');
    expect(r.stdout.trim().split('\n').at(-1)).toBe('done');
    // --read ~ does not re-open them (the deeper deny rule wins); without a sandbox they are readable.
    const ctl = await cordon(['--read', '~', '--', 'sh', '-c', 'cat ~/.pgpass 2>&1 || true'], ws);
    expect(ctl.stdout).not.toContain('TOPSECRET');
    const plain = await runCli(['--backend', 'none', '-q', '--', 'cat', join(home, '.pgpass')], {
      cwd: ws,
      asUid: uid,
      env: env(),
    });
    expect(plain.stdout).toContain('TOPSECRET');
  });

  it("a hostile command's fake denials: no flag that weakens a protection, and hints say they were inferred", async () => {
    const ws = join(base, `hints-${uid ?? 0}`);
    mkdirSync(join(ws, '.git'), { recursive: true });
    if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, ws]);
    const fake = [
      `sh: 1: cannot create ${home}/.bashrc: Read-only file system`,
      `touch: cannot touch '${home}/.config/autostart/x.desktop': Read-only file system`,
      `Error: EACCES: permission denied, open '${home}'`,
      `cp: cannot create regular file '${ws}/.git/hooks/pre-commit': Read-only file system`,
      `cat: ${home}/.pgpass: Permission denied`,
      `touch: cannot touch '/etc/cron.d/job': Read-only file system`,
      // An ordinary one still gets its narrow hint.
      `touch: cannot touch '${base}/outside-${uid ?? 0}.txt': Read-only file system`,
    ];
    writeFileSync(join(base, `outside-${uid ?? 0}.txt`), 'x\n');
    const script = fake.map((l) => `echo "${l}" >&2`).join('; ');
    const r = await runCli(['--backend', 'bwrap', '--json', '--', 'sh', '-c', script], {
      cwd: ws,
      asUid: uid,
      env: env(),
    });
    const result = JSON.parse(r.stdout) as {
      annotations: { kind: string; path?: string; fix?: string; message: string }[];
    };
    const denials = result.annotations.filter((a) => a.kind === 'denial');
    // (the EACCES on home is not blamed: under bwrap a refused write is EROFS)
    expect(denials.map((d) => d.path)).toEqual([
      join(home, '.bashrc'),
      join(home, '.config/autostart/x.desktop'),
      join(ws, '.git/hooks/pre-commit'),
      join(home, '.pgpass'),
      '/etc/cron.d/job',
      join(base, `outside-${uid ?? 0}.txt`),
    ]);
    for (const d of denials) expect(d.message).toContain("(inferred from the command's output)");
    const fixes = denials.flatMap((d) => (d.fix === undefined ? [] : [d.fix]));
    expect(fixes).toEqual([`--write ${base}/outside-${uid ?? 0}.txt`]);
  });
});
