// What Landlock does differently from bubblewrap (the shared escapes are in escape-battery.test.ts),
// run against the Landlock
// backend as root and as uid 65534. Where Landlock can express the policy the host-side
// outcome must be the same; where it can't (read-only .git, --deny inside the
// workspace, credential denies) the run must be refused with 125 and nothing run — then the
// --best-effort form is checked for what it still enforces. Host side checked every time.
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { BATTERY_USERS, type CliResult, isLinux, isRoot, runCli, skippedNobodyLane } from '../helpers/cli.ts';
import { type Fixture, makeFixture, snapshotTree } from '../helpers/sandbox.ts';

function landlockAbi(): number {
  try {
    return isLinux ? probeLandlockAbi() : 0;
  } catch {
    return 0;
  }
}
const abi = landlockAbi();
const NODE = process.execPath;

const users = BATTERY_USERS;

skippedNobodyLane('Landlock escape battery as uid 65534', abi > 0);

describe.runIf(abi > 0 && isRoot).each(users)('Landlock escape battery as %s', (_label, uid) => {
  let fx: Fixture;
  const cordon = (args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> =>
    runCli(['--backend', 'landlock', '-q', ...args], {
      cwd: fx.ws,
      ...(uid === undefined ? {} : { asUid: uid }),
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: fx.home, LANG: 'C.UTF-8', ...extraEnv },
    });
  const sh = (script: string, args: string[] = []) => cordon([...args, '--', 'sh', '-c', script]);
  const be = ['--best-effort'];
  const refused = (r: CliResult, ...named: string[]) => {
    expect(r.code).toBe(125);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Landlock ABI \d+ cannot enforce/);
    for (const n of named) expect(r.stderr).toContain(n);
  };

  beforeAll(() => {
    fx = makeFixture(uid);
  });
  afterAll(() => {
    rmSync(fx.base, { recursive: true, force: true });
  });

  it('the default profile is refused (nothing runs); with --best-effort writes inside land on the host', async () => {
    const refusedRun = await sh('echo made > refused.txt');
    refused(refusedRun, `${fx.ws}/.git`, 'bubblewrap', '--best-effort');
    expect(existsSync(join(fx.ws, 'refused.txt'))).toBe(false);
    const r = await sh('echo made > new.txt && mkdir -p d/e && echo deep > d/e/f', be);
    expect(r.code).toBe(0);
    expect(readFileSync(join(fx.ws, 'new.txt'), 'utf8')).toBe('made\n');
    expect(readFileSync(join(fx.ws, 'd/e/f'), 'utf8')).toBe('deep\n');
  });

  it('.git / a gitdir target read-only: refused, naming them', async () => {
    const before = snapshotTree(join(fx.ws, '.git'));
    refused(await sh('echo evil > .git/hooks/pre-commit'), `${fx.ws}/.git`);
    expect(snapshotTree(join(fx.ws, '.git'))).toEqual(before);
    const wt = join(fx.base, 'worktree');
    const gitdir = join(fx.base, 'main-repo/.git/worktrees/wt');
    mkdirSync(wt, { recursive: true });
    mkdirSync(gitdir, { recursive: true });
    writeFileSync(join(wt, '.git'), `gitdir: ${gitdir}\n`);
    const r = await cordon(['--write', wt, '--write', join(fx.base, 'main-repo'), '--', 'true']);
    refused(r);
    expect(r.stderr).toMatch(/gitdir target|\.git/);
  });

  it('--deny inside the workspace, credential stores and a nested reopen are refused, naming the rule', async () => {
    refused(await cordon(['--deny', 'secret', '--', 'cat', 'secret/key']), `${fx.ws}/secret`);
    refused(await cordon(['--deny', 'a', '--write', 'a/b', '--', 'true']), `${fx.ws}/a`);
    const creds = await sh('cat ~/.ssh/id_ed25519');
    refused(creds);
    expect(creds.stderr).not.toContain('PRIVATE KEY');
  });

  it('network off: TCP, UDP and DNS to the host fail; --net allows them', async () => {
    const seen: string[] = [];
    const tcp = createServer((s) => {
      s.on('error', () => {}); // a refused or reset peer: what counts is what arrives
      s.end('hello-from-host\n');
    });
    const udp = createSocket('udp4');
    udp.on('message', (m) => seen.push(m.toString()));
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
    const tcpPort = (tcp.address() as { port: number }).port;
    const udpPort = udp.address().port;
    const client = (tag: string) => `
      const net = require('net'), dgram = require('dgram'), dns = require('dns');
      const s = net.connect(${tcpPort}, '127.0.0.1'); s.on('data', d => process.stdout.write('tcp:' + d)); s.on('error', e => console.log('tcp-error:' + e.code));
      try { const u = dgram.createSocket('udp4'); u.on('error', e => console.log('udp-error:' + e.code)); u.send('${tag}', ${udpPort}, '127.0.0.1', (e) => { console.log('udp-sent:' + (e ? e.code : 'ok')); u.close(); }); } catch (e) { console.log('udp-error:' + e.code); }
      const r = new dns.Resolver({ timeout: 500, tries: 1 }); r.setServers(['127.0.0.1:${udpPort}']); r.resolve4('example.com', (e) => console.log('dns:' + (e ? e.code : 'ok')));
      setTimeout(() => process.exit(0), 1500);`;
    try {
      const off = await cordon([...be, '--', NODE, '-e', client('off-probe')]);
      expect(off.stdout).not.toContain('hello-from-host');
      expect(off.stdout).toMatch(/tcp-error:EACCES/);
      await new Promise((res) => setTimeout(res, 200));
      expect(seen).toEqual([]);
      const on = await cordon([...be, '--net', '--', NODE, '-e', client('on-probe')]);
      expect(on.stdout).toContain('tcp:hello-from-host');
      await new Promise((res) => setTimeout(res, 200));
      expect(seen).toContain('on-probe');
    } finally {
      tcp.close();
      udp.close();
    }
  });

  it('network off: a host daemon unix socket in a readable directory is out of reach; socketpair still works', async () => {
    const sockDir = join(fx.base, 'run');
    mkdirSync(sockDir, { mode: 0o755, recursive: true });
    const sockPath = join(sockDir, 'daemon.sock');
    const seen: string[] = [];
    const server = createServer((s) => {
      s.on('data', (d) => seen.push(d.toString()));
      s.on('error', () => {}); // a refused or reset peer: what counts is what arrives
      s.end('root-shell$ ');
    });
    await new Promise<void>((r) => server.listen(sockPath, r));
    spawnSync('chmod', ['666', sockPath]);
    try {
      const probe = `const s = require('net').connect(${JSON.stringify(sockPath)}); s.on('connect', () => { s.write('pwn'); }); s.on('data', (d) => console.log('got:' + d)); s.on('error', (e) => console.log('unix-error:' + e.code));
        console.log('pair:' + require('child_process').execFileSync('/bin/echo', ['ok']).toString().trim());`;
      const off = await cordon([...be, '--', NODE, '-e', probe]);
      expect(off.stdout).toMatch(/unix-error:EACCES/);
      expect(off.stdout).toContain('pair:ok');
      expect(seen).toEqual([]);
      // Reachable with --net (Landlock < ABI 9 cannot mediate it): only under --best-effort, listed.
      const on = await cordon([...be, '--net', '--', NODE, '-e', probe]);
      expect(on.stdout).toContain('got:root-shell$');
      expect(on.stderr).toContain('not enforced: none (host unix sockets)');
    } finally {
      server.close();
    }
  });
});
