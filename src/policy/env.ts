// The command's environment: inherited, minus names that look like credentials, plus what
// the profile and --env keep or set. Pure: the base environment is passed in. Values are
// never logged; the result lists dropped names only. A kept value that carries a URL with
// credentials (`https://user:pass@proxy`) has them cut out, and the name is listed as
// `NAME (userinfo removed)` among the dropped ones (url-userinfo.ts).
import { stripUrlUserinfo } from './url-userinfo.ts';

/** Substrings (case-insensitive) that mark a name as a credential. */
export const CREDENTIAL_SUBSTRINGS = [
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'API_KEY',
  'APIKEY',
  'PRIVATE_KEY',
  'ACCESS_KEY',
  'SECRET_KEY',
  'SESSION_KEY',
  'CLIENT_SECRET',
  'COOKIE',
  'JWT',
  'CONNECTION_STRING',
  'CONNSTR',
  'WEBHOOK',
] as const;

/** Whole words (between underscores) that mark a name as a credential: AUTH but not AUTHOR. */
export const CREDENTIAL_WORDS = ['AUTH', 'PAT', 'PASS', 'DSN'] as const;

/** Exact names: agent sockets and well-known secret carriers. */
export const CREDENTIAL_NAMES = [
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'KRB5CCNAME',
  'DATABASE_URL',
  'REDIS_URL',
  'MONGODB_URI',
  'VAULT_ADDR',
  'OP_SESSION',
  'DOCKER_AUTH_CONFIG',
  'MYSQL_PWD',
  'PGPASS',
  'CI_JOB_JWT',
  'CI_JOB_JWT_V2',
  'CI_REGISTRY_PASSWORD',
] as const;

/** The marker a droppedEnv entry carries when the variable was kept with its URL credentials cut. */
export const USERINFO_REMOVED = ' (userinfo removed)';

export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if ((CREDENTIAL_NAMES as readonly string[]).includes(upper)) return true;
  if (upper.startsWith('OP_SESSION_')) return true;
  // DB_PWD, SMTP_PWD; not PWD or OLDPWD (the working directory).
  if (upper.endsWith('_PWD')) return true;
  if (CREDENTIAL_SUBSTRINGS.some((s) => upper.includes(s))) return true;
  const words = upper.split('_');
  return CREDENTIAL_WORDS.some((w) => words.includes(w));
}

export interface EnvRequest {
  /** Names to keep even if they look like credentials (--env NAME, profile env.keep). */
  readonly keep: readonly string[];
  /** Values to set (--env NAME=VALUE, profile env.set). */
  readonly set: Readonly<Record<string, string>>;
  /** Names to drop in any case (profile env.drop). */
  readonly drop: readonly string[];
  /** Start empty but for CLEAR_ENV_KEEP (--clear-env). */
  readonly clear: boolean;
}

export interface ResolvedEnv {
  readonly env: Record<string, string>;
  /**
   * Names removed from the inherited environment, sorted; `NAME (userinfo removed)` for one
   * kept with the credentials of a URL in its value cut out. Never values.
   */
  readonly dropped: string[];
}

export function resolveEnv(
  base: Readonly<Record<string, string | undefined>>,
  request: EnvRequest,
  clearKeep: readonly string[],
  caseInsensitive = false,
): ResolvedEnv {
  // Windows environment names are case-insensitive (Path and PATH are one variable).
  const key = (name: string) => (caseInsensitive ? name.toUpperCase() : name);
  const env: Record<string, string> = {};
  const dropped: string[] = [];
  const keep = new Set(request.keep.map(key));
  const drop = new Set(request.drop.map(key));
  const clearKeepKeys = new Set(clearKeep.map(key));
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const explicitlyKept = keep.has(key(name));
    let remove = false;
    if (drop.has(key(name)) && !explicitlyKept) remove = true;
    else if (request.clear && !clearKeepKeys.has(key(name)) && !explicitlyKept) remove = true;
    else if (!explicitlyKept && isCredentialName(name)) remove = true;
    if (remove) dropped.push(name);
    else if (explicitlyKept) env[name] = value;
    else {
      const cleaned = stripUrlUserinfo(value);
      if (cleaned !== value) dropped.push(name + USERINFO_REMOVED);
      env[name] = cleaned;
    }
  }
  const setKeys = new Set(Object.keys(request.set).map(key));
  for (const [name, value] of Object.entries(request.set)) {
    if (caseInsensitive)
      for (const existing of Object.keys(env)) if (key(existing) === key(name)) delete env[existing];
    env[name] = value;
  }
  const nameOf = (entry: string) =>
    entry.endsWith(USERINFO_REMOVED) ? entry.slice(0, -USERINFO_REMOVED.length) : entry;
  return { env, dropped: dropped.filter((n) => !setKeys.has(key(nameOf(n)))).sort() };
}
