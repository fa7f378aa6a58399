// Two local "sites" for network-allowlist tests: HTTP and HTTPS servers on the host's
// loopback that answer with their own name, and a self-signed certificate both share
// (generated with openssl into a temp dir; the clients trust it with a CA file).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Site {
  readonly name: string;
  readonly http: number;
  readonly https: number;
  /** Requests this site received (checked on the host side), and their Host headers. */
  readonly hits: string[];
  readonly hosts: string[];
}

export interface Sites {
  readonly a: Site;
  readonly b: Site;
  /** PEM file of the certificate (CN localhost, SAN localhost and 127.0.0.1). */
  readonly caFile: string;
  readonly dir: string;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok((server.address() as AddressInfo).port)));
}

/** `parent`: where the certificate goes (readable by every user; not /tmp for sandbox tests). */
export async function startSites(parent = tmpdir(), files?: string): Promise<Sites> {
  const dir = mkdtempSync(join(parent, 'cordon-sites-'));
  chmodSync(dir, 0o755);
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  chmodSync(cert, 0o644);
  const tls = { key: readFileSync(key), cert: readFileSync(cert) };
  const servers: Server[] = [];
  const site = async (name: string): Promise<Site> => {
    const hits: string[] = [];
    const hosts: string[] = [];
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      hits.push(req.url ?? '');
      hosts.push(req.headers.host ?? '');
      // site-a also serves the files below `files` (a dumb-HTTP git repository) under /files/.
      const url = req.url ?? '/';
      if (files && name === 'site-a' && url.startsWith('/files/') && !url.includes('..')) {
        try {
          res.end(readFileSync(join(files, decodeURIComponent(url.slice(7).split('?')[0]!))));
        } catch {
          res.writeHead(404).end();
        }
        return;
      }
      res.end(`hello from ${name}\n`);
    };
    const h = createHttp(handler);
    const s = createHttps(tls, handler);
    servers.push(h, s);
    return { name, http: await listen(h), https: await listen(s), hits, hosts };
  };
  const a = await site('site-a');
  const b = await site('site-b');
  return {
    a,
    b,
    caFile: cert,
    dir,
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
