// One line for a profile (or config) file that does not parse: where (line and column, for
// YAML and JSON alike), what the parser said, and the fix. The yaml package's message ends in
// "at line N, column M:" followed by a code excerpt on later lines; JSON.parse names a
// character offset (Node 22) or an offset and a line (Node 24). Pure.

export interface SyntaxProblem {
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly reason: string;
}

/** Line and column (1-based) of a character offset in `text`. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

export function describeSyntaxError(error: unknown, text: string, json: boolean): SyntaxProblem {
  const raw = error instanceof Error ? error.message : String(error);
  let reason = (raw.split('\n')[0] ?? '').trim();
  let line: number | undefined;
  let column: number | undefined;
  const linePos = (error as { linePos?: { line: number; col: number }[] } | undefined)?.linePos;
  if (linePos?.[0]) {
    line = linePos[0].line;
    column = linePos[0].col;
  }
  // The yaml package: "… at line 4, column 1:" (the excerpt is on the following lines).
  const yamlAt = / at line (\d+), column (\d+):?\s*$/.exec(reason);
  if (yamlAt) {
    line ??= Number(yamlAt[1]);
    column ??= Number(yamlAt[2]);
    reason = reason.slice(0, yamlAt.index);
  }
  if (json) {
    const pos = / in JSON at position (\d+)(?: \(line \d+ column \d+\))?/.exec(reason);
    if (pos) {
      ({ line, column } = lineColumnOf(text, Number(pos[1])));
      reason = reason.slice(0, pos.index) + reason.slice(pos.index + pos[0].length);
    } else if (/end of JSON input/i.test(reason)) {
      ({ line, column } = lineColumnOf(text, text.length));
    }
  }
  return { line, column, reason: reason.replace(/[.:\s]+$/, '') };
}

/** "not valid YAML at line 4, column 1: <reason> — fix the syntax there". */
export function syntaxMessage(error: unknown, text: string, json: boolean): string {
  const p = describeSyntaxError(error, text, json);
  const at = p.line !== undefined ? ` at line ${p.line}, column ${p.column ?? 1}` : '';
  return `not valid ${json ? 'JSON' : 'YAML'}${at}: ${p.reason} — fix the syntax there`;
}
