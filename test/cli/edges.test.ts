// Issue 18's edges, with real processes: a --read on exactly a path the profile denies wins
// (the command really reads the file); a --read on a missing path is refused before anything
// runs; a denial the command prints on stdout is annotated; a connect() Landlock refuses is
// annotated without a --net hint. Real bwrap and real Landlock where the host has them.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { CORDON_EXE, isLinux, isRoot, makeTempDir, NOBODY_CANNOT_RUN_NODE, runCli } from '../helpers/cli.ts';

const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();

function fixture() {
  const home = makeTempDir('cordon-edges-home-');
  // A home only its owner can write: the single executable refuses to keep its native module
  // below a directory others can write (makeTempDir's dirs are 0777 for the uid-65534 lanes).
  chmodSync(home, 0o755);
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'SECRET-KEY\n');
  const work = join(home, 'work');
  mkdirSync(work);
  const env = { PATH: process.env['PATH'], HOME: home, LANG: 'C.UTF-8' };
  return { home, work, env, key: join(home, '.ssh', 'id_ed25519') };
}

describe.runIf(canBwrap)('a flag on exactly a path the profile denies (real bwrap)', () => {
  it('without the flag the key is hidden; with --read ~/.ssh the command reads it', async () => {
    const f = fixture();
    const denied = await runCli(['-q', '--backend', 'bwrap', '--', 'cat', f.key], {
      cwd: f.work,
      env: f.env,
    });
    expect([denied.code, denied.stdout]).toEqual([1, '']);
    const allowed = await runCli(
      ['-q', '--backend', 'bwrap', '--read', join(f.home, '.ssh'), '--', 'cat', f.key],
      {
        cwd: f.work,
        env: f.env,
      },
    );
    expect([allowed.code, allowed.stdout]).toEqual([0, 'SECRET-KEY\n']);
  });
});

describe.runIf(isLinux)('--read/--write on a path that does not exist', () => {
  it.each(['--read', '--write'])('%s ./sub is refused (125) and the command never runs', async (flag) => {
    const f = fixture();
    const marker = join(f.work, 'ran');
    const r = await runCli([flag, './sub', '--', 'touch', marker], { cwd: f.work, env: f.env });
    expect(r.code).toBe(125);
    expect(r.stderr).toBe(
      `cordon: ${flag} '${f.work}/sub': no such file or directory — create it first (mkdir -p '${f.work}/sub'), or give ${flag} a directory that exists above it\n`,
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe.runIf(canBwrap)('denials in the command stdout (real bwrap)', () => {
  it('cat ~/.ssh/id_ed25519 2>&1 is annotated, with no flag suggested', async () => {
    const f = fixture();
    const r = await runCli(['--backend', 'bwrap', '--', 'sh', '-c', 'cat "$1" 2>&1', 'sh', f.key], {
      cwd: f.work,
      env: f.env,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('No such file or directory');
    expect(r.stderr).toContain('cordon: possibly denied: read of ~/.ssh/id_ed25519 (profile workspace');
    expect(r.stderr).toContain('no flag suggested');
    expect(r.stderr).not.toMatch(/--read|--write/);
  });
});

// (Not against the single executable: it has no Landlock helper, and refuses the backend.)
describe.runIf(abi >= 4 && !CORDON_EXE)('a connect() Landlock refuses (real Landlock)', () => {
  it.each([
    ['stdout', 'console.log'],
    ['stderr', 'console.error'],
  ])('connect EACCES 127.0.0.1:2222 on %s is annotated without a --net hint', async (_s, print) => {
    const f = fixture();
    const script = `require('net').connect(2222,'127.0.0.1').on('error',e=>{${print}(e.message);process.exit(3)})`;
    const r = await runCli(
      ['--json', '--backend', 'landlock', '--best-effort', '--', process.execPath, '-e', script],
      { cwd: f.work, env: f.env },
    );
    const result = JSON.parse(r.stdout) as {
      exitStatus: number;
      annotations: { message: string; fix?: string }[];
    };
    expect(result.exitStatus).toBe(3);
    const denial = result.annotations.find((a) => a.message.includes('network access to 127.0.0.1:2222'));
    expect(denial?.message).toBe(
      "denied: network access to 127.0.0.1:2222 (network off: profile workspace) — no flag suggested: --net would open every network and the host's loopback services, not just this port (inferred from the command's output)",
    );
    expect(denial?.fix).toBeUndefined();
  });
});

describe.runIf(canBwrap)('the config file is read-only inside a writable root (real bwrap)', () => {
  it("a command run where the config dir lies in its writable cwd cannot rewrite the next run's defaults", async () => {
    const f = fixture();
    const xdg = join(f.work, 'cfg');
    const env = { ...f.env, XDG_CONFIG_HOME: xdg };
    // The first run creates the config dir (0700) itself, so the command is never the one to.
    const first = await runCli(
      [
        '-q',
        '--backend',
        'bwrap',
        '--',
        'sh',
        '-c',
        'mkdir -p cfg/cordon; echo "backend: none" > cfg/cordon/config.yaml',
      ],
      { cwd: f.work, env },
    );
    expect(first.code).not.toBe(0);
    expect(existsSync(join(xdg, 'cordon'))).toBe(true);
    expect(existsSync(join(xdg, 'cordon', 'config.yaml'))).toBe(false);
    // A config file the user wrote is read, and stays read-only to the command.
    writeFileSync(join(xdg, 'cordon', 'config.yaml'), 'timeout: 10m\n');
    const second = await runCli(
      ['-q', '--backend', 'bwrap', '--', 'sh', '-c', 'echo "timeout: 1ms" > cfg/cordon/config.yaml'],
      { cwd: f.work, env },
    );
    expect(second.code).not.toBe(0);
    expect(readFileSync(join(xdg, 'cordon', 'config.yaml'), 'utf8')).toBe('timeout: 10m\n');
    const explain = await runCli(['explain', '--json', '--', 'true'], { cwd: f.work, env });
    expect(JSON.parse(explain.stdout).settings).toContainEqual({
      name: 'timeout',
      value: '10m',
      source: `config file ${join(xdg, 'cordon', 'config.yaml')}`,
    });
  });
});

describe.runIf(isLinux && isRoot && !NOBODY_CANNOT_RUN_NODE)("another user's config file", () => {
  it("uid 65534 pointed at root's 0700 config dir runs with the defaults, not an EACCES refusal", async () => {
    const f = fixture();
    const xdg = makeTempDir('cordon-edges-xdg-');
    mkdirSync(join(xdg, 'cordon'), { mode: 0o700 });
    writeFileSync(join(xdg, 'cordon', 'config.yaml'), 'timeout: 10m\n');
    const r = await runCli(['explain', '--json', '--backend', 'none', '--', 'true'], {
      cwd: f.work,
      env: { ...f.env, XDG_CONFIG_HOME: xdg },
      asUid: 65534,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).settings).toContainEqual({ name: 'timeout', value: null, source: 'default' });
  });
});
