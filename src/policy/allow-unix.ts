// --allow-unix PATH → canonical host paths. Pure (the host's realpath and kind come from HostInfo).
import { CordonError } from '../errors.ts';
import type { HostInfo } from '../host/types.ts';

export function resolveAllowUnix(paths: readonly string[], host: HostInfo, cwd: string): string[] {
  const out: string[] = [];
  for (const raw of paths) {
    if (raw === '' || raw.includes('\0'))
      throw new CordonError('bad-flag', `--allow-unix needs the path of a unix socket, got '${raw}'`);
    const absolute = raw.startsWith('/') ? raw : `${cwd.replace(/\/$/, '')}/${raw}`;
    const path = host.realpath(absolute);
    if (host.kind(path) === 'missing')
      throw new CordonError(
        'bad-flag',
        `--allow-unix ${raw}: no such socket (${path}) — start the service first, or drop the flag`,
      );
    if (!out.includes(path)) out.push(path);
  }
  return out;
}
