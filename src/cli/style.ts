// Colour for cordon's own metadata line: chalk only when stderr is a TTY and NO_COLOR is unset.
import chalk from 'chalk';

export function styleMeta(line: string, color: boolean): string {
  return color ? chalk.dim(line) : line;
}
