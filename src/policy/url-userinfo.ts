// Credentials embedded in URLs (`scheme://user:password@host`), for environment values and
// config copies. What counts: any userinfo that has a password part; for http(s), ftp and
// ws(s) URLs any userinfo at all (a token is often passed as the user name, as in
// https://TOKEN@github.com). A bare user of ssh://git@host is not a secret and is kept. The
// userinfo runs to the last '@' of the authority, so an unencoded '@' in a password is cut too.
// Pure.

const URL_WITH_USERINFO = /([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]*)@/g;
const TOKEN_AS_USER_SCHEMES = new Set(['http', 'https', 'ftp', 'ftps', 'ws', 'wss']);

/** `value` with every secret-bearing userinfo cut out (`https://u:p@h/` → `https://h/`). */
export function stripUrlUserinfo(value: string): string {
  return value.replace(URL_WITH_USERINFO, (whole, scheme: string, userinfo: string) => {
    const secret = userinfo.includes(':') || TOKEN_AS_USER_SCHEMES.has(scheme.toLowerCase());
    return secret && userinfo.length > 0 ? `${scheme}://` : whole;
  });
}

export function hasUrlUserinfo(value: string): boolean {
  return stripUrlUserinfo(value) !== value;
}
