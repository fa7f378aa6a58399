// The linux single executable for this machine's arch (built by `npm run test:dist`, or `node scripts/dist.mjs
// --targets linux-x64`): copied to an empty directory, started with a PATH that holds no Node
// and a fresh HOME, it prints its version, runs commands with and without bubblewrap, and
// loads koffi from its private per-user directory (0700, content-addressed, re-verified on
// every load). Skipped (and shown as skipped) when the executable has not been built.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRoot, makeTempDir, ROOT } from '../helpers/cli.ts';

const built = process.env['CORDON_TEST_EXE'] ?? join(ROOT, `.dist-sea/out/cordon-linux-${process.arch}`);
const runnable = process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch) && existsSync(built);
const hasBwrap = ['/usr/bin/bwrap', '/bin/bwrap'].some((p) => existsSync(p));
const KOFFI_NODE = join(
  ROOT,
  `node_modules/@koromix/koffi-linux-${process.arch}/linux_${process.arch}/koffi.node`,
);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe.runIf(runnable)(`single executable (linux-${process.arch}, no Node, no node_modules)`, () => {
  let work: string;
  let exe: string;
  let pathDir: string;
  let home: string;
  const koffiHash = createHash('sha256').update(readFileSync(KOFFI_NODE)).digest('hex');

  const exec = (
    args: string[],
    opts: { cwd?: string; home?: string; extraEnv?: Record<string, string> } = {},
  ) =>
    new Promise<Outcome>((resolve) => {
      execFile(
        exe,
        args,
        {
          cwd: opts.cwd ?? work,
          env: { PATH: pathDir, HOME: opts.home ?? home, LANG: 'C.UTF-8', ...opts.extraEnv },
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  const nativeDir = (h: string) => join(h, '.cache/cordon/native');

  beforeAll(() => {
    // Not under /tmp: cordon refuses a cache directory with a world-writable ancestor.
    mkdirSync(join(ROOT, '.dist-sea'), { recursive: true });
    // Not under /tmp: the sandbox's private /tmp would hide the PATH directory made here
    // (the checkout itself may live under /tmp in CI).
    work = mkdtempSync('/var/tmp/cordon-sea-test-');
    chmodSync(work, 0o755);
    exe = join(work, 'cordon');
    copyFileSync(built, exe);
    chmodSync(exe, 0o755);
    // PATH with the tools a run needs and no node.
    pathDir = join(work, 'bin');
    mkdirSync(pathDir);
    for (const tool of ['sh', 'bwrap', 'setpriv', 'true', 'echo', 'cat', 'touch', 'id']) {
      const found = ['/usr/bin', '/bin'].map((d) => join(d, tool)).find((p) => existsSync(p));
      if (found) symlinkSync(found, join(pathDir, tool));
    }
    home = join(work, 'home');
    mkdirSync(home, { mode: 0o755 });
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('sits in a directory with no node_modules and PATH has no node', () => {
    expect(readdirSync(work).sort()).toEqual(['bin', 'cordon', 'home']);
    expect(existsSync(join(pathDir, 'node'))).toBe(false);
  });

  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await exec(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });

  it('loads koffi from the private per-user directory (0700, named by hash, verified)', async () => {
    const res = await exec(['doctor', '--json']);
    const doctor = JSON.parse(res.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
    // The Landlock probe is a koffi syscall: it only answers when koffi.node loaded.
    const landlock = doctor.checks.find((c) => c.name === 'landlock');
    expect(landlock?.detail).toMatch(/Landlock ABI \d+|not supported|disabled/);
    expect(landlock?.detail).not.toMatch(/koffi/i);
    const dir = nativeDir(home);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, '.cache/cordon')).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir)).toEqual([`koffi-${koffiHash.slice(0, 32)}.node`]);
    const file = join(dir, readdirSync(dir)[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o500);
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(koffiHash);
  });

  it('a tampered copy is never loaded: it is replaced by the executable’s own', async () => {
    const dir = nativeDir(home);
    const file = join(dir, `koffi-${koffiHash.slice(0, 32)}.node`);
    chmodSync(file, 0o600);
    writeFileSync(file, 'not an ELF object');
    const res = await exec(['--json', '--backend', 'none', '--', 'sh', '-c', 'echo after-tamper']);
    expect(JSON.parse(res.stdout).stdout.text).toBe('after-tamper\n');
    expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(koffiHash);
  });

  it('refuses a cache directory under a path others can write (not sticky): exit 125, names the fix', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'cordon-ww-'));
    chmodSync(shared, 0o777);
    const res = await exec(['doctor'], { extraEnv: { XDG_CACHE_HOME: shared } });
    expect(res.stdout + res.stderr).toMatch(/writable by others — set XDG_CACHE_HOME/);
    expect(readdirSync(shared)).toEqual([]); // nothing was written there
    rmSync(shared, { recursive: true, force: true });
  });

  it('runs a command without a sandbox', async () => {
    const res = await exec(['--backend', 'none', '--', 'sh', '-c', 'echo plain']);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('plain\n');
  });

  it.runIf(hasBwrap)(
    'runs a command under bubblewrap: writes in cwd land, writes outside do not',
    async () => {
      const cwd = makeTempDir();
      const outside = makeTempDir();
      const res = await exec(
        ['--json', '--', 'sh', '-c', `echo in > in.txt; echo out > ${outside}/out.txt; cat in.txt`],
        { cwd },
      );
      const result = JSON.parse(res.stdout) as {
        backend: string;
        stdout: { text: string };
        exitStatus: number;
      };
      expect(result.backend).toBe('bwrap');
      expect(result.stdout.text).toBe('in\n');
      expect(readFileSync(join(cwd, 'in.txt'), 'utf8')).toBe('in\n');
      expect(existsSync(join(outside, 'out.txt'))).toBe(false);
    },
  );

  it.runIf(hasBwrap)(
    'the extracted module is read-only inside the sandbox (cwd is not above it)',
    async () => {
      const cwd = makeTempDir();
      const file = join(nativeDir(home), `koffi-${koffiHash.slice(0, 32)}.node`);
      const res = await exec(['--json', '--', 'sh', '-c', `echo x > ${file} || echo denied`], { cwd });
      expect(JSON.parse(res.stdout).stdout.text).toContain('denied');
      expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(koffiHash);
    },
  );

  it.runIf(isRoot && hasBwrap)('works as an unprivileged user with its own HOME', async () => {
    const userHome = join(work, 'home-65534');
    mkdirSync(userHome, { mode: 0o755 });
    const { chownSync } = await import('node:fs');
    chownSync(userHome, 65534, 65534);
    const project = join(userHome, 'project');
    mkdirSync(project, { mode: 0o755 });
    chownSync(project, 65534, 65534);
    const res = await new Promise<Outcome>((resolve) => {
      execFile(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', '--', exe, '--json', '--', 'id', '-u'],
        // A project under home (a run from home itself is refused: it would make ~ writable).
        { cwd: project, env: { PATH: pathDir, HOME: userHome, LANG: 'C.UTF-8' } },
        (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
    });
    expect(JSON.parse(res.stdout).stdout.text).toBe('65534\n');
    const dir = nativeDir(userHome);
    expect(statSync(dir).uid).toBe(65534);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });
});
