// The commander definitions of `cordon [run]`, `cordon explain` and `cordon doctor`; the run
// flags come from the one flag table (flag-table.ts).
// exitOverride everywhere: commander's usage errors become CordonError (exit 125), never its
// own exit(1). Dispatch on the first word is done by hand so `cordon -- explain` runs a
// command called explain.
import { Command, CommanderError, Option } from 'commander';
import { CordonError } from '../errors.ts';
import { FLAG_TABLE, type FlagSpec, type RawFlags } from './flag-table.ts';

const collect = (value: string, previous: string[]) => [...previous, value];

export function addRunOptions(cmd: Command): Command {
  for (const spec of Object.values(FLAG_TABLE) as FlagSpec[]) {
    if (spec.kind === 'list') cmd.option(spec.spelling, spec.help, collect, []);
    else cmd.option(spec.spelling, spec.help);
    if (spec.negatable) cmd.option(`--no-${spec.spelling.replace(/^--/, '')}`, spec.negatable);
  }
  return cmd;
}

export interface ParsedCommand {
  readonly kind: 'run' | 'explain' | 'doctor' | 'cache' | 'help' | 'version' | 'completion' | 'man';
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

/**
 * Words that look like a cordon subcommand but are not one. Without `--` they are refused
 * rather than run as a program (`cordon init` would run /sbin/init, `cordon help` a program
 * named help); after `--` they are the command like any other word.
 */
export const RESERVED_WORDS = ['help', 'version', 'init', 'config', 'setup', 'update', 'upgrade'];

export function parseArgv(argv: readonly string[], version: string): ParsedCommand {
  const first = argv[0];
  if (first !== undefined && RESERVED_WORDS.includes(first)) {
    const hint =
      first === 'help'
        ? 'for help run cordon --help'
        : first === 'version'
          ? 'for the version run cordon --version'
          : `cordon has no '${first}' command`;
    throw new CordonError(
      'bad-flag',
      `'${first}' is reserved: ${hint}; to run a program named ${first}, put it after --: cordon -- ${first}`,
    );
  }
  // Generated from the flag table (completion.ts); after -- they are a command like any other.
  if (first === 'completion' || first === 'man') return parseGenerated(first, argv.slice(1));
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
        '[run] [options] -- COMMAND [ARGS...]\n       cordon explain [options] -- COMMAND [ARGS...]\n       cordon doctor [--json]\n       cordon cache [clear] [--json]\n       cordon completion bash|zsh|fish\n       cordon man',
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

function parseGenerated(kind: 'completion' | 'man', rest: readonly string[]): ParsedCommand {
  const wanted = kind === 'completion' ? 1 : 0;
  if (rest.includes('-h') || rest.includes('--help'))
    return {
      kind: 'help',
      flags: {},
      command: [],
      helpText:
        kind === 'completion'
          ? 'Usage: cordon completion bash|zsh|fish\n\nprint a shell completion script generated from the flag table, e.g.\n  cordon completion bash > ~/.local/share/bash-completion/completions/cordon\n'
          : 'Usage: cordon man\n\nprint the man page (roff), e.g. cordon man | man -l -\n',
    };
  if (rest.length > wanted || rest.some((a) => a.startsWith('-')))
    throw new CordonError(
      'bad-flag',
      `cordon ${kind} takes ${kind === 'completion' ? 'one shell name' : 'no arguments'} (got '${rest.join(' ')}') — ${kind === 'completion' ? 'e.g. cordon completion bash' : 'run cordon man'}`,
    );
  return { kind, flags: {}, command: [...rest] };
}
