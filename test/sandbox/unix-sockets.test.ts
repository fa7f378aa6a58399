// Unix sockets under real bubblewrap, as root and as uid 65534, with the network off and on:
// the command's own servers work, host daemons' sockets do not — checked on the host side
// (the host server never receives the command's bytes) — and --allow-unix opens exactly one.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, isLinux, isRoot, runCli } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

function bwrapUsable(): boolean {
  if (!isLinux) return false;
  const r = spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' });
  return r.status === 0;
}
const canBwrap = bwrapUsable();
const NODE = process.execPath;

// The command's side. own PATH: server and client in one process; client PATH: connect, send
// 'pwn', print what comes back; abstract-* the same on an abstract name.
const PROBE = `
const net = require('net');
const [mode, where] = process.argv.slice(2);
const addr = mode.startsWith('abstract') ? '\\0' + where : where;
const client = () => {
  const c = net.connect(addr);
  c.on('connect', () => c.write('pwn'));
  c.on('data', (d) => { console.log('got:' + d); c.destroy(); });
  c.on('error', (e) => { console.log('error:' + e.code); process.exitCode = 3; });
};
if (mode === 'own' || mode === 'abstract-own') {
  const s = net.createServer((c) => c.end('own-ok'));
  s.on('error', (e) => { console.log('listen-error:' + e.code); process.exitCode = 4; });
  s.listen(addr, () => {
    const c = net.connect(addr);
    c.on('data', (d) => { console.log('got:' + d); s.close(); });
    c.on('error', (e) => { console.log('error:' + e.code); s.close(); });
  });
} else client();
`;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];
const modes: [string, string[]][] = [
  ['network off', []],
  ['--net', ['--net']],
];

interface HostDaemon {
  path: string;
  seen: string[];
  server: Server;
}

async function hostDaemon(path: string): Promise<HostDaemon> {
  const seen: string[] = [];
  const server = createServer((s) => {
    s.on('data', (d) => seen.push(d.toString()));
    s.on('error', () => {});
    s.end('root-shell$ ');
  });
  await new Promise<void>((r) => server.listen(path, r));
  if (!path.startsWith('\0')) spawnSync('chmod', ['666', path]);
  return { path, seen, server };
}

describe.runIf(canBwrap && isRoot).each(users)('unix sockets under bwrap as %s', (_label, uid) => {
  let fx: Fixture;
  let probe: string;
  const daemons: Record<string, HostDaemon> = {};
  const cordon = (args: string[], mode: string, where: string): Promise<CliResult> =>
    runCli(['--backend', 'bwrap', '-q', ...args, '--', NODE, probe, mode, where], {
      cwd: fx.ws,
      asUid: uid,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
    });

  beforeAll(async () => {
    fx = makeFixture(uid);
    probe = join(fx.base, 'probe.js');
    writeFileSync(probe, PROBE, { mode: 0o644 });
    const readable = join(fx.base, 'run');
    mkdirSync(readable, { mode: 0o755 });
    daemons['readable'] = await hostDaemon(join(readable, 'daemon.sock'));
    daemons['other'] = await hostDaemon(join(readable, 'other.sock'));
    // A host daemon whose socket sits INSIDE the writable workspace (bound before the run).
    daemons['workspace'] = await hostDaemon(join(fx.ws, 'host-in-ws.sock'));
    // Where host daemons really live (docker.sock, the D-Bus bus): /run, kept with --net.
    daemons['run'] = await hostDaemon(`/run/cordon-test-${process.pid}-${uid ?? 0}.sock`);
    daemons['abstract'] = await hostDaemon(`\0cordon-test-${process.pid}-${uid ?? 0}`);
  });
  afterAll(() => {
    for (const d of Object.values(daemons)) d.server.close();
    rmSync(fx.base, { recursive: true, force: true });
  });

  describe.each(modes)('%s', (_mode, net) => {
    for (const which of ['readable', 'workspace', 'run']) {
      it(`a host daemon's socket (${which}) is unreachable`, async () => {
        const d = daemons[which]!;
        d.seen.length = 0; // an --allow-unix test before this one wrote to it legitimately
        const r = await cordon(net, 'client', d.path);
        expect(r.stdout).not.toContain('root-shell');
        expect(r.stdout).toMatch(/error:(EACCES|ENOENT)/);
        expect(d.seen).toEqual([]);
      });
    }

    it("a symlink the command plants in the workspace does not lead to a host daemon's socket", async () => {
      const d = daemons['readable']!;
      d.seen.length = 0;
      const link = join(fx.ws, `link-${net.length}.sock`);
      const r = await runCli(
        [
          '--backend',
          'bwrap',
          '-q',
          ...net,
          '--',
          'sh',
          '-c',
          `ln -sf ${d.path} ${link} && "$0" "$1" client ${link}`,
          NODE,
          probe,
        ],
        {
          cwd: fx.ws,
          asUid: uid,
          env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
        },
      );
      expect(r.stdout).toMatch(/error:EACCES/);
      expect(d.seen).toEqual([]);
    });

    it("the supervisor's listener descriptor never reaches the command", async () => {
      const r = await runCli(['--backend', 'bwrap', '-q', ...net, '--', 'sh', '-c', 'ls -l /proc/self/fd/'], {
        cwd: fx.ws,
        asUid: uid,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8' },
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('/proc/');
      expect(r.stdout).not.toMatch(/anon_inode|seccomp/);
    });

    it("a host daemon's abstract socket is unreachable", async () => {
      const d = daemons['abstract']!;
      d.seen.length = 0;
      const r = await cordon(net, 'abstract-client', d.path.slice(1));
      expect(r.stdout).not.toContain('root-shell');
      expect(r.stdout).toMatch(/error:(EACCES|ECONNREFUSED)/);
      expect(d.seen).toEqual([]);
    });

    it("the command's own server and client work in the workspace (absolute and relative path)", async () => {
      const abs = await cordon(net, 'own', join(fx.ws, `own-${net.length}.sock`));
      expect(abs.stdout).toBe('got:own-ok\n');
      const rel = await cordon(net, 'own', `rel-${net.length}.sock`);
      expect(rel.stdout).toBe('got:own-ok\n');
    });

    it("the command's own server and client work in the private /tmp", async () => {
      const r = await cordon(net, 'own', '/tmp/own.sock');
      expect(r.stdout).toBe('got:own-ok\n');
    });

    it('--allow-unix opens exactly the socket it names', async () => {
      const allow = ['--allow-unix', daemons['readable']!.path];
      daemons['other']!.seen.length = 0;
      const yes = await cordon([...net, ...allow], 'client', daemons['readable']!.path);
      expect(yes.stdout).toBe('got:root-shell$ \n');
      const no = await cordon([...net, ...allow], 'client', daemons['other']!.path);
      expect(no.stdout).toMatch(/error:EACCES/);
      expect(daemons['other']!.seen).toEqual([]);
      const run = await cordon(
        [...net, '--allow-unix', daemons['run']!.path],
        'client',
        daemons['run']!.path,
      );
      expect(run.stdout).toBe('got:root-shell$ \n');
    });
  });

  it('network off: abstract names are private, so the command may use its own', async () => {
    const r = await cordon([], 'abstract-own', `own-${process.pid}`);
    expect(r.stdout).toBe('got:own-ok\n');
  });

  it('--net: binding an abstract name (the host namespace) is refused', async () => {
    const r = await cordon(['--net'], 'abstract-own', `own-${process.pid}`);
    expect(r.stdout).toMatch(/listen-error:EACCES/);
  });

  it('--allow-unix with a path that is no socket is refused before anything runs', async () => {
    const r = await cordon(['--allow-unix', join(fx.base, 'nope.sock')], 'client', '/x');
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/--allow-unix .*no such socket/);
  });
});
