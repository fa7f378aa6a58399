// Shell completion (bash, zsh, fish) and the man page, generated from the one flag table
// (flag-table.ts), so a flag added there is completed and documented without another edit.
// `cordon completion SHELL` and `cordon man` print them; the build writes them into dist/.
// Pure: text in, text out.
import { CordonError } from '../errors.ts';
import { FLAG_TABLE, type FlagSpec } from './flag-table.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export const SUBCOMMANDS: readonly [string, string][] = [
  ['run', 'run a command inside the sandbox (the default)'],
  ['explain', 'print the resolved rules, the backend choice and the plan; runs nothing'],
  ['doctor', 'which backends can enforce which parts of a policy here'],
  ['cache', "the sandbox cache; 'cache clear' empties it"],
  ['completion', 'print a shell completion script: bash, zsh or fish'],
  ['man', 'print the man page (roff)'],
];

interface Flag {
  readonly short: string | undefined;
  readonly long: string;
  readonly value: string | undefined;
  readonly help: string;
  /** Fixed values a completion offers, or 'path' for file names. */
  readonly values: readonly string[] | 'path' | undefined;
}

const VALUES: Record<string, readonly string[] | 'path'> = {
  backend: ['auto', 'bwrap', 'landlock', 'seatbelt', 'windows', 'none'],
  signal: ['TERM', 'INT', 'HUP', 'QUIT', 'USR1', 'USR2', 'ALRM', 'KILL'],
  profile: ['workspace', 'read-only', 'strict'],
  read: 'path',
  write: 'path',
  deny: 'path',
  allowUnix: 'path',
  envFile: 'path',
  report: 'path',
  cwd: 'path',
};

/** The table's flags, parsed from commander's spelling, plus --no-net and --help/--version. */
export function flagList(): Flag[] {
  const out: Flag[] = [];
  for (const [name, spec] of Object.entries(FLAG_TABLE) as [string, FlagSpec][]) {
    const m = /^(?:(-\w), )?(--[\w-]+)(?: <([^>]+)>)?$/.exec(spec.spelling);
    if (!m) throw new Error(`flag table: cannot read spelling '${spec.spelling}'`);
    out.push({ short: m[1], long: m[2]!, value: m[3], help: spec.help, values: VALUES[name] });
    if (spec.negatable)
      out.push({
        short: undefined,
        long: `--no-${m[2]!.slice(2)}`,
        value: undefined,
        help: spec.negatable,
        values: undefined,
      });
  }
  out.push(
    { short: '-h', long: '--help', value: undefined, help: 'show help', values: undefined },
    { short: '-V', long: '--version', value: undefined, help: 'print the version', values: undefined },
  );
  return out;
}

function bash(): string {
  const flags = flagList();
  const words = flags.flatMap((f) => (f.short ? [f.short, f.long] : [f.long])).join(' ');
  const cases = flags
    .filter((f) => f.value !== undefined)
    .map((f) => {
      const pat = f.short ? `${f.short}|${f.long}` : f.long;
      const body =
        f.values === 'path'
          ? 'COMPREPLY=($(compgen -f -- "$cur"))'
          : Array.isArray(f.values)
            ? `COMPREPLY=($(compgen -W '${f.values.join(' ')}' -- "$cur"))`
            : 'COMPREPLY=()';
      return `    ${pat}) ${body}; return ;;`;
    })
    .join('\n');
  return `# bash completion for cordon (generated from the flag table: cordon completion bash)
_cordon() {
  local cur prev i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "\${COMP_WORDS[i]}" == "--" ]]; then
      COMPREPLY=($(compgen -c -- "$cur"))
      return
    fi
  done
  if [[ $COMP_CWORD -eq 2 && "\${COMP_WORDS[1]}" == "completion" ]]; then
    COMPREPLY=($(compgen -W '${SHELLS.join(' ')}' -- "$cur"))
    return
  fi
  case "$prev" in
${cases}
  esac
  if [[ $COMP_CWORD -eq 1 && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W '${SUBCOMMANDS.map(([n]) => n).join(' ')} --' -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W '${words} --' -- "$cur"))
}
complete -o default -F _cordon cordon
`;
}

/** Text inside zsh's [...] or fish's quotes: no brackets, colons or quotes that would end it. */
function zshText(text: string): string {
  return text.replace(/[[\]:'\\]/g, (c) => (c === "'" ? "'\\''" : `\\${c}`));
}

function zsh(): string {
  const specs = flagList().map((f) => {
    const action =
      f.value === undefined
        ? ''
        : f.values === 'path'
          ? `:${f.value}:_files`
          : Array.isArray(f.values)
            ? `:${f.value}:(${f.values.join(' ')})`
            : `:${f.value}: `;
    const names = f.short ? `{${f.short},${f.long}}` : f.long;
    const repeat = f.values === 'path' && f.long !== '--cwd' && f.long !== '--report' ? '*' : '';
    return `    ${repeat}${names}'[${zshText(f.help)}]${action}'`;
  });
  return `#compdef cordon
# zsh completion for cordon (generated from the flag table: cordon completion zsh)
_cordon() {
  local -a subcommands
  subcommands=(
${SUBCOMMANDS.map(([n, d]) => `    '${n}:${zshText(d)}'`).join('\n')}
  )
  if (( CURRENT == 3 )) && [[ \${words[2]} == completion ]]; then
    _values shell ${SHELLS.join(' ')}
    return
  fi
  _arguments -s -S \\
${specs.join(' \\\n')} \\
    '1: :{_describe command subcommands}' \\
    '*:: :_normal'
}
_cordon "$@"
`;
}

function fishText(text: string): string {
  return text.replace(/[\\']/g, (c) => `\\${c}`);
}

function fish(): string {
  const lines = flagList().map((f) => {
    const parts = ['complete -c cordon -n "not __fish_seen_argument -- --"'];
    if (f.short) parts.push(`-s ${f.short.slice(1)}`);
    parts.push(`-l ${f.long.slice(2)}`);
    if (f.value !== undefined) parts.push(f.values === 'path' ? '-r -F' : '-x');
    if (Array.isArray(f.values)) parts.push(`-a '${f.values.join(' ')}'`);
    parts.push(`-d '${fishText(f.help)}'`);
    return parts.join(' ');
  });
  const subs = SUBCOMMANDS.map(
    ([n, d]) => `complete -c cordon -n "__fish_use_subcommand" -f -a ${n} -d '${fishText(d)}'`,
  );
  return `# fish completion for cordon (generated from the flag table: cordon completion fish)
${subs.join('\n')}
complete -c cordon -n "__fish_seen_subcommand_from completion" -f -a '${SHELLS.join(' ')}'
${lines.join('\n')}
`;
}

export function parseShell(value: string | undefined): Shell {
  if (value !== undefined && (SHELLS as readonly string[]).includes(value)) return value as Shell;
  throw new CordonError(
    'bad-flag',
    `${value === undefined ? 'no shell given' : `unknown shell '${value}'`} for cordon completion — use one of ${SHELLS.join(', ')}, e.g. cordon completion bash`,
  );
}

export function renderCompletion(shell: Shell): string {
  return shell === 'bash' ? bash() : shell === 'zsh' ? zsh() : fish();
}

/** roff text: a leading dot or quote is escaped, backslashes doubled, hyphens in flags kept. */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1');
}

export function renderManPage(version: string): string {
  const flags = flagList()
    .map((f) => {
      const names = [f.short, f.long]
        .filter(Boolean)
        .map((n) => `\\fB${roff(n!)}\\fR`)
        .join(', ');
      const value = f.value ? ` \\fI${roff(f.value)}\\fR` : '';
      return `.TP\n${names}${value}\n${roff(f.help)}`;
    })
    .join('\n');
  const subs = SUBCOMMANDS.map(([n, d]) => `.TP\n\\fB${n}\\fR\n${roff(d)}`).join('\n');
  return `.\\" Generated from cordon's flag table (cordon man); do not edit.
.TH CORDON 1 "" "cordon ${roff(version)}" "User Commands"
.SH NAME
cordon \\- run a command inside the operating system's own sandbox
.SH SYNOPSIS
\\fBcordon\\fR [\\fBrun\\fR] [\\fIoptions\\fR] \\fB\\-\\-\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]
.br
\\fBcordon explain\\fR [\\fIoptions\\fR] \\fB\\-\\-\\fR \\fICOMMAND\\fR [\\fIARGS\\fR...]
.br
\\fBcordon doctor\\fR [\\fB\\-\\-json\\fR]
.br
\\fBcordon cache\\fR [\\fBclear\\fR] [\\fB\\-\\-json\\fR]
.br
\\fBcordon completion\\fR \\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR
.SH DESCRIPTION
cordon runs \\fICOMMAND\\fR under one filesystem policy (paths with read, write or no access;
the deepest rule wins) and a network switch, enforced by the operating system's sandbox:
bubblewrap or Landlock on Linux, Seatbelt on macOS, a restricted token on Windows.
The command reads /dev/null; its output is bounded; the exit status is the command's.
.SH COMMANDS
${subs}
.SH OPTIONS
${flags}
.SH ENVIRONMENT
.TP
\\fBCORDON_PROFILE\\fR, \\fBCORDON_BACKEND\\fR, \\fBCORDON_TIMEOUT\\fR, \\fBCORDON_KILL_AFTER\\fR, \\fBCORDON_SIGNAL\\fR, \\fBCORDON_MAX_OUTPUT\\fR
Defaults for \\fB\\-\\-profile\\fR, \\fB\\-\\-backend\\fR (never \\fBnone\\fR), \\fB\\-\\-timeout\\fR, \\fB\\-\\-kill\\-after\\fR, \\fB\\-\\-signal\\fR and \\fB\\-\\-max\\-output\\fR; a flag wins.
.SH FILES
.TP
\\fI$XDG_CONFIG_HOME/cordon/config.yaml\\fR (default \\fI~/.config/cordon/config.yaml\\fR)
The same defaults as a file (keys profile, backend, timeout, kill\\-after, signal, max\\-output); the
environment and the flags win over it. Read\\-only to every sandboxed command. No per\\-project file is read.
.SH EXIT STATUS
The command's own status; 124 on a timeout; 125 when cordon refuses (bad input, a policy the
backend cannot enforce) and runs nothing; 126 not executable; 127 not found; 128+N killed by signal N.
.SH SEE ALSO
\\fBbwrap\\fR(1), \\fBsandbox\\-exec\\fR(1), \\fBlandlock\\fR(7), \\fBtimeout\\fR(1)
`;
}
