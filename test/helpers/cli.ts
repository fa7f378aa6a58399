// Runs the real built CLI (bin/cordon) as a child process, optionally as another user via
// setpriv, and returns its exit status and output. Never a shell string.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
