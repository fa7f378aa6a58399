// The Landlock helper process (dist/landlock-exec.js): confines itself, then becomes the
// command with execve(2) through koffi (not process.execve: that aborts on failure and leaves
// SIGPIPE ignored in the command). argv: SPEC_JSON -- COMMAND [ARG ...]. The command's
// environment arrives encoded in CORDON_LANDLOCK_ENV_<n>, the helper's only variables (see
// launch.ts), so no NODE_OPTIONS of the command reaches this Node and no secret is in argv.
import { accessSync, constants, statSync, writeFileSync, writeSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import {
  type ConfineSpec,
  confineThisThread,
  execveCommand,
  exitImmediately,
  setParentDeathSignal,
} from '../../native/landlock.ts';
import { decodeHelperEnv } from './helper-env.ts';

const SIGKILL = 9;
const ERRNO_NAMES: Record<number, string> = { 2: 'ENOENT', 8: 'ENOEXEC', 13: 'EACCES', 21: 'EISDIR' };

let confined = false;

function die(message: string, code: number): never {
  writeSync(2, `${message}\n`);
  // Once confined, Node's own exit path would meet the baseline filter (io_uring refused).
  if (confined) exitImmediately(code);
  process.exit(code);
}

function resolveCommand(name: string, pathVar: string | undefined): string | undefined {
  if (name.includes('/')) return isAbsolute(name) ? name : resolve(name);
  for (const dir of (pathVar ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function main(argv: readonly string[]): void {
  if (argv.length < 3 || argv[1] !== '--')
    die(
      'cordon-landlock: usage: landlock-exec SPEC -- COMMAND... (environment in CORDON_LANDLOCK_ENV_*)',
      125,
    );
  const spec = JSON.parse(argv[0]!) as ConfineSpec;
  const env = decodeHelperEnv(process.env);
  const command = argv.slice(2);
  setParentDeathSignal(SIGKILL);
  if (spec.cgroupProcs) {
    try {
      writeFileSync(spec.cgroupProcs, '0');
    } catch (error) {
      // Not confinement, only cleanup: say so and go on (the CLI's subreaper sweep remains).
      writeSync(
        2,
        `cordon-landlock: could not join the run's cgroup (${(error as Error).message}): processes the command leaves behind are not guaranteed to be killed\n`,
      );
    }
  }
  try {
    confined = true;
    confineThisThread(spec);
  } catch (error) {
    die(`cordon-landlock: could not apply the Landlock ruleset: ${(error as Error).message}`, 125);
  }
  const file = resolveCommand(command[0]!, env['PATH']);
  if (!file) die(`cordon-landlock: execve ${command[0]}: ENOENT`, 127);
  const errno = execveCommand(file, command, env);
  const code = ERRNO_NAMES[errno] ?? `errno ${errno}`;
  die(`cordon-landlock: execve ${file}: ${code}`, code === 'ENOENT' ? 127 : 126);
}

main(process.argv.slice(2));
