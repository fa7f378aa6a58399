// The per-run wrapper around the proxy: the command's variables, and refusals turned into
// denial annotations (one per host:port, at most 20, then a note) and the JSON summary.
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { proxyEnv, startRunProxy } from '../../src/net/run-proxy.ts';

function ask(port: number, url: string, auth: string): Promise<string> {
  return new Promise((ok) => {
    const s = connect(port, '127.0.0.1', () =>
      s.write(`GET ${url} HTTP/1.1\r\nHost: x\r\nProxy-Authorization: ${auth}\r\nConnection: close\r\n\r\n`),
    );
    let got = '';
    s.on('data', (d) => {
      got += d.toString();
    });
    s.on('close', () => ok(got));
  });
}

describe('run proxy', () => {
  it('sets both cases of the proxy variables, NO_PROXY for loopback and Node’s switch', () => {
    const env = proxyEnv('http://cordon:T@127.0.0.1:9');
    for (const k of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy'])
      expect(env[k]).toBe('http://cordon:T@127.0.0.1:9');
    expect(env['NO_PROXY']).toBe('localhost,127.0.0.1,::1');
    expect(env['no_proxy']).toBe('localhost,127.0.0.1,::1');
    expect(env['NODE_USE_ENV_PROXY']).toBe('1');
  });

  it('one denial per refused host:port, at most 20, then a note; JSON keeps every refusal', async () => {
    const run = await startRunProxy(['allowed.test']);
    const url = new URL(run.env['HTTP_PROXY']!);
    const auth = `Basic ${Buffer.from(`cordon:${url.password}`).toString('base64')}`;
    expect(await ask(run.port, 'http://h0.test/', auth)).toMatch(/^HTTP\/1\.1 403/);
    await ask(run.port, 'http://h0.test/again', auth);
    for (let i = 1; i < 25; i++) await ask(run.port, `http://h${i}.test/`, auth);
    const { annotations, network } = await run.finish();
    expect(network.allowed).toEqual(['allowed.test']);
    expect(network.refused).toHaveLength(26);
    const denials = annotations.filter((a) => a.kind === 'denial');
    expect(denials).toHaveLength(20);
    expect(denials[0]).toMatchObject({
      operation: 'network-connect',
      path: 'h0.test:80',
      fix: '--allow-net h0.test',
    });
    expect(annotations.at(-1)!.message).toBe(
      'network: 5 more refused hosts (--json has up to 1000 refused connections)',
    );
  });
});
