// The files cordon itself executes or loads, found on this machine: its package's dist/ and
// bin/ (the CLI, the library, the Landlock helper that runs before confinement), its
// package.json (module type and exports), koffi (its native module), the Node binary running
// it, and the node_modules/.bin directory of the link it was started through. When any of
// them lies inside a writable root, a run could rewrite what the next run executes
// unconfined: they are made read-only like cordon's state dirs (src/policy/protected.ts),
// and a backend that cannot keep them read-only refuses (src/plan/linux/landlock.ts).
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface OwnCodePath {
  readonly path: string;
  readonly what: string;
}

function real(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function isCordonPackage(dir: string): boolean {
  try {
    return (
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name === 'cordon'
    );
  } catch {
    return false;
  }
}

/** The directory of cordon's package.json above `from`, if there is one. */
export function findPackageRoot(from: string): string | undefined {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    if (isCordonPackage(dir)) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

function koffiDir(): string | undefined {
  try {
    const entry = createRequire(import.meta.url).resolve('koffi');
    for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir))
      if (basename(dir) === 'koffi' && existsSync(join(dir, 'package.json'))) return real(dir);
  } catch {
    // bundled (single executable): koffi is inside the executable
  }
  return undefined;
}

export function findOwnCode(
  argv1: string | undefined = process.argv[1],
  execPath: string = process.execPath,
): OwnCodePath[] {
  const out: OwnCodePath[] = [];
  const push = (path: string | undefined, what: string) => {
    if (path !== undefined && !out.some((o) => o.path === path)) out.push({ path, what });
  };
  push(real(execPath), 'the Node binary running cordon');
  const here = real(fileURLToPath(import.meta.url));
  const root = here ? findPackageRoot(here) : undefined;
  if (root) {
    for (const sub of ['dist', 'bin', 'package.json'])
      if (existsSync(join(root, sub))) push(real(join(root, sub)), `cordon's ${sub}`);
  }
  const koffi = koffiDir();
  push(koffi, "cordon's native module (koffi)");
  // koffi's prebuilt addon is a separate package next to it (koffi loads it by that path).
  if (koffi) {
    const addon = join(dirname(koffi), '@koromix', `koffi-${process.platform}-${process.arch}`);
    if (existsSync(addon)) push(real(addon), "cordon's native module (koffi's addon)");
  }
  // Started through a link (node_modules/.bin/cordon): the link and its neighbours (a planted
  // `node` there is what `#!/usr/bin/env node` runs next time) live in that directory.
  if (argv1 && root) {
    try {
      const target = real(argv1);
      if (lstatSync(argv1).isSymbolicLink() && target?.startsWith(`${root}/`))
        push(real(dirname(argv1)), 'the directory of the link cordon was started through');
    } catch {
      // not a file path
    }
  }
  return out;
}
