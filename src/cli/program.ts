// The commander definitions of `cordon [run]`, `cordon explain` and `cordon doctor`.
// exitOverride everywhere: commander's usage errors become CordonError (exit 125), never its
// own exit(1). Dispatch on the first word is done by hand so `cordon -- explain` runs a
// command called explain.
import { Command, CommanderError, Option } from 'commander';
import { CordonError } from '../errors.ts';
import type { RawFlags } from './flags.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

export function addRunOptions(cmd: Command): Command {
  return cmd
    .option('-t, --timeout <duration>', 'kill the command after this long (500ms, 30s, 10m, 1h); exit 124')
    .option('--max-output <size>', 'combined stdout+stderr budget (64KiB default, 1MiB, 0 = unlimited)')
    .option('--json', 'print one JSON result object on stdout')
    .option('--no-stream', 'text mode: print the bounded output when the command ends instead of as it runs')
    .option(
      '--report <file>',
      'write the JSON result to FILE (0600) when the command starts and when it ends',
    )
    .option('--cwd <dir>', 'run the command in DIR (also what {cwd} means)')
    .option('-q, --quiet', 'no metadata line')
    .option('-v, --verbose', 'details: policy, backend choice, every annotation')
    .option('--backend <name>', 'auto (default), bwrap, landlock, seatbelt, windows, or none (no sandbox)')
    .option(
      '-p, --profile <name|file>',
      'built-in profile (workspace, read-only, strict) or a YAML/JSON file',
    )
    .option('--read <path>', 'allow reading PATH (repeatable)', collect, [])
    .option('--write <path>', 'allow writing PATH (repeatable)', collect, [])
    .option('--deny <path>', 'deny all access to PATH (repeatable)', collect, [])
    .option('--changes', 'report what the command created, modified and deleted under the writable roots')
    .option('--net', 'allow network access')
    .option('--no-net', 'deny network access (the default profiles already do)')
    .option(
      '--env <name[=value]>',
      'keep NAME even if it looks like a credential, or set NAME=VALUE (repeatable)',
      collect,
      [],
    )
    .option('--clear-env', 'start from an empty environment but for PATH, HOME, LANG, TERM, TMPDIR')
    .option(
      '--best-effort',
      'enforce what the backend can and list the rules it cannot, instead of refusing',
    );
}

export interface ParsedCommand {
  readonly kind: 'run' | 'explain' | 'doctor' | 'cache' | 'help' | 'version';
  readonly flags: RawFlags;
  readonly command: string[];
  readonly helpText?: string;
}

function configure(cmd: Command): Command {
  return cmd
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} })
    .helpOption('-h, --help', 'show help')
    .allowExcessArguments(true)
    .passThroughOptions();
}

function toCordonError(error: unknown): never {
  if (error instanceof CommanderError) {
    const message = error.message.replace(/^error: /, '');
    throw new CordonError('bad-flag', `${message} — see cordon --help`);
  }
  throw error;
}

export function parseArgv(argv: readonly string[], version: string): ParsedCommand {
  const first = argv[0];
  if (first === '--version' || first === '-V')
    return { kind: 'version', flags: {}, command: [], helpText: version };
  let kind: 'run' | 'explain' | 'doctor' | 'cache' = 'run';
  let rest = argv;
  if (first === 'run' || first === 'explain' || first === 'doctor' || first === 'cache') {
    kind = first;
    rest = argv.slice(1);
  }
  const cmd = configure(new Command(kind === 'run' ? 'cordon' : `cordon ${kind}`));
  if (kind === 'cache') {
    cmd
      .option('--json', 'print as JSON')
      .option('--cwd <dir>', "which directory's entry to name (default: the current one)")
      .argument('[action]', 'clear: empty the sandbox cache')
      .description("where the sandbox cache lives and its size; 'cordon cache clear' empties it");
  } else if (kind === 'doctor') {
    cmd
      .option('--json', 'print the findings as JSON')
      .description('which backends can enforce which parts of a policy here, and how to fix what is missing');
  } else {
    addRunOptions(cmd).argument('[command...]', 'the command and its arguments, after --');
    if (kind === 'explain') {
      cmd
        .description('print the resolved rules, the backend choice and the full plan; runs nothing')
        .addOption(
          new Option('--platform <os>', 'build the plan another OS would get').choices([
            'linux',
            'darwin',
            'win32',
          ]),
        );
    } else {
      cmd.description('run a command inside the operating system sandbox');
      cmd.usage(
        '[run] [options] -- COMMAND [ARGS...]\n       cordon explain [options] -- COMMAND [ARGS...]\n       cordon doctor [--json]\n       cordon cache [clear] [--json]',
      );
    }
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    const dashdash = rest.indexOf('--');
    const helpIdx = Math.max(rest.indexOf('-h'), rest.indexOf('--help'));
    if (dashdash === -1 || helpIdx < dashdash)
      return { kind: 'help', flags: {}, command: [], helpText: cmd.helpInformation() };
  }
  try {
    cmd.parse([...rest], { from: 'user' });
  } catch (error) {
    toCordonError(error);
  }
  const flags = cmd.opts() as RawFlags;
  const command = [...cmd.args];
  if (kind === 'doctor' && command.length > 0) {
    throw new CordonError(
      'bad-flag',
      `cordon doctor takes no command (got '${command[0]}') — use cordon explain -- COMMAND`,
    );
  }
  if (kind === 'cache' && command.length > 0 && (command.length > 1 || command[0] !== 'clear')) {
    throw new CordonError(
      'bad-flag',
      `unknown cache action '${command.join(' ')}' — use cordon cache or cordon cache clear`,
    );
  }
  return { kind, flags, command };
}
