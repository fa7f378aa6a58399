// The command's environment for cordon's helper processes (the Landlock helper, the unix-socket
// supervisor): JSON, base64, in chunks of at most 96 KiB, as the helper's ONLY variables. Not
// argv (world-readable in /proc/PID/cmdline), and not the plain variables (NODE_OPTIONS and
// friends would configure the helper's own Node). Its own module, importing nothing: the helpers
// load it at start-up, and a checkout runs them from source.
/** Prefix of the variables carrying the command's environment to the helper. */
export const HELPER_ENV_PREFIX = 'CORDON_LANDLOCK_ENV_';
const CHUNK_CHARS = 96 * 1024; // below the kernel's 128 KiB limit for one env string

/**
 * The command's environment for the helper: JSON, base64, in chunks of ≤ 96 KiB, as the
 * helper's ONLY variables. Not argv (world-readable in /proc/PID/cmdline), and not the plain
 * variables (NODE_OPTIONS and friends would configure the helper's own Node).
 */
export function encodeHelperEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const text = Buffer.from(JSON.stringify(env)).toString('base64');
  const out: Record<string, string> = {};
  for (let i = 0; i * CHUNK_CHARS < text.length || i === 0; i++)
    out[`${HELPER_ENV_PREFIX}${i}`] = text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
  return out;
}

export function decodeHelperEnv(vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let text = '';
  for (let i = 0; vars[`${HELPER_ENV_PREFIX}${i}`] !== undefined; i++)
    text += vars[`${HELPER_ENV_PREFIX}${i}`];
  return JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Record<string, string>;
}
