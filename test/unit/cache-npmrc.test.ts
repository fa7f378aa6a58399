import { describe, expect, it } from 'vitest';
import { isSecretNpmrcKey, sanitizeNpmrc } from '../../src/cache/npmrc.ts';

describe('sanitizeNpmrc', () => {
  it('keeps settings and removes every credential line', () => {
    const input = [
      'registry=https://npm.example.com/',
      '@corp:registry=https://npm.corp.example/',
      '//npm.corp.example/:_authToken=SECRET1',
      '//npm.example.com/:_auth=SECRET2',
      '//npm.example.com/:username=alice',
      '//npm.example.com/:_password=SECRET3',
      '_authToken = SECRET4',
      'always-auth=true',
      'proxy=http://bob:SECRET5@proxy.example:3128/',
      'https-proxy=http://proxy.example:3128/',
      'cafile=/etc/ssl/corp-ca.pem',
      'strict-ssl=true',
      'key="-----BEGIN PRIVATE KEY-----\\nSECRET6\\n-----END PRIVATE KEY-----"',
      'cert="-----BEGIN CERTIFICATE-----\\nabc\\n-----END CERTIFICATE-----"',
      '//npm.corp.example/:certfile=/home/u/client.crt',
      '//npm.corp.example/:keyfile=/home/u/client.key',
      '; //old.example/:_authToken=SECRET7',
      '# password=SECRET8',
      '"//quoted.example/:_authToken"=SECRET9',
      'email=alice@example.com',
      '',
    ].join('\n');
    const out = sanitizeNpmrc(input);
    expect(out.text).not.toMatch(/SECRET/);
    expect(out.text.split('\n')).toEqual([
      'registry=https://npm.example.com/',
      '@corp:registry=https://npm.corp.example/',
      '; cordon: removed //npm.corp.example/:_authToken',
      '; cordon: removed //npm.example.com/:_auth',
      '; cordon: removed //npm.example.com/:username',
      '; cordon: removed //npm.example.com/:_password',
      '; cordon: removed _authToken',
      'always-auth=true',
      'proxy=http://proxy.example:3128/',
      'https-proxy=http://proxy.example:3128/',
      'cafile=/etc/ssl/corp-ca.pem',
      'strict-ssl=true',
      '; cordon: removed key',
      '; cordon: removed cert',
      '; cordon: removed //npm.corp.example/:certfile',
      '; cordon: removed //npm.corp.example/:keyfile',
      '; cordon: removed //quoted.example/:_authToken',
      'email=alice@example.com',
      '',
    ]);
    expect(out.removed).toEqual([
      '//npm.corp.example/:_authToken',
      '//npm.example.com/:_auth',
      '//npm.example.com/:username',
      '//npm.example.com/:_password',
      '_authToken',
      'key',
      'cert',
      '//npm.corp.example/:certfile',
      '//npm.corp.example/:keyfile',
      '//quoted.example/:_authToken',
    ]);
    expect(out.redacted).toEqual(['proxy']);
  });

  it('handles CRLF files, case variants and empty input', () => {
    expect(sanitizeNpmrc('registry=https://r.example/\r\n//r.example/:_AUTHTOKEN=x\r\n').text).toBe(
      'registry=https://r.example/\n; cordon: removed //r.example/:_AUTHTOKEN\n',
    );
    expect(sanitizeNpmrc('')).toEqual({ text: '', removed: [], redacted: [] });
  });

  it('classifies keys by the part after the last colon', () => {
    expect(isSecretNpmrcKey('//host:8080/path/:_authToken')).toBe(true);
    expect(isSecretNpmrcKey('_password')).toBe(true);
    expect(isSecretNpmrcKey('registry')).toBe(false);
    expect(isSecretNpmrcKey('@scope:registry')).toBe(false);
    expect(isSecretNpmrcKey('keyfile-extra')).toBe(false);
    expect(isSecretNpmrcKey('cafile')).toBe(false);
  });
});
