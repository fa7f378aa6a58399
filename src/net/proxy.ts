// The allowlist proxy: runs in cordon's own (unconfined) process for the life of one run.
// HTTP CONNECT (the target is checked before a byte flows either way) and plain HTTP
// forwarding (every request on a kept-alive client connection is checked on its own, and each
// gets its own upstream connection). Names are resolved here, once, and the proxy connects to
// exactly the address it judged (allowlist.ts: a listed name never unlocks a loopback, private
// or metadata address). Every request must carry the run's secret (Proxy-Authorization Basic
// cordon:TOKEN): the listener is on the host's loopback, shared with every local process.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type AllowNetEntry, judgeAddresses, matchTarget, type Target } from './allowlist.ts';
import { formatIp, type IpBytes, parseIp } from './ip.ts';

export interface RefusedConnection {
  readonly host: string;
  readonly port: number;
  /** CONNECT, or the plain HTTP method. */
  readonly method: string;
  readonly reason: string;
  /** The flag that would allow it, e.g. `--allow-net api.example.com`. */
  readonly fix: string;
}

export interface ProxyOptions {
  readonly allow: readonly AllowNetEntry[];
  /** Test seam: the resolver (default: the system's, every address). */
  readonly resolve?: ((name: string) => Promise<IpBytes[]>) | undefined;
}

export interface RunningProxy {
  readonly port: number;
  readonly token: string;
  /** `http://cordon:TOKEN@127.0.0.1:PORT`: what the command's *_PROXY variables hold. */
  readonly url: string;
  readonly refused: readonly RefusedConnection[];
  close(): Promise<void>;
}

/** Refused connections kept for the result (the rest are refused all the same). */
export const MAX_REFUSED = 1000;

const HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
]);

async function systemResolve(name: string): Promise<IpBytes[]> {
  const found = await dnsLookup(name, { all: true, verbatim: true });
  return found.map((a) => parseIp(a.address)).filter((ip): ip is IpBytes => ip !== undefined);
}

/** `host:port` of a CONNECT request (IPv6 in brackets). */
export function parseAuthority(text: string): Target | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):([0-9]{1,5})$/.exec(text);
  if (!m) return undefined;
  const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
  return { host, port: Number(m[2]) };
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const token = randomBytes(24).toString('hex');
  const expected = Buffer.from(`Basic ${Buffer.from(`cordon:${token}`).toString('base64')}`);
  const resolve = options.resolve ?? systemResolve;
  const refused: RefusedConnection[] = [];
  const sockets = new Set<Duplex>();

  const authorized = (req: IncomingMessage): boolean => {
    const got = Buffer.from(String(req.headers['proxy-authorization'] ?? ''));
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  /** The addresses to try for an allowed target, or the refusal. */
  const addressesFor = async (target: Target, method: string): Promise<IpBytes[] | string> => {
    const refuse = (reason: string, fix: string): string => {
      // Bounded: a command that tries a million hosts does not grow cordon without limit.
      if (refused.length < MAX_REFUSED)
        refused.push({ host: target.host, port: target.port, method, reason, fix });
      return `cordon: connection to ${target.host}:${target.port} refused: ${reason} (allow with ${fix})`;
    };
    const match = matchTarget(options.allow, target);
    if (!match.allowed) return refuse(match.reason, match.fix);
    if (match.ip) return [match.ip];
    if (match.entry.kind === 'localhost') return [parseIp('127.0.0.1')!, parseIp('::1')!];
    let resolved: IpBytes[];
    try {
      resolved = await resolve(target.host);
    } catch {
      resolved = [];
    }
    const verdict = judgeAddresses(target.host, resolved);
    if (!verdict.ok) return refuse(verdict.reason, `--allow-net ${target.host} (connect by address)`);
    return [...verdict.addresses];
  };

  const connectFirst = (ips: readonly IpBytes[], port: number): Promise<Socket> =>
    new Promise((ok, fail) => {
      let i = 0;
      const next = (lastError?: Error): void => {
        const ip = ips[i++];
        if (!ip) {
          fail(lastError ?? new Error('no address'));
          return;
        }
        const s = connect({ host: formatIp(ip), port });
        s.once('connect', () => {
          s.removeAllListeners('error');
          ok(s);
        });
        s.once('error', (e) => next(e));
      };
      next();
    });

  const onConnect = async (req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> => {
    sockets.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    const reply = (status: string, body: string, extra = ''): void => {
      client.end(
        `HTTP/1.1 ${status}\r\n${extra}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    };
    if (!authorized(req))
      return reply(
        '407 Proxy Authentication Required',
        'cordon: this proxy serves one sandboxed run\n',
        'Proxy-Authenticate: Basic realm="cordon"\r\n',
      );
    const target = parseAuthority(req.url ?? '');
    if (!target) return reply('400 Bad Request', `cordon: bad CONNECT target '${req.url}'\n`);
    const ips = await addressesFor(target, 'CONNECT');
    if (typeof ips === 'string') return reply('403 Forbidden', `${ips}\n`);
    let upstream: Socket;
    try {
      upstream = await connectFirst(ips, target.port);
    } catch (error) {
      return reply('502 Bad Gateway', `cordon: ${target.host}:${target.port}: ${(error as Error).message}\n`);
    }
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const fail = (status: number, body: string, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    };
    if (!authorized(req))
      return fail(407, 'cordon: this proxy serves one sandboxed run\n', {
        'proxy-authenticate': 'Basic realm="cordon"',
      });
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return fail(400, 'cordon: a proxy request needs an absolute http:// URL\n');
    }
    if (url.protocol !== 'http:' || url.username !== '' || url.password !== '')
      return fail(400, `cordon: only plain http:// URLs are forwarded (use CONNECT for ${url.protocol})\n`);
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const target: Target = { host, port: url.port === '' ? 80 : Number(url.port) };
    const ips = await addressesFor(target, req.method ?? 'GET');
    if (typeof ips === 'string') return fail(403, `${ips}\n`);
    const headers: Record<string, string | string[]> = {};
    const listed = String(req.headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((s) => s.trim());
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && !HOP.has(k) && !listed.includes(k)) headers[k] = v;
    // The checked authority, never the client's own Host header (another virtual host on an
    // allowed address would otherwise be one header away).
    headers['host'] = url.host;
    let upstream: Socket;
    try {
      upstream = await connectFirst(ips, target.port);
    } catch (error) {
      return fail(502, `cordon: ${target.host}:${target.port}: ${(error as Error).message}\n`);
    }
    const out = httpRequest({
      createConnection: () => upstream,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
    });
    out.on('response', (up) => {
      const back: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) back[k] = v;
      res.writeHead(up.statusCode ?? 502, back);
      up.pipe(res);
    });
    out.on('error', (error) => {
      if (!res.headersSent) fail(502, `cordon: ${target.host}:${target.port}: ${error.message}\n`);
      else res.destroy();
    });
    req.pipe(out);
  };

  const server = createServer();
  server.on('connect', (req, socket, head) => void onConnect(req, socket, head));
  server.on('request', (req, res) => void onRequest(req, res));
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen({ host: '127.0.0.1', port: 0 }, () => ok());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    token,
    url: `http://cordon:${token}@127.0.0.1:${port}`,
    refused,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}
