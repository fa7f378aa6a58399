// Landlock and /dev: a rule on /, on /dev or inside /dev would hand the command every device
// beneath — other users' terminals (/dev/pts/N: with IOCTL_DEV, turn their echo off and read
// what they type), the host's /dev/shm and /dev/mqueue. Pure.
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import type { LandlockRule, NotEnforced } from '../types.ts';
import { FS, rightsFor } from './landlock-rights.ts';

/** Terminal devices: never granted, except the command's own controlling terminal /dev/tty. */
const TERMINAL = /^\/dev\/(pts(\/|$)|ptmx$|console$|tty[^/]+$|vcs|hvc)/;

/**
 * A rule on /, on /dev or inside /dev would hand the command every device beneath — other
 * users' terminals (/dev/pts/N: with IOCTL_DEV, turn their echo off and read what they type),
 * the host's /dev/shm and /dev/mqueue. So / is granted entry by entry with /dev left out (the
 * root itself only listable), /dev gets the standard devices (IMPLICIT_DEVICES), and a policy
 * rule inside /dev is kept unless it names a terminal.
 */
export function splitAroundDev(
  path: string,
  access: 'read' | 'write',
  host: HostInfo,
  handledFs: number,
): { rules: LandlockRule[]; skipped: NotEnforced[] } {
  const listOnly = (p: string): LandlockRule => ({
    path: p,
    access: 'read',
    kind: 'dir',
    rights: FS.READ_DIR & handledFs,
    origin: 'policy',
  });
  if (path === '/dev') return { rules: [listOnly('/dev')], skipped: [] };
  if (path !== '/') {
    if (TERMINAL.test(path))
      return {
        rules: [],
        skipped: [{ path, access, reason: 'a terminal device: cordon never grants one under Landlock' }],
      };
    const k = host.kind(path) === 'dir' ? 'dir' : 'file';
    return {
      rules: [{ path, access, kind: k, rights: rightsFor(access, k, handledFs), origin: 'policy' }],
      skipped: [],
    };
  }
  const names = host.listDir?.('/');
  if (!names)
    throw new CordonError(
      'backend-unavailable',
      'cannot list / to grant it without /dev under Landlock — use bubblewrap (see cordon doctor)',
    );
  const rules: LandlockRule[] = [listOnly('/')];
  const skipped: NotEnforced[] =
    access === 'write'
      ? [
          {
            path: '/',
            access: 'write',
            reason: 'entries directly in / cannot be created: a right on / would reach /dev',
          },
        ]
      : [];
  for (const name of names) {
    if (name === 'dev') continue;
    const child = `/${name}`;
    const kind = host.kind(child);
    if (kind !== 'dir' && kind !== 'file') continue; // symlinks resolve to a sibling's content
    rules.push({ path: child, access, kind, rights: rightsFor(access, kind, handledFs), origin: 'policy' });
  }
  return { rules, skipped };
}
