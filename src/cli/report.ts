// --report FILE: the JSON result written atomically (temp file in the same directory, mode
// 0600, then rename) once when the command starts, with status "running", and again when it
// ends, so a report left by a killed cordon still says the command may have run.
// On Linux the report's directory is opened once, before the command starts, component by
// component without following symlinks (a symlink in a directory the command can write is
// refused), and every write is openat(O_EXCL) + renameat relative to that descriptor: the
// command swapping the directory (or a parent) for a symlink cannot redirect the report.
import { closeSync, fsyncSync, lstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CordonError } from '../errors.ts';
import { realpathLenient } from '../host/probe.ts';
import { canWrite } from '../policy/access.ts';
import type { SandboxPolicy } from '../policy/types.ts';

export interface ReportTarget {
  write(value: unknown): void;
  close(): void;
}

function failure(file: string, why: string, fix: string): CordonError {
  return new CordonError('report-failed', `cannot write --report file '${file}': ${why} — ${fix}`);
}

/** A symlink on the way to `dir` that lives in a directory the policy lets the command write. */
function unsafeLink(dir: string, policy: SandboxPolicy | undefined): string | undefined {
  if (!policy) return undefined;
  let current = dir;
  while (current !== '/') {
    let isLink = false;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      // missing: the open below reports it
    }
    if (isLink && canWrite(policy.rules, realpathLenient(dirname(current)))) return current;
    current = dirname(current);
  }
  return undefined;
}

/** Pins the report's directory (Linux) before anything runs; elsewhere writes by path. */
export async function openReport(file: string, policy: SandboxPolicy | undefined): Promise<ReportTarget> {
  const abs = resolve(file);
  const dir = dirname(abs);
  const name = basename(abs);
  if (process.platform !== 'linux')
    return { write: (value) => writeReportByPath(abs, value), close: () => {} };
  const link = unsafeLink(dir, policy);
  if (link !== undefined)
    throw failure(
      file,
      `its directory goes through the symlink '${link}', which the sandboxed command could re-point`,
      `give the real directory (${realpathLenient(dir)}) or remove the link`,
    );
  const fsat = await import('../native/fsat.ts');
  let dirfd: number;
  try {
    dirfd = fsat.openDirPath(realpathLenient(dir));
  } catch (error) {
    throw failure(
      file,
      (error as { code?: string }).code ?? String(error),
      'check that its directory exists',
    );
  }
  return {
    write(value) {
      const tmp = `.${name}.${process.pid}.${Date.now().toString(36)}.tmp`;
      let fd: number | undefined;
      try {
        fd = fsat.openAt(dirfd, tmp, 0o1 | 0o100 | 0o200, 0o600); // O_WRONLY|O_CREAT|O_EXCL
        writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
        fsyncSync(fd);
        closeSync(fd);
        fd = undefined;
        fsat.renameAt(dirfd, tmp, dirfd, name);
      } catch (error) {
        if (fd !== undefined) closeSync(fd);
        try {
          fsat.unlinkAt(dirfd, tmp);
        } catch {
          // never created
        }
        throw failure(
          file,
          (error as { code?: string }).code ?? String(error),
          'check that its directory exists and is writable',
        );
      }
    },
    close: () => closeSync(dirfd),
  };
}

export function writeReportByPath(file: string, value: unknown): void {
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
    throw failure(
      file,
      (error as NodeJS.ErrnoException).code ?? String(error),
      'check that its directory exists and is writable',
    );
  }
}
