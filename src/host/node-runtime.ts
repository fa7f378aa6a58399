// What the {node} path token means: the files of the Node.js that is running cordon (or the
// program that called the library), so a profile that reads only {system} still runs the
// same `node` as outside the sandbox instead of failing, or silently finding another Node
// such as /usr/bin/node. Pure: the probe passes in canonical paths.
//
// Never exposed: `/`, the home directory or any ancestor of it (a Node installed straight
// into ~/bin would otherwise open the whole home). Then only the bin directory, or only the
// executable, is read, and `note` names what was left out so a user can add it with --read.
// Rules that would fall inside a writable root are dropped at policy time (resolve.ts).
import { posix } from 'node:path';

export interface NodeRuntime {
  /** Canonical path of the running Node executable. */
  readonly executable: string;
  /** The canonical paths {node} expands to. */
  readonly readRoots: readonly string[];
  /** Set when a directory was narrowed or left out, with the --read that would add it. */
  readonly note?: string | undefined;
}

export interface NodeRuntimeInput {
  /** realpath(process.execPath) */
  readonly executable: string;
  /** Canonical home directory. */
  readonly home: string;
  /**
   * Canonical directory of the first `node` on PATH, when that `node` is this executable
   * (e.g. node_modules/.bin, whose link sh follows to find it); undefined otherwise.
   */
  readonly pathDir?: string | undefined;
}

function exposesHome(dir: string, home: string): boolean {
  return dir === '/' || dir === home || home.startsWith(`${dir}/`);
}

export function nodeRuntime(input: NodeRuntimeInput): NodeRuntime {
  const { executable, home } = input;
  const binDir = posix.dirname(executable);
  const prefix = posix.basename(binDir) === 'bin' ? posix.dirname(binDir) : binDir;
  const roots: string[] = [];
  const notes: string[] = [];
  if (!exposesHome(prefix, home)) roots.push(prefix);
  else if (!exposesHome(binDir, home)) {
    roots.push(binDir);
    notes.push(`Node's prefix ${prefix} is or contains the home directory, so only ${binDir} is read`);
  } else {
    roots.push(executable);
    notes.push(`Node's directory ${binDir} is or contains the home directory, so only ${executable} is read`);
  }
  const pathDir = input.pathDir;
  if (pathDir && !roots.some((r) => pathDir === r || pathDir.startsWith(`${r}/`))) {
    if (!exposesHome(pathDir, home)) roots.push(pathDir);
    else notes.push(`the PATH entry ${pathDir} holding node is or contains the home directory: not read`);
  }
  return {
    executable,
    readRoots: roots,
    ...(notes.length > 0 ? { note: `${notes.join('; ')} (add --read PATH for more)` } : {}),
  };
}
