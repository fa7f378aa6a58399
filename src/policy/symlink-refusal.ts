// The refusal for a protected name (.git, .cordon) that is a symlink inside a writable root,
// with the exact way out. cordon cannot protect what a link the command can re-point will
// name, so the refusal stays; the message says what the link is and how to recover. Pure.
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';

function q(path: string): string {
  return /^[A-Za-z0-9_@%+=:,./~-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

export function protectedSymlinkError(path: string, root: string, name: string, host: HostInfo): CordonError {
  const text = host.readlink?.(path);
  const resolved = host.realpath(path);
  const dangling = resolved === path || host.kind(resolved) === 'missing';
  const link = text === undefined ? 'a symlink' : `a symlink to '${text}'`;
  const why = `cannot protect '${path}': it is ${link}${dangling ? ' that points nowhere (dangling)' : ''} inside the writable root '${root}', and the sandboxed command could re-point it, so cordon refuses every run here until it is fixed`;
  if (name !== '.git')
    return new CordonError(
      'unsafe-symlink',
      `${why} — to recover: rm ${q(path)} (removes the link only), or name the path with --read/--write/--deny`,
    );
  const recover = dangling
    ? `to recover: inspect it (ls -la ${q(path)}); if your repository's metadata moved, point git at it with a pointer file instead: rm ${q(path)} && echo 'gitdir: /path/to/the/real/.git' > ${q(path)}; if you did not make the link (a command may have), rm ${q(path)} (removes the link only) and restore .git from a clone or backup`
    : `to recover: replace the link with a pointer file naming the same directory: rm ${q(path)} && echo ${q(`gitdir: ${resolved}`)} > ${q(path)}`;
  return new CordonError(
    'unsafe-symlink',
    `${why} — ${recover}; or name the path with --read/--write/--deny`,
  );
}
