// The allowlist proxy on its own (no sandbox): real curl through it to two local sites.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowNetList } from '../../src/net/allowlist.ts';
import { parseIp } from '../../src/net/ip.ts';
import { parseAuthority, type RunningProxy, startProxy } from '../../src/net/proxy.ts';
import { type Sites, startSites } from '../helpers/sites.ts';

let sites: Sites;
let proxy: RunningProxy;

// Asynchronous: the proxy runs in this very process.
function run(
  file: string,
  args: string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    execFile(file, args, { encoding: 'utf8', env: env ?? process.env }, (error, stdout, stderr) => {
      ok({ code: error ? Number((error as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

async function curl(args: string[]): Promise<{ code: number; out: string }> {
  const r = await run('curl', ['-sS', '--max-time', '20', '-o', '-', '-w', '%{http_code}', ...args]);
  return { code: r.code, out: `${r.stdout}${r.stderr}` };
}

beforeAll(async () => {
  sites = await startSites();
  proxy = await startProxy({
    allow: parseAllowNetList([`localhost:${sites.a.http}`, `localhost:${sites.a.https}`, 'rebind.test']),
    resolve: async (name) => (name === 'rebind.test' ? [parseIp('127.0.0.1')!] : []),
  });
});
afterAll(async () => {
  await proxy?.close();
  await sites?.close();
});

describe('allowlist proxy', async () => {
  it('forwards plain HTTP to an allowed site and refuses the other with the flag to allow it', async () => {
    expect((await curl(['-x', proxy.url, `http://localhost:${sites.a.http}/`])).out).toBe(
      'hello from site-a\n200',
    );
    const b = await curl(['-x', proxy.url, `http://localhost:${sites.b.http}/`]);
    expect(b.out).toContain(`allow with --allow-net localhost:${sites.b.http}`);
    expect(b.out).toMatch(/403$/);
    expect(proxy.refused.some((r) => r.port === sites.b.http && r.method === 'GET')).toBe(true);
  });

  it('tunnels HTTPS (CONNECT) to the allowed site only', async () => {
    const ok = await curl(['--cacert', sites.caFile, '-x', proxy.url, `https://localhost:${sites.a.https}/`]);
    expect(ok.out).toBe('hello from site-a\n200');
    const no = await curl(['--cacert', sites.caFile, '-x', proxy.url, `https://localhost:${sites.b.https}/`]);
    expect(no.code).not.toBe(0);
    expect(no.out).toMatch(/CONNECT tunnel failed, response 403/);
    expect(proxy.refused.some((r) => r.port === sites.b.https && r.method === 'CONNECT')).toBe(true);
  });

  it('checks every request on a kept-alive connection', async () => {
    // curl reuses one proxy connection for both URLs.
    const r = await curl([
      '-v',
      '-x',
      proxy.url,
      `http://localhost:${sites.a.http}/`,
      `http://localhost:${sites.b.http}/`,
    ]);
    expect(r.out).toContain('hello from site-a');
    expect(r.out).toMatch(/Re-using existing connection|Reusing existing connection/);
    expect(r.out).toContain(`refused`);
  });

  it("forwards the checked authority as Host, not the client's own Host header", async () => {
    const r = await curl([
      '-x',
      proxy.url,
      '-H',
      'Host: evil.example',
      `http://localhost:${sites.a.http}/host`,
    ]);
    expect(r.out).toBe('hello from site-a\n200');
    expect(sites.a.hosts.at(-1)).toBe(`localhost:${sites.a.http}`);
  });

  it('refuses a request without the run secret (407)', async () => {
    const url = proxy.url.replace(/cordon:[0-9a-f]+@/, '');
    expect((await curl(['-x', url, `http://localhost:${sites.a.http}/`])).out).toMatch(/407$/);
    const wrong = proxy.url.replace(/:[0-9a-f]+@/, ':0000@');
    expect((await curl(['-x', wrong, `http://localhost:${sites.a.http}/`])).out).toMatch(/407$/);
  });

  it('refuses a listed name that resolves to 127.0.0.1 (DNS rebinding)', async () => {
    const r = await curl(['-x', proxy.url, `http://rebind.test:${sites.a.http}/`]);
    expect(r.out).toMatch(/resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(r.out).toMatch(/403$/);
  });

  it('Python urllib goes through it (HTTP and HTTPS)', async () => {
    const py = [
      '-c',
      'import sys,urllib.request,ssl\nctx=ssl.create_default_context(cafile=sys.argv[2])\nprint(urllib.request.urlopen(sys.argv[1],context=ctx).read().decode(),end="")',
    ];
    const env = { ...process.env, http_proxy: proxy.url, https_proxy: proxy.url, no_proxy: '' };
    const out = (
      await run('/usr/bin/python3', [...py, `https://localhost:${sites.a.https}/`, sites.caFile], env)
    ).stdout;
    expect(out).toBe('hello from site-a\n');
    const refused = await run(
      '/usr/bin/python3',
      [...py, `http://localhost:${sites.b.http}/`, sites.caFile],
      env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('403');
  });
});

describe('parseAuthority', async () => {
  it('reads host:port and [v6]:port, nothing else', async () => {
    expect(parseAuthority('a.com:443')).toEqual({ host: 'a.com', port: 443 });
    expect(parseAuthority('[::1]:8')).toEqual({ host: '::1', port: 8 });
    expect(parseAuthority('a.com')).toBeUndefined();
    expect(parseAuthority('::1:8')).toBeUndefined();
  });
});
