// Network off without breaking local work: inside bubblewrap's private network namespace a
// loopback HTTP server listens, Python binds 127.0.0.1, and os.networkInterfaces() answers
// (NETLINK_ROUTE); the host's loopback stays out of reach (test/sandbox/bwrap.test.ts). Under Landlock
// (no network namespace) IP stays refused: pinned here. Real bwrap, real Landlock, root and 65534.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const NODE = process.execPath;
const canBwrap =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' }).status ===
    0;
const abi = (() => {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
})();
const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

const HTTP_ROUND_TRIP = `
const http = require('node:http');
const server = http.createServer((req, res) => res.end('pong ' + req.url));
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  http.get({ host: '127.0.0.1', port, path: '/ping' }, (res) => {
    let body = '';
    res.on('data', (c) => (body += c));
    res.on('end', () => { console.log(body); server.close(); });
  }).on('error', (e) => { console.log('client ' + e.code); server.close(); });
});
server.on('error', (e) => { console.log('listen ' + e.code); });
`;
const LISTEN = `const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log('listening', s.address().port > 0); s.close(); }).on('error', (e) => console.log('listen ' + e.code));`;
const INTERFACES = `const i = require('node:os').networkInterfaces(); console.log(Object.keys(i).includes('lo') ? 'lo' : JSON.stringify(Object.keys(i)));`;
const PY_BIND = `import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0))
s.listen(1)
print("bound", s.getsockname()[1] > 0)`;

describe.runIf(isRoot && isLinux).each(users)('loopback with the network off as %s', (_label, uid) => {
  let fx: Fixture;
  let hostServer: Server;
  let hostPort = 0;
  const cordon = (args: string[]) =>
    runCli(['-q', ...args], {
      cwd: fx.ws,
      ...(uid === undefined ? {} : { asUid: uid }),
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
    });
  beforeAll(async () => {
    fx = makeFixture(uid);
    hostServer = createServer((s) => {
      s.on('error', () => {}); // a refused or reset peer: what counts is what arrives
      s.end('host-secret\n');
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostPort = (hostServer.address() as { port: number }).port;
  });
  afterAll(() => {
    hostServer.close();
    rmSync(fx.base, { recursive: true, force: true });
  });

  it.runIf(canBwrap)('bwrap: an HTTP server listens on 127.0.0.1 (port 0), as bare', async () => {
    const r = await cordon(['--backend', 'bwrap', '--', NODE, '-e', LISTEN]);
    expect([r.code, r.stdout]).toEqual([0, 'listening true\n']);
  });

  // With the unix-socket supervisor performing connect() (the baseline no longer refuses it), a
  // loopback client reaches the command's own server, as bare; the host's loopback stays out
  // of reach (the sandbox's network namespace has its own).
  it.runIf(canBwrap)(
    'bwrap: a loopback client reaches its own server; the host port stays unreachable',
    async () => {
      const r = await cordon(['--backend', 'bwrap', '--', NODE, '-e', HTTP_ROUND_TRIP]);
      expect([r.code, r.stdout]).toEqual([0, 'pong /ping\n']);
      const host = await cordon([
        '--backend',
        'bwrap',
        '--',
        NODE,
        '-e',
        `require('node:net').connect(${hostPort}, '127.0.0.1').on('data', (d) => console.log('got ' + d)).on('error', (e) => console.log('host ' + e.code));`,
      ]);
      expect(host.stdout).toBe('host ECONNREFUSED\n');
    },
  );

  it.runIf(canBwrap)('bwrap: Python binds 127.0.0.1 and os.networkInterfaces() answers', async () => {
    const py = await cordon(['--backend', 'bwrap', '--', '/usr/bin/python3', '-c', PY_BIND]);
    expect([py.code, py.stdout]).toEqual([0, 'bound True\n']);
    const ifs = await cordon(['--backend', 'bwrap', '--', NODE, '-e', INTERFACES]);
    expect([ifs.code, ifs.stdout, ifs.stderr]).toEqual([0, 'lo\n', '']);
  });

  it.runIf(abi > 0)(
    'Landlock (no network namespace): IP stays refused, os.networkInterfaces() answers',
    async () => {
      const http = await cordon([
        '--backend',
        'landlock',
        '--best-effort',
        '--',
        NODE,
        '-e',
        HTTP_ROUND_TRIP,
      ]);
      expect(http.stdout).toBe('listen EACCES\n');
      const host = await cordon([
        '--backend',
        'landlock',
        '--best-effort',
        '--',
        NODE,
        '-e',
        `require('node:net').connect(${hostPort}, '127.0.0.1').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log(e.code));`,
      ]);
      expect(host.stdout).toBe('EACCES\n');
      const ifs = await cordon(['--backend', 'landlock', '--best-effort', '--', NODE, '-e', INTERFACES]);
      expect([ifs.code, ifs.stdout]).toEqual([0, 'lo\n']);
    },
  );
});
