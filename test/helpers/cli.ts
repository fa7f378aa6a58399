// Runs the real built CLI (bin/cordon) as a child process, optionally as another user via
// setpriv, and returns its exit status and output. Never a shell string.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';

export const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
export const CORDON = join(ROOT, 'bin/cordon');
/**
 * CORDON_TEST_EXE=/path/to/cordon-linux-x64 runs the same tests against a single executable
 * (npm run test:dist): it is started directly, without Node.
 */
export const CORDON_EXE = process.env['CORDON_TEST_EXE'];

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Run as this uid/gid through setpriv (tests of the unprivileged path). */
  asUid?: number | undefined;
  stdin?: 'pipe' | 'ignore';
  timeoutMs?: number;
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const argv = CORDON_EXE ? [CORDON_EXE, ...args] : [process.execPath, CORDON, ...args];
  const full =
    options.asUid !== undefined
      ? ['setpriv', `--reuid=${options.asUid}`, `--regid=${options.asUid}`, '--clear-groups', '--', ...argv]
      : argv;
  return new Promise((resolve, reject) => {
    const child = spawn(full[0]!, full.slice(1), {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'] ?? '/root',
        LANG: 'C.UTF-8',
      },
      stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 50_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

/** A fresh directory that uid 65534 can use too (mode 0777 on the way down). */
export function makeTempDir(prefix = 'cordon-test-', parent = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(parent, prefix)));
  chmodSync(dir, 0o777);
  return dir;
}

export const isLinux = process.platform === 'linux';
export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Why uid 65534 cannot run the Node these tests run on (a Node under /root, mode 0700), or
 * undefined when it can. setpriv keeps root's capabilities up to its own exec, so cordon
 * itself would still start as 65534, but the Node it re-runs (the Landlock helper) and any
 * `node` the sandboxed command starts would not: such lanes are skipped, with this reason as
 * the skipped test's name.
 */
export const NOBODY_CANNOT_RUN_NODE: string | undefined = (() => {
  if (!isLinux || !isRoot) return undefined;
  const probe = spawnSync(
    'setpriv',
    [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--',
      '/bin/sh',
      '-c',
      'test -x "$1"',
      'sh',
      process.execPath,
    ],
    { stdio: 'ignore' },
  );
  return probe.status === 0
    ? undefined
    : `skipped: uid 65534 cannot execute ${process.execPath}; install Node where other users can read it (not under /root) to run this lane`;
})();

/** The users a battery runs as: root and uid 65534 when both can run this Node, else root. */
export const BATTERY_USERS: [string, number | undefined][] = [
  ['root', undefined],
  ...(NOBODY_CANNOT_RUN_NODE ? [] : ([['uid 65534', 65534]] as [string, number][])),
];

/** When uid 65534 cannot run this Node, one skipped test named with the reason stands for its lane. */
export function skippedNobodyLane(title: string, applies: boolean): void {
  const reason = NOBODY_CANNOT_RUN_NODE;
  if (reason && applies) describe(title, () => it.skip(reason, () => {}));
}

/** bubblewrap can create its user namespace here (a real sandbox test can run). */
export const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
