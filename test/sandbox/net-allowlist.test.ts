// The network allowlist under real bubblewrap, as root and as uid 65534: two sites on the
// host's loopback, one allowed. Real clients (curl, Node's fetch, Python urllib, git over
// https) reach the allowed one through cordon's proxy and are refused for the other; a direct
// TCP connection around the proxy fails; a listed name that resolves to 127.0.0.1 is refused.
// Every refusal is also checked on the host side: the refused site received no request.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATTERY_USERS, type CliResult, isLinux, isRoot, runCli, skippedNobodyLane } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';
import { type Sites, startSites } from '../helpers/sites.ts';

function bwrapUsable(): boolean {
  if (!isLinux) return false;
  const r = spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' });
  return r.status === 0;
}
const canBwrap = bwrapUsable();
const NODE = process.execPath;
// npm's own script, run with this Node (the sandbox's PATH has the system's node).
const NPM_CLI = '/usr/lib/node_modules/npm/bin/npm-cli.js';
// Clients go direct for loopback (NO_PROXY: the sandbox's own servers); the host's loopback
// is reached through the proxy only, so these requests drop NO_PROXY.
const VIA_PROXY = ['env', '-u', 'NO_PROXY', '-u', 'no_proxy'];

skippedNobodyLane('network allowlist under bwrap as uid 65534', canBwrap && isRoot);

describe.runIf(canBwrap && isRoot).each(BATTERY_USERS)(
  'network allowlist under bwrap as %s',
  (_label, uid) => {
    let fx: Fixture;
    let sites: Sites;
    let allowA: string[];
    const cordon = (args: string[], command: string[]): Promise<CliResult> =>
      runCli(['--backend', 'bwrap', '-q', ...args, '--', ...command], {
        cwd: fx.ws,
        asUid: uid,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
      });
    const clearHits = () => {
      sites.a.hits.length = 0;
      sites.b.hits.length = 0;
    };

    beforeAll(async () => {
      fx = makeFixture(uid);
      // A bare repository served over dumb HTTP(S) by site-a under /files/repo.git.
      const repo = join(fx.base, 'srv');
      spawnSync('git', ['init', '-q', '--bare', join(repo, 'repo.git')]);
      const work = join(fx.base, 'seed');
      spawnSync('git', ['init', '-q', work]);
      writeFileSync(join(work, 'README'), 'cloned through the proxy\n');
      const g = (args: string[]) =>
        spawnSync('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          stdio: 'ignore',
        });
      g(['add', 'README']);
      g(['commit', '-qm', 'seed']);
      g(['push', '-q', join(repo, 'repo.git'), 'HEAD:refs/heads/main']);
      spawnSync('git', ['-C', join(repo, 'repo.git'), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
      spawnSync('git', ['-C', join(repo, 'repo.git'), 'update-server-info']);
      // A registry stand-in: a packument and its tarball under /files/reg/.
      const pkg = join(repo, 'src/package');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(join(pkg, 'package.json'), '{"name":"tiny-pkg","version":"1.0.0","main":"index.js"}\n');
      writeFileSync(join(pkg, 'index.js'), 'module.exports = "tiny through the proxy";\n');
      mkdirSync(join(repo, 'reg'));
      const tgz = join(repo, 'reg/tiny-pkg-1.0.0.tgz');
      spawnSync('tar', ['-C', join(repo, 'src'), '-czf', tgz, 'package']);
      sites = await startSites(fx.base, repo);
      const integrity = `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`;
      const tarball = `https://localhost:${sites.a.https}/files/reg/tiny-pkg-1.0.0.tgz`;
      const version = { name: 'tiny-pkg', version: '1.0.0', dist: { tarball, integrity } };
      writeFileSync(
        join(repo, 'reg/tiny-pkg'),
        JSON.stringify({
          name: 'tiny-pkg',
          'dist-tags': { latest: '1.0.0' },
          versions: { '1.0.0': version },
        }),
      );
      allowA = ['--allow-net', `localhost:${sites.a.http}`, '--allow-net', `localhost:${sites.a.https}`];
    });
    afterAll(async () => {
      await sites?.close();
      rmSync(fx.base, { recursive: true, force: true });
    });

    it('curl reaches the allowed site over HTTP and HTTPS, and is refused for the other', async () => {
      clearHits();
      const curl = ['curl', '-sS', '--max-time', '20', '--cacert', sites.caFile];
      const a = await cordon(allowA, [...VIA_PROXY, ...curl, `http://localhost:${sites.a.http}/`]);
      expect(a.stdout).toBe('hello from site-a\n');
      const as = await cordon(allowA, [...VIA_PROXY, ...curl, `https://localhost:${sites.a.https}/`]);
      expect(as.stdout).toBe('hello from site-a\n');
      const b = await cordon(allowA, [...VIA_PROXY, ...curl, `http://localhost:${sites.b.http}/`]);
      expect(b.stdout).not.toContain('site-b');
      expect(b.stderr).toContain(`allow with --allow-net localhost:${sites.b.http}`);
      const bs = await cordon(allowA, [...VIA_PROXY, ...curl, `https://localhost:${sites.b.https}/`]);
      expect(bs.code).not.toBe(0);
      expect(bs.stderr).toMatch(/CONNECT tunnel failed, response 403/);
      expect(sites.b.hits).toEqual([]);
      expect(sites.a.hits).toEqual(['/', '/']);
    });

    it('a direct TCP connection around the proxy fails (the host loopback and any other address)', async () => {
      clearHits();
      const probe = `
      const net = require('net');
      const [host, port] = process.argv.slice(1);
      const c = net.connect({ host, port: Number(port) });
      c.on('connect', () => { c.write('GET / HTTP/1.0\\r\\n\\r\\n'); console.log('connected'); });
      c.on('data', (d) => console.log('got:' + d));
      c.on('error', (e) => console.log('error:' + e.code));`;
      for (const [host, port] of [
        ['127.0.0.1', sites.a.http],
        ['127.0.0.1', sites.b.http],
        ['10.0.0.1', 80],
        ['::1', sites.a.http],
      ] as const) {
        const r = await cordon(allowA, [NODE, '-e', probe, String(host), String(port)]);
        expect(r.stdout).toMatch(/^error:(ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)\n$/);
      }
      expect(sites.a.hits).toEqual([]);
      expect(sites.b.hits).toEqual([]);
    });

    it("only 127.0.0.1 at the proxy's port is carried out (not ::ffff:127.0.0.1 or ::1 there); UDP stays inside", async () => {
      const udp = createSocket('udp4');
      const got: string[] = [];
      udp.on('message', (m) => got.push(m.toString()));
      await new Promise<void>((ok) => udp.bind(0, '127.0.0.1', ok));
      const udpPort = udp.address().port;
      const probe = `
      const net = require('net'), dgram = require('dgram');
      const port = Number(process.env.HTTP_PROXY.split(':').pop());
      const tries = [['::ffff:127.0.0.1', port], ['::1', port]];
      const s = dgram.createSocket('udp4');
      s.send('leak', Number(process.argv[1]), '127.0.0.1', () => s.close());
      (function next() {
        const t = tries.shift();
        if (!t) return;
        const c = net.connect({ host: t[0], port: t[1] });
        c.on('connect', () => { console.log('connected ' + t[0]); c.destroy(); next(); });
        c.on('error', (e) => { console.log('error:' + e.code); next(); });
      })();`;
      const r = await cordon(allowA, [NODE, '-e', probe, String(udpPort)]);
      udp.close();
      expect(r.stdout).toMatch(
        /^error:(ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)\nerror:(ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL)\n$/,
      );
      expect(got).toEqual([]);
    });

    it("a host daemon's unix socket stays unreachable (the network-off rules)", async () => {
      const path = join(fx.base, 'daemon.sock');
      const seen: string[] = [];
      const daemon = createServer((s) => {
        s.on('data', (d) => seen.push(d.toString()));
        s.on('error', () => {});
      });
      await new Promise<void>((ok) => daemon.listen(path, ok));
      spawnSync('chmod', ['666', path]);
      const probe = `const c = require('net').connect(process.argv[1]);
      c.on('connect', () => { c.write('pwn'); console.log('connected'); c.end(); });
      c.on('error', (e) => console.log('error:' + e.code));`;
      const r = await cordon(allowA, [NODE, '-e', probe, path]);
      daemon.close();
      expect(r.stdout).toMatch(/^error:(EACCES|ENOENT)\n$/);
      expect(seen).toEqual([]);
    });

    it("the proxy's port answers only with the run's secret", async () => {
      clearHits();
      const r = await cordon(allowA, [
        ...VIA_PROXY,
        'sh',
        '-c',
        'p=${HTTP_PROXY##*:}; curl -sS -o /dev/null -w "%{http_code}" -x "http://127.0.0.1:$p" "$0"',
        `http://localhost:${sites.a.http}/`,
      ]);
      expect(r.stdout).toBe('407');
      expect(sites.a.hits).toEqual([]);
    });

    it('a listed name that resolves to 127.0.0.1 is refused (rebinding), an unlisted one too', async () => {
      clearHits();
      // /etc/hosts maps vm and runsc to 127.0.0.1 on this machine kind; the check is in the proxy.
      const r = await cordon(
        ['--allow-net', `vm:${sites.a.http}`],
        [...VIA_PROXY, 'curl', '-sS', `http://vm:${sites.a.http}/`],
      );
      expect(r.stderr).toMatch(/vm resolves to 127\.0\.0\.1 \(loopback\)/);
      const u = await cordon(allowA, [...VIA_PROXY, 'curl', '-sS', `http://runsc:${sites.a.http}/`]);
      expect(u.stderr).toContain(`allow with --allow-net runsc:${sites.a.http}`);
      expect(sites.a.hits).toEqual([]);
    });

    it("Node's fetch (NODE_USE_ENV_PROXY) and Python urllib go through the proxy", async () => {
      clearHits();
      const fetchA = `fetch(process.argv[1]).then(r => r.text()).then(t => process.stdout.write(t), e => { console.log('error:' + (e.cause?.code ?? e.message)); })`;
      const n = await cordon(allowA, [...VIA_PROXY, NODE, '-e', fetchA, `http://localhost:${sites.a.http}/`]);
      expect(n.stdout).toBe('hello from site-a\n');
      const py =
        'import sys,ssl,urllib.request\nctx=ssl.create_default_context(cafile=sys.argv[2])\ntry:\n print(urllib.request.urlopen(sys.argv[1],context=ctx).read().decode(),end="")\nexcept Exception as e:\n print("error:",e)';
      const p = await cordon(allowA, [
        ...VIA_PROXY,
        '/usr/bin/python3',
        '-c',
        py,
        `https://localhost:${sites.a.https}/`,
        sites.caFile,
      ]);
      expect(p.stdout).toBe('hello from site-a\n');
      const pb = await cordon(allowA, [
        ...VIA_PROXY,
        '/usr/bin/python3',
        '-c',
        py,
        `https://localhost:${sites.b.https}/`,
        sites.caFile,
      ]);
      expect(pb.stdout).toMatch(/^error: .*403/);
      expect(sites.b.hits).toEqual([]);
    });

    it('git clones over https through the proxy', async () => {
      const r = await cordon(allowA, [
        ...VIA_PROXY,
        'sh',
        '-c',
        'git -c http.sslCAInfo="$1" clone -q "$0" clone && cat clone/README',
        `https://localhost:${sites.a.https}/files/repo.git`,
        sites.caFile,
      ]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('cloned through the proxy\n');
    });

    it.runIf(existsSync(NPM_CLI))(
      'npm installs a package through the proxy from a local registry stand-in',
      async () => {
        clearHits();
        const r = await cordon(allowA, [
          ...VIA_PROXY,
          `npm_config_cafile=${sites.caFile}`,
          NODE,
          NPM_CLI,
          'install',
          '--no-audit',
          '--no-fund',
          '--registry',
          `https://localhost:${sites.a.https}/files/reg/`,
          'tiny-pkg',
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(readFileSync(join(fx.ws, 'node_modules/tiny-pkg/index.js'), 'utf8')).toContain(
          'tiny through the proxy',
        );
        expect(sites.a.hits).toContain('/files/reg/tiny-pkg-1.0.0.tgz');
        rmSync(join(fx.ws, 'node_modules'), { recursive: true, force: true });
      },
    );

    it('--json reports the allowed hosts and the refused connections', async () => {
      const r = await cordon(
        ['--json', ...allowA],
        [...VIA_PROXY, 'curl', '-sS', `http://localhost:${sites.b.http}/x`],
      );
      const json = JSON.parse(r.stdout) as {
        network: { allowed: string[]; refused: { host: string; port: number; fix: string }[] };
        annotations: { kind: string; fix?: string }[];
      };
      expect(json.network.allowed).toEqual([`localhost:${sites.a.http}`, `localhost:${sites.a.https}`]);
      expect(json.network.refused).toMatchObject([
        { host: 'localhost', port: sites.b.http, fix: `--allow-net localhost:${sites.b.http}` },
      ]);
      expect(json.annotations).toContainEqual(
        expect.objectContaining({ kind: 'denial', fix: `--allow-net localhost:${sites.b.http}` }),
      );
    });
  },
);
