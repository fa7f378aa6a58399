// The only files cordon ever creates in a workspace: mount points for a missing denied (or
// protected) path inside a writable root, so bubblewrap can cover it with an empty 0000 file
// and the command cannot create it. Each is created here, before bwrap starts, with
// O_CREAT|O_EXCL relative to its parent directory opened component by component without
// following symlinks; the parent descriptor and the file's device/inode are kept, and after
// the run only that entry is unlinked, after a no-follow stat on the same descriptor shows it
// is still the file we made. A command that swaps the parent for a symlink (to make the
// clean-up delete a host file) changes nothing: the descriptor still names the original
// directory. If cordon is SIGKILLed the empty file stays (README: "Placeholders").
import { closeSync } from 'node:fs';
import { CordonError } from '../../errors.ts';
import {
  FsAtError,
  type Identity,
  openAt,
  openDirPath,
  sameIdentity,
  statAt,
  statFd,
  unlinkAt,
} from '../../native/fsat.ts';

export interface CreatedPlaceholder {
  readonly path: string;
  readonly parentFd: number;
  readonly name: string;
  readonly id: Identity;
}

const O_WRONLY_CREAT_EXCL = 0o1 | 0o100 | 0o200;

function split(path: string): { parent: string; name: string } {
  const i = path.lastIndexOf('/');
  return { parent: i <= 0 ? '/' : path.slice(0, i), name: path.slice(i + 1) };
}

/** Creates every placeholder of the plan; on failure removes the ones made and throws. */
export function createPlaceholders(paths: readonly string[]): CreatedPlaceholder[] {
  const made: CreatedPlaceholder[] = [];
  try {
    for (const path of paths) {
      const { parent, name } = split(path);
      let parentFd: number;
      try {
        parentFd = openDirPath(parent);
      } catch (error) {
        throw new CordonError(
          'unsafe-symlink',
          `cannot cover the missing path '${path}': its directory '${parent}' changed since the policy was resolved (${(error as FsAtError).code ?? error}) — a symlink or a non-directory is in the way; remove it and run again`,
        );
      }
      let fd: number;
      try {
        fd = openAt(parentFd, name, O_WRONLY_CREAT_EXCL, 0);
      } catch (error) {
        closeSync(parentFd);
        throw new CordonError(
          'unsafe-symlink',
          `cannot cover the missing path '${path}': it appeared since the policy was resolved (${(error as FsAtError).code ?? error}) — run again`,
        );
      }
      const id = statFd(fd);
      closeSync(fd);
      made.push({ path, parentFd, name, id });
    }
    return made;
  } catch (error) {
    removePlaceholders(made);
    throw error;
  }
}

/** Unlinks each placeholder that is still the empty file cordon created; closes the fds. */
export function removePlaceholders(made: readonly CreatedPlaceholder[]): void {
  for (const p of made) {
    try {
      const now = statAt(p.parentFd, p.name);
      if (now && now.kind === 'file' && sameIdentity(now, p.id)) unlinkAt(p.parentFd, p.name);
    } catch (error) {
      if (!(error instanceof FsAtError)) throw error;
    } finally {
      closeSync(p.parentFd);
    }
  }
}
