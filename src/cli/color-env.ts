// Colours when the user would see them. The command never gets a terminal (its stdout and
// stderr are pipes cordon reads), so test runners and compilers print plain text even when
// cordon's own output is a terminal. When it is — and the user has not asked for no colour —
// the command gets the conventional "colour anyway" hints: FORCE_COLOR (supports-color, chalk,
// Node's own util, vitest, jest, mocha, pytest ≥ 8) and CLICOLOR_FORCE (BSD tools, CMake, …).
// A variable the user set (even empty) is left alone. What reaches the terminal still goes
// through the terminal-safe filter, which passes SGR colour sequences. Pure.

export interface ColorContext {
  /** cordon's stdout or stderr is a terminal (where the command's output will be shown). */
  readonly terminal: boolean;
  /** --json or --report: the output goes into a document, not onto a terminal. */
  readonly document: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export const COLOR_HINTS = { FORCE_COLOR: '1', CLICOLOR_FORCE: '1' } as const;

export function colorHints(ctx: ColorContext): Record<string, string> {
  if (!ctx.terminal || ctx.document) return {};
  const noColor = ctx.env['NO_COLOR'];
  if (noColor !== undefined && noColor !== '') return {};
  const hints: Record<string, string> = {};
  for (const [name, value] of Object.entries(COLOR_HINTS))
    if (ctx.env[name] === undefined) hints[name] = value;
  return hints;
}
