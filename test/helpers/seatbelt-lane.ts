// Shared by the macOS lane files (test/sandbox/seatbelt*.test.ts): the real CLI under a
// controlled environment, and which optional tools the Mac has (a missing one is a visible
// skip, never a pass).
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, makeTempDir, runCli } from './cli.ts';

export const isDarwin = process.platform === 'darwin';

export const LANE_ENV: Record<string, string> = {
  PATH: '/usr/bin:/bin:/usr/sbin:/sbin',
  HOME: process.env['HOME'] ?? '/tmp',
  TMPDIR: process.env['TMPDIR'] ?? tmpdir(),
  LANG: 'en_US.UTF-8',
};

/** `cordon FLAGS -- /bin/sh -c SCRIPT` in `cwd`; `env` replaces entries of LANE_ENV. */
export function cordonSh(
  cwd: string,
  flags: readonly string[],
  script: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runCli([...flags, '--', '/bin/sh', '-c', script], { cwd, env: { ...LANE_ENV, ...env } });
}

/** A profile file extending a built-in one with extra top-level YAML. */
export function profileFile(yaml: string): string {
  const path = join(makeTempDir('cordon-sb-prof-'), 'p.yaml');
  writeFileSync(path, yaml);
  return path;
}

function runs(file: string, args: readonly string[]): boolean {
  if (!isDarwin || !existsSync(file)) return false;
  try {
    execFileSync(file, args, { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** /usr/bin/python3 is a stub that offers to install the tools until they are installed. */
export const hasPython = runs('/usr/bin/python3', ['-c', '0']);

/** Whether this build's CLI has the explicit unix-socket flag (the hardening issue adds it). */
export async function cliHasAllowUnix(): Promise<boolean> {
  if (!isDarwin) return false;
  const r = await runCli(['--help'], { env: LANE_ENV });
  return r.stdout.includes('--allow-unix');
}
