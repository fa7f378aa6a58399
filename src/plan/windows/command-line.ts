// argv → one Windows command line. Windows passes a single string; the child's C runtime
// (or CommandLineToArgvW) splits it. Programs: quoted so that the MSVCRT / CommandLineToArgvW
// rules give back exactly the argv cordon was handed. Batch files (.bat/.cmd) run through
// cmd.exe, which expands %VAR% and treats & | < > ^ ( ) as operators even inside quotes:
// arguments carrying those characters are refused (125) rather than escaped by guesswork.
import { CordonError } from '../../errors.ts';

/** CreateProcess limit: 32,767 UTF-16 units including the terminating NUL. */
export const MAX_COMMAND_LINE = 32_766;

/** Characters cmd.exe gives a meaning to inside a batch file's arguments. */
const CMD_UNSAFE = /["%!^&|<>()\r\n\0]/;

/** Whether a program name names a batch file (run by cmd.exe). */
export function isBatchFile(program: string): boolean {
  return /\.(bat|cmd)$/i.test(program.trim().replace(/[. ]+$/, ''));
}

/**
 * One argument (not the first) quoted by the MSVCRT rules: left bare when it has no blank and
 * no quote; otherwise wrapped in quotes, with a backslash run doubled when it precedes a quote
 * (its own or the closing one) and each inner quote escaped.
 */
export function quoteWindowsArg(arg: string): string {
  if (arg.includes('\0'))
    throw new CordonError(
      'bad-command',
      `argument contains a NUL character: ${JSON.stringify(arg)} — a Windows command line cannot carry it`,
    );
  if (arg.length > 0 && !/[ \t\n\v"]/.test(arg)) return arg;
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    if (ch === '"') out += `${'\\'.repeat(backslashes * 2 + 1)}"`;
    else out += '\\'.repeat(backslashes) + ch;
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}

/**
 * The first token follows its own rule: it ends at the next blank, or, when it starts with a
 * quote, at the next quote — backslashes escape nothing. So it cannot hold a quote at all.
 */
export function quoteProgramName(program: string): string {
  if (program.includes('"') || program.includes('\0'))
    throw new CordonError(
      'bad-command',
      `program name ${JSON.stringify(program)} contains a quote or NUL — Windows cannot pass it as the first token of a command line; rename the file or call it through a path without quotes`,
    );
  return program.length === 0 || /[ \t\n\v]/.test(program) ? `"${program}"` : program;
}

function checkLength(line: string): string {
  if (line.length > MAX_COMMAND_LINE)
    throw new CordonError(
      'bad-command',
      `command line is ${line.length} characters — Windows allows ${MAX_COMMAND_LINE}; pass long inputs through a file`,
    );
  return line;
}

/** argv → lpCommandLine for a program parsed by the MSVCRT rules. */
export function buildCommandLine(argv: readonly string[]): string {
  if (argv.length === 0) throw new CordonError('missing-command', 'no command given');
  return checkLength([quoteProgramName(argv[0]!), ...argv.slice(1).map(quoteWindowsArg)].join(' '));
}

/**
 * A batch file's command line, for cmd.exe as the application:
 *   cmd.exe /d /e:ON /v:OFF /s /c ""SCRIPT" ARG..."
 * /d skips AutoRun registry commands, /v:OFF turns delayed !VAR! expansion off, /s makes cmd
 * strip exactly the outer quote pair. Arguments may not hold cmd metacharacters (refused);
 * those with blanks or cmd's own separators (, ; =) are wrapped in quotes.
 */
export function buildBatchCommandLine(comspec: string, script: string, args: readonly string[]): string {
  for (const arg of [script, ...args]) {
    if (CMD_UNSAFE.test(arg)) {
      throw new CordonError(
        'bad-command',
        `argument ${JSON.stringify(arg)} to the batch file '${script}' contains a character cmd.exe interprets (" % ! ^ & | < > ( ) or a line break) — cordon will not guess cmd's escaping; run 'cmd.exe /d /s /c "<line>"' yourself and own the quoting, or call the program the batch file wraps`,
      );
    }
  }
  const quoteForCmd = (a: string) => (a.length === 0 || /[ \t,;=]/.test(a) ? `"${a}"` : a);
  const inner = [`"${script}"`, ...args.map(quoteForCmd)].join(' ');
  return checkLength(`${quoteProgramName(comspec)} /d /e:ON /v:OFF /s /c "${inner}"`);
}
