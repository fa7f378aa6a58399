// Finds the file CreateProcessAsUserW should start, the way a shell would but without the
// current directory: a name with a directory part is taken as given (relative to the command's
// cwd); a bare name is searched in the command's own PATH. A name without an extension tries
// each PATHEXT extension, then the bare name. .bat/.cmd results run through cmd.exe.
import { statSync } from 'node:fs';
import { win32 } from 'node:path';

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function envValue(env: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

export function resolveWindowsProgram(
  program: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
): string | undefined {
  const exts = (envValue(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .filter((e) => e.startsWith('.'));
  const candidates = (base: string) =>
    win32.extname(base) === '' ? [...exts.map((e) => base + e), base] : [base];
  if (/[\\/]/.test(program) || win32.isAbsolute(program)) {
    const base = win32.resolve(cwd, program);
    return candidates(base).find(isFile);
  }
  for (const dir of (envValue(env, 'PATH') ?? '').split(';')) {
    if (dir.trim() === '') continue;
    const found = candidates(win32.join(dir.replace(/^"|"$/g, ''), program)).find(isFile);
    if (found) return found;
  }
  return undefined;
}
