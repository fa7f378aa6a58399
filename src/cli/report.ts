// --report FILE: the JSON result written atomically (temp file in the same directory, mode
// 0600, then rename) once when the command starts, with status "running", and again when it
// ends, so a report left by a killed cordon still says the command may have run.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CordonError } from '../errors.ts';

export function writeReport(file: string, value: unknown): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', 0o600);
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(tmp, { force: true });
    throw new CordonError(
      'report-failed',
      `cannot write --report file '${file}': ${(error as NodeJS.ErrnoException).code ?? String(error)} — check that its directory exists and is writable`,
    );
  }
}
