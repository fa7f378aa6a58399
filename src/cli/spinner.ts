// An ora spinner on stderr while the command runs (TTY only, never with --json). Output is
// buffered until the end, so the spinner never interleaves with the command's own text; it
// is cleared before anything is printed.
import ora from 'ora';
import { formatBytes, formatDuration } from '../options/parse-units.ts';

export function startSpinner(): { update(bytes: number): void; stop(): void } {
  const started = Date.now();
  let bytes = 0;
  // NO_COLOR (any value): the spinner glyph is plain too, like the metadata line.
  const plain = process.env['NO_COLOR'] !== undefined && process.env['NO_COLOR'] !== '';
  const spinner = ora({
    stream: process.stderr,
    discardStdin: false,
    hideCursor: false,
    ...(plain ? { color: false as const } : {}),
  }).start('running');
  const timer = setInterval(() => {
    spinner.text = `running ${formatDuration(Math.floor((Date.now() - started) / 1000) * 1000)} · ${formatBytes(bytes)} of output`;
  }, 250);
  timer.unref();
  return {
    update(seen: number) {
      bytes = seen;
    },
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
