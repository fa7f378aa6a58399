import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fixFor,
  judgeAddresses,
  matchTarget,
  parseAllowNet,
  parseAllowNetList,
} from '../../src/net/allowlist.ts';
import { formatIp, parseIp, specialReason } from '../../src/net/ip.ts';

const ip = (s: string) => parseIp(s)!;

describe('parseAllowNet', () => {
  it('parses names, wildcards, ports, IP literals and localhost', () => {
    expect(parseAllowNet('Registry.NPMjs.org.')).toMatchObject({ kind: 'name', name: 'registry.npmjs.org' });
    expect(parseAllowNet('*.github.com:443')).toMatchObject({
      kind: 'wildcard',
      suffix: 'github.com',
      port: 443,
    });
    expect(parseAllowNet('10.0.0.5:8080')).toMatchObject({ kind: 'ip', port: 8080 });
    expect(parseAllowNet('[::1]:9')).toMatchObject({ kind: 'ip', port: 9 });
    expect(parseAllowNet('fd00:ec2::254')).toMatchObject({ kind: 'ip', port: undefined });
    expect(parseAllowNet('localhost:3000')).toMatchObject({ kind: 'localhost', port: 3000 });
  });
  it.each([
    '',
    ' a.com',
    'http://a.com',
    'a.com/x',
    'a.com:0',
    'a.com:65536',
    'a.com:x',
    '*.com',
    'a.*.com',
    '*a.com',
    '010.0.0.1',
    '1.2.3',
    '::1:80:zz',
    '[1.2.3.4]:80',
    'a..com',
    '-a.com',
  ])('refuses %j with a message naming the value and the form', (raw) => {
    expect(() => parseAllowNet(raw)).toThrow(/--allow-net '.*'.*HOST\[:PORT\]/);
  });
  it('de-duplicates', () => {
    expect(parseAllowNetList(['a.com', 'a.com', 'b.com'])).toHaveLength(2);
  });
});

describe('matchTarget', () => {
  const list = parseAllowNetList(['registry.npmjs.org', '*.github.com:443', 'localhost:8080', '10.0.0.5']);
  it('allows listed names, wildcard subdomains (not the apex), ports', () => {
    expect(matchTarget(list, { host: 'REGISTRY.npmjs.org', port: 443 }).allowed).toBe(true);
    expect(matchTarget(list, { host: 'api.github.com', port: 443 }).allowed).toBe(true);
    expect(matchTarget(list, { host: 'a.b.github.com', port: 443 }).allowed).toBe(true);
    expect(matchTarget(list, { host: 'github.com', port: 443 }).allowed).toBe(false);
    expect(matchTarget(list, { host: 'api.github.com', port: 80 }).allowed).toBe(false);
    expect(matchTarget(list, { host: 'evilgithub.com', port: 443 }).allowed).toBe(false);
    expect(matchTarget(list, { host: 'registry.npmjs.org.evil.com', port: 443 }).allowed).toBe(false);
  });
  it('localhost covers the name and loopback literals on its port only', () => {
    expect(matchTarget(list, { host: 'localhost', port: 8080 }).allowed).toBe(true);
    expect(matchTarget(list, { host: '127.0.0.1', port: 8080 }).allowed).toBe(true);
    expect(matchTarget(list, { host: '::1', port: 8080 }).allowed).toBe(true);
    expect(matchTarget(list, { host: '127.0.0.1', port: 8081 }).allowed).toBe(false);
  });
  it('IP literals match only IP entries; names never match an IP entry', () => {
    expect(matchTarget(list, { host: '10.0.0.5', port: 22 }).allowed).toBe(true);
    expect(matchTarget(list, { host: '10.0.0.6', port: 22 }).allowed).toBe(false);
    expect(matchTarget(list, { host: '169.254.169.254', port: 80 }).allowed).toBe(false);
    expect(matchTarget(list, { host: '::ffff:10.0.0.5', port: 22 }).allowed).toBe(false);
  });
  it('names the flag that would allow a refused target', () => {
    const m = matchTarget(list, { host: 'api.example.com', port: 443 });
    expect(m).toMatchObject({ allowed: false, fix: '--allow-net api.example.com' });
    expect(fixFor({ host: 'x.org', port: 8443 })).toBe('--allow-net x.org:8443');
    expect(fixFor({ host: '::1', port: 80 })).toBe('--allow-net [::1]');
  });
  it('an empty list allows nothing (property)', () => {
    fc.assert(
      fc.property(fc.domain(), fc.integer({ min: 1, max: 65535 }), (host, port) => {
        expect(matchTarget([], { host, port }).allowed).toBe(false);
      }),
    );
  });
  it('an exact entry allows exactly its name in any case and nothing that merely ends with it (property)', () => {
    fc.assert(
      fc.property(fc.domain(), fc.domain(), fc.integer({ min: 1, max: 65535 }), (a, b, port) => {
        const l = parseAllowNetList([a]);
        expect(matchTarget(l, { host: a.toUpperCase(), port }).allowed).toBe(true);
        const other = `${b}${a}`;
        if (other.toLowerCase() !== a.toLowerCase())
          expect(matchTarget(l, { host: other, port }).allowed).toBe(other.toLowerCase() === a.toLowerCase());
      }),
    );
  });
  it('a wildcard allows names below its suffix only (property)', () => {
    fc.assert(
      fc.property(fc.domain(), fc.domain(), (suffix, x) => {
        fc.pre(suffix.includes('.'));
        const l = parseAllowNetList([`*.${suffix}`]);
        expect(matchTarget(l, { host: `${x}.${suffix}`, port: 443 }).allowed).toBe(true);
        expect(matchTarget(l, { host: suffix, port: 443 }).allowed).toBe(false);
        expect(matchTarget(l, { host: `${x}${suffix}`, port: 443 }).allowed).toBe(
          `${x}${suffix}`.endsWith(`.${suffix}`),
        );
      }),
    );
  });
});

describe('addresses', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.0.9',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:8.8.8.8',
    '::ffff:127.0.0.1',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
  ])('%s is special', (a) => {
    expect(specialReason(ip(a))).toBeDefined();
  });
  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2002:808:808::'])(
    '%s is public',
    (a) => {
      expect(specialReason(ip(a))).toBeUndefined();
    },
  );
  it('a listed name that resolves to loopback/private/metadata is refused (DNS rebinding)', () => {
    expect(judgeAddresses('x.test', [ip('127.0.0.1')])).toMatchObject({ ok: false });
    expect(judgeAddresses('x.test', [ip('169.254.169.254')]).ok).toBe(false);
    expect(judgeAddresses('x.test', [])).toMatchObject({ ok: false, reason: 'x.test did not resolve' });
    const mixed = judgeAddresses('x.test', [ip('10.0.0.1'), ip('8.8.8.8')]);
    expect(mixed.ok && mixed.addresses.map(formatIp)).toEqual(['8.8.8.8']);
  });
  it('IPv6 text round-trips (property)', () => {
    fc.assert(
      fc.property(fc.ipV6(), (a) => {
        const bytes = parseIp(a);
        expect(bytes).toBeDefined();
        expect(parseIp(formatIp(bytes!))).toEqual(bytes);
      }),
    );
    fc.assert(
      fc.property(fc.ipV4(), (a) => {
        expect(formatIp(parseIp(a)!)).toBe(a);
      }),
    );
  });
});
