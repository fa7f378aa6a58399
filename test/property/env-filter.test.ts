// Property (issue 15 item 4): names that carry credentials are dropped whatever surrounds the
// marker; URL credentials in any kept value are cut out and reported in droppedEnv as
// `NAME (userinfo removed)`; everything else passes through byte for byte.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCredentialName, resolveEnv, USERINFO_REMOVED } from '../../src/policy/env.ts';
import { stripUrlUserinfo } from '../../src/policy/url-userinfo.ts';

const runs = Number(process.env['CORDON_FUZZ_RUNS'] ?? 300);
const word = fc.stringMatching(/^[A-Z][A-Z0-9]{0,6}$/).filter((w) => !isCredentialName(w));
const plainName = fc
  .array(word, { minLength: 1, maxLength: 3 })
  .map((ws) => ws.join('_'))
  .filter((n) => !isCredentialName(n));
const none = { keep: [], set: {}, drop: [], clear: false };

describe('credential-name filter (property)', () => {
  it('drops MYSQL_PWD, PGPASS, CI_JOB_JWT, *_CONNECTION_STRING, *WEBHOOK*, *_PWD in any case and context', () => {
    const marker = fc.constantFrom('CONNECTION_STRING', 'WEBHOOK', 'JWT', 'PWD');
    fc.assert(
      fc.property(plainName, marker, plainName, fc.boolean(), (before, m, after, lower) => {
        const name =
          m === 'PWD' ? `${before}_PWD` : m === 'WEBHOOK' ? `${before}${m}${after}` : `${before}_${m}`;
        const shown = lower ? name.toLowerCase() : name;
        expect(isCredentialName(shown)).toBe(true);
        const r = resolveEnv({ [shown]: 'v', KEEP: 'k' }, none, []);
        expect(r.env).toEqual({ KEEP: 'k' });
        expect(r.dropped).toEqual([shown]);
      }),
      { numRuns: runs },
    );
    for (const n of ['MYSQL_PWD', 'PGPASS', 'CI_JOB_JWT', 'CI_JOB_JWT_V2', 'AZURE_STORAGE_CONNECTION_STRING'])
      expect(isCredentialName(n)).toBe(true);
    for (const n of ['PWD', 'OLDPWD', 'GIT_AUTHOR_NAME', 'PGHOST', 'HTTPS_PROXY', 'CI_JOB_ID'])
      expect(isCredentialName(n)).toBe(false);
  });

  it('cuts user:pass@ (and a token user on http) out of every kept value, and says so', () => {
    const userinfo = fc.tuple(
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,10}$/),
      fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=%@:-]{1,12}$/),
    );
    const name = fc.constantFrom(
      'HTTPS_PROXY',
      'http_proxy',
      'ALL_PROXY',
      'PIP_INDEX_URL',
      'SENTRY_URL',
      'UPSTREAM_URI',
      'X',
    );
    const scheme = fc.constantFrom('http', 'https', 'socks5', 'postgres', 'amqp', 'redis');
    fc.assert(
      fc.property(
        name,
        scheme,
        userinfo,
        fc.stringMatching(/^[a-z0-9.-]{1,12}(:\d{1,5})?$/),
        (n, s, [user, pass], host) => {
          const secret = `${user}:SECRET${pass}`;
          const value = `${s}://${secret}@${host}/path`;
          const r = resolveEnv({ [n]: value }, none, []);
          expect(r.env[n]).toBe(`${s}://${host}/path`);
          expect(r.env[n]).not.toContain('SECRET');
          expect(r.dropped).toEqual([`${n}${USERINFO_REMOVED}`]);
          // --env NAME keeps the value exactly as it was.
          expect(resolveEnv({ [n]: value }, { ...none, keep: [n] }, []).env[n]).toBe(value);
        },
      ),
      { numRuns: runs },
    );
  });

  it('leaves values without URL credentials byte for byte, ssh://git@host included', () => {
    fc.assert(
      fc.property(
        plainName,
        fc.string({ maxLength: 40 }).filter((v) => !v.includes('@')),
        (n, v) => {
          const r = resolveEnv({ [n]: v }, none, []);
          expect(r.env[n]).toBe(v);
          expect(r.dropped).toEqual([]);
        },
      ),
      { numRuns: runs },
    );
    expect(stripUrlUserinfo('ssh://git@github.com/o/r.git')).toBe('ssh://git@github.com/o/r.git');
    expect(stripUrlUserinfo('https://TOKEN@github.com/o/r')).toBe('https://github.com/o/r');
    expect(stripUrlUserinfo('a http://u:p@x b https://y/ c')).toBe('a http://x b https://y/ c');
    expect(stripUrlUserinfo('http://u:p@ss@proxy:3128')).toBe('http://proxy:3128');
  });
});
