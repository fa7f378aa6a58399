// Where cordon's config file lives (cli/config.ts reads it; probe.ts makes the directory one
// of cordon's state dirs, read-only inside every writable root).
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export function configDir(
  env: Readonly<Record<string, string | undefined>>,
  platform: string = process.platform,
): string {
  if (platform === 'win32' && env['APPDATA']) return join(env['APPDATA'], 'cordon');
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'cordon');
}
