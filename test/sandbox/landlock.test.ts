// The Landlock backend on the real kernel, as root and as uid 65534: file access, network,
// abstract unix sockets, signals, self-lifting attempts, escaped processes, the library's
// host process staying unconfined, and clean refusals. Host-side outcomes are checked.
import { spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeLandlockAbi } from '../../src/native/landlock.ts';
import { run } from '../../src/run.ts';
import { BATTERY_USERS, isLinux, isRoot, makeTempDir, runCli, skippedNobodyLane } from '../helpers/cli.ts';

const abi = isLinux ? safeAbi() : 0;
function safeAbi(): number {
  try {
    return probeLandlockAbi();
  } catch {
    return 0;
  }
}

const NODE_BIN = process.execPath;
const users: [string, number | undefined][] = isRoot ? BATTERY_USERS : [['current user', undefined]];

// Network client run inside the sandbox: tries each kind of connection, prints JSON.
const CLIENT = `
const net = require('node:net'); const dgram = require('node:dgram'); const dns = require('node:dns');
const [tcp4, tcp6, udp, dnsPort, abstract] = process.argv.slice(2);
const out = {};
const tcp = (host, port) => new Promise((res) => {
  let s; try { s = net.connect({ host, port: Number(port) }); } catch (e) { return res('throw ' + e.code); }
  const t = setTimeout(() => { s.destroy(); res('timeout'); }, 3000);
  s.on('connect', () => { clearTimeout(t); s.end('hello'); res('connected'); });
  s.on('error', (e) => { clearTimeout(t); res(e.code); });
});
const unix = (path) => new Promise((res) => {
  let s; try { s = net.connect({ path }); } catch (e) { return res('throw ' + e.code); }
  s.on('connect', () => { s.end('hello'); res('connected'); });
  s.on('error', (e) => res(e.code));
});
const send = (port) => new Promise((res) => {
  try {
    const s = dgram.createSocket('udp4');
    s.on('error', (e) => res(e.code));
    s.send('ping', Number(port), '127.0.0.1', (e) => { s.close(); res(e ? e.code : 'sent'); });
  } catch (e) { res('throw ' + e.code); }
});
const query = (port) => new Promise((res) => {
  try {
    const r = new dns.Resolver({ timeout: 1000, tries: 1 });
    r.setServers(['127.0.0.1:' + port]);
    r.resolve4('example.test', (e) => res(e ? e.code : 'answered'));
  } catch (e) { res('throw ' + e.code); }
});
(async () => {
  out.tcp4 = await tcp('127.0.0.1', tcp4);
  out.tcp6 = await tcp('::1', tcp6);
  out.udp = await send(udp);
  out.dns = await query(dnsPort);
  out.abstract = await unix('\\0' + abstract);
  console.log(JSON.stringify(out));
})();
`;

interface Listeners {
  tcp4: Server;
  tcp6: Server;
  abstract: Server;
  udp: ReturnType<typeof createSocket>;
  dns: ReturnType<typeof createSocket>;
  abstractName: string;
  seen: { tcp4: number; tcp6: number; udp: number; dns: number; abstract: number };
}

async function startListeners(): Promise<Listeners> {
  const seen = { tcp4: 0, tcp6: 0, udp: 0, dns: 0, abstract: 0 };
  const listenTcp = (host: string, key: 'tcp4' | 'tcp6') =>
    new Promise<Server>((resolve) => {
      const server = createServer((sock) => {
        seen[key]++;
        sock.on('error', () => {});
        sock.end();
      });
      server.listen(0, host, () => resolve(server));
    });
  const abstractName = `cordon-ll-test-${process.pid}-${Date.now()}`;
  const abstract = await new Promise<Server>((resolve) => {
    const server = createServer((sock) => {
      seen.abstract++;
      sock.on('error', () => {});
      sock.end();
    });
    server.listen(`\0${abstractName}`, () => resolve(server));
  });
  const bindUdp = (key: 'udp' | 'dns') =>
    new Promise<ReturnType<typeof createSocket>>((resolve) => {
      const s = createSocket('udp4');
      s.on('message', () => seen[key]++);
      s.bind(0, '127.0.0.1', () => resolve(s));
    });
  return {
    tcp4: await listenTcp('127.0.0.1', 'tcp4'),
    tcp6: await listenTcp('::1', 'tcp6'),
    abstract,
    udp: await bindUdp('udp'),
    dns: await bindUdp('dns'),
    abstractName,
    seen,
  };
}

const portOf = (s: Server) => (s.address() as { port: number }).port;

describe.runIf(isLinux && abi > 0)(`Landlock backend (kernel ABI ${abi})`, () => {
  let dir: string;
  let work: string;
  let allowed: string;
  let secret: string;
  let outside: string;
  let profile: string;

  beforeAll(() => {
    dir = makeTempDir('cordon-ll-');
    work = join(dir, 'work');
    allowed = join(work, 'allowed');
    mkdirSync(allowed, { recursive: true });
    // Existing repositories: a missing .git is not a protected path, an existing one is.
    mkdirSync(join(work, '.git'));
    mkdirSync(join(allowed, '.git'));
    chmodSync(work, 0o777);
    chmodSync(allowed, 0o777);
    secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'top secret\n', { mode: 0o644 });
    outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'original\n', { mode: 0o666 });
    writeFileSync(join(work, 'client.js'), CLIENT, { mode: 0o644 });
    profile = join(dir, 'll.yaml');
    writeFileSync(
      profile,
      // {node}: the Node these tests run on, wherever it lives (~/.nvm, /root, a tool cache).
      'network: off\nprivateTmp: true\nfilesystem:\n  - { path: "{system}", access: read }\n  - { path: "{node}", access: read }\n  - { path: "{cwd}", access: read }\n',
      { mode: 0o644 },
    );
  });

  const as = (asUid: number | undefined) => (asUid === undefined ? {} : { asUid });
  // --best-effort: every Landlock policy has kernel gaps (file metadata; with the network off,
  // abstract unix listeners) that are refused without it (pinned in landlock-gaps.test.ts).
  const cordon = (args: string[], asUid?: number) =>
    runCli(['--backend', 'landlock', '--best-effort', '--profile', profile, ...args], {
      cwd: work,
      ...as(asUid),
    });

  skippedNobodyLane('as uid 65534', true);

  describe.each(users)('as %s', (_name, asUid) => {
    it('writes inside the writable dir, nowhere else; denied reads fail', async () => {
      const target = join(allowed, `w-${asUid ?? 0}.txt`);
      const res = await cordon(
        [
          '--write',
          allowed,
          '--best-effort',
          '--',
          'sh',
          '-c',
          `echo in > ${target} && echo wrote-in; echo bad > ${outside} || echo outside-denied; echo new > ${dir}/created.txt || echo create-denied; cat ${secret} || echo read-denied; ls ${dir} >/dev/null 2>&1 || echo list-denied; echo x > $TMPDIR/t && echo tmp-ok`,
        ],
        asUid,
      );
      expect(res.stdout.split('\n').filter(Boolean)).toEqual([
        'wrote-in',
        'outside-denied',
        'create-denied',
        'read-denied',
        'list-denied',
        'tmp-ok',
      ]);
      expect(readFileSync(target, 'utf8')).toBe('in\n');
      expect(readFileSync(outside, 'utf8')).toBe('original\n');
      expect(existsSync(join(dir, 'created.txt'))).toBe(false);
      // Only the protected .git carve-out was not enforced, and the run says so.
      expect(res.stderr).toContain(`not enforced: read ${allowed}/.git`);
      expect(res.code).toBe(0);
    });

    it('network off: TCP, IPv6, UDP, DNS and abstract unix sockets to the host fail; --net allows them', async () => {
      const l = await startListeners();
      try {
        const args = [
          String(portOf(l.tcp4)),
          String(portOf(l.tcp6)),
          String(l.udp.address().port),
          String(l.dns.address().port),
          l.abstractName,
        ];
        const off = await cordon(['--', NODE_BIN, 'client.js', ...args], asUid);
        const offResult = JSON.parse(off.stdout.trim());
        expect(offResult).toEqual({
          tcp4: 'EACCES',
          tcp6: 'EACCES',
          udp: expect.stringMatching(/EACCES/),
          dns: expect.stringMatching(/ECONNREFUSED|EACCES|ETIMEOUT|EREFUSED/),
          abstract: 'EACCES',
        });
        await new Promise((r) => setTimeout(r, 200));
        expect(l.seen).toEqual({ tcp4: 0, tcp6: 0, udp: 0, dns: 0, abstract: 0 });

        // --net leaves every host unix socket reachable below ABI 9: listed as not enforced (this
        // battery always runs with --best-effort; the refusal without it is pinned in
        // test/sandbox/unix-sockets.test.ts and landlock-gaps.test.ts).
        const on = await cordon(['--net', '--best-effort', '--', NODE_BIN, 'client.js', ...args], asUid);
        expect(on.stderr).toContain('not enforced: none (host unix sockets)');
        const onResult = JSON.parse(on.stdout.trim());
        expect(onResult).toMatchObject({
          tcp4: 'connected',
          tcp6: 'connected',
          udp: 'sent',
          abstract: 'connected',
        });
        await new Promise((r) => setTimeout(r, 200));
        expect(l.seen.tcp4).toBe(1);
        expect(l.seen.tcp6).toBe(1);
        expect(l.seen.udp).toBe(1);
        expect(l.seen.dns).toBeGreaterThanOrEqual(1);
      } finally {
        for (const s of [l.tcp4, l.tcp6, l.abstract]) s.close();
        l.udp.close();
        l.dns.close();
      }
    });

    it.runIf(abi >= 6)('cannot signal a host process (ABI >= 6)', async () => {
      const victim = spawn(
        asUid === undefined ? 'sleep' : 'setpriv',
        asUid === undefined
          ? ['60']
          : [`--reuid=${asUid}`, `--regid=${asUid}`, '--clear-groups', 'sleep', '60'],
        { stdio: 'ignore' },
      );
      try {
        await new Promise((r) => setTimeout(r, 100));
        const res = await cordon(
          [
            '--',
            'sh',
            '-c',
            `kill -0 ${victim.pid} && echo can-probe; kill -KILL ${victim.pid} && echo killed; true`,
          ],
          asUid,
        );
        expect(res.stdout).toBe('');
        expect(victim.exitCode).toBeNull();
        expect(spawnSync('kill', ['-0', String(victim.pid)]).status).toBe(0);
      } finally {
        victim.kill('SIGKILL');
      }
    });

    it('a nested unshare -r or a second landlock_restrict_self cannot lift the restriction', async () => {
      const script = join(work, 'relax.js');
      writeFileSync(
        script,
        `const koffi = require(${JSON.stringify(require.resolve('koffi'))});
const lib = koffi.load('libc.so.6'); const sys = lib.func('long syscall(long number, ...)');
const attr = Buffer.alloc(8); attr.writeBigUInt64LE(2n, 0); // handle WRITE_FILE only
const fd = Number(sys(444, 'void *', attr, 'size_t', 8, 'uint32_t', 0));
const root = require('node:fs').openSync('/', 0o10000000);
const rule = Buffer.alloc(12); rule.writeBigUInt64LE(2n, 0); rule.writeInt32LE(root, 8);
sys(445, 'int', fd, 'int', 1, 'void *', rule, 'uint32_t', 0);
console.log('restrict', Number(sys(446, 'int', fd, 'uint32_t', 0)));
try { require('node:fs').writeFileSync(${JSON.stringify(outside)}, 'pwned'); console.log('WROTE'); } catch (e) { console.log('write', e.code); }
`,
        { mode: 0o644 },
      );
      const koffiDir = join(require.resolve('koffi'), '..');
      const res = await cordon(
        [
          '--read',
          koffiDir,
          '--read',
          join(koffiDir, '..', '@koromix'),
          '--',
          'sh',
          '-c',
          `unshare -r sh -c 'echo bad > ${outside}; cat ${secret}' 2>/dev/null || echo unshare-failed; ${NODE_BIN} relax.js`,
        ],
        asUid,
      );
      expect(res.stdout).not.toContain('top secret');
      expect(res.stdout).toContain('restrict 0');
      expect(res.stdout).toContain('write EACCES');
      expect(readFileSync(outside, 'utf8')).toBe('original\n');
    });

    it('cannot reach into cordon, outside its domain (no /proc/PPID/mem, environ, maps)', async () => {
      const res = await cordon(
        [
          '--',
          'sh',
          '-c',
          'for f in environ maps; do cat /proc/$PPID/$f >/dev/null 2>&1 && echo read-$f; done; echo x | dd of=/proc/$PPID/mem bs=1 seek=4096 2>/dev/null && echo wrote-mem; echo done',
        ],
        asUid,
      );
      expect(res.stdout).toBe('done\n');
    });

    it('kills escaped processes (setsid + double fork) after the run, without a pid namespace', async () => {
      const pidFile = join(allowed, `escapee-${asUid ?? 0}.pid`);
      const res = await cordon(
        [
          '--write',
          allowed,
          '--best-effort',
          '--',
          'sh',
          '-c',
          `setsid sh -c 'sleep 300 & echo $! > ${pidFile}' </dev/null >/dev/null 2>&1 & sleep 0.3; echo started`,
        ],
        asUid,
      );
      expect(res.stdout).toContain('started');
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      expect(pid).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 100));
      // Gone, or a zombie waiting for init to reap it (it was killed: kill -0 would still succeed).
      const state = existsSync(`/proc/${pid}/stat`)
        ? readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0]
        : 'gone';
      expect(['gone', 'Z', 'X']).toContain(state);
    });

    it('refuses an unenforceable policy with 125, naming the rule and the ways out', async () => {
      const res = await runCli(['--backend', 'landlock', '--profile', 'strict', '--', 'true'], {
        cwd: work,
        ...as(asUid),
      });
      expect(res.code).toBe(125);
      expect(res.stderr).toMatch(/Landlock ABI \d+ cannot enforce/);
      expect(res.stderr).toContain(`${work}/.git`);
      expect(res.stderr).toContain('bubblewrap');
      expect(res.stderr).toContain('--best-effort');
    });
  });

  it('the library run() leaves the host process unconfined and removes its private temp dir', async () => {
    const result = await run(['sh', '-c', `echo $TMPDIR; cat ${secret} || echo read-denied`], {
      backend: 'landlock',
      bestEffort: true,
      profile,
      cwd: work,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    });
    const [tmp, verdict] = result.stdout.text.trim().split('\n');
    expect(verdict).toBe('read-denied');
    expect(result.backend).toBe('landlock');
    expect(existsSync(tmp!)).toBe(false);
    // The host can still read and write its own files, and no thread of it is confined.
    writeFileSync(join(dir, 'host-after.txt'), 'ok');
    expect(readFileSync(join(dir, 'host-after.txt'), 'utf8')).toBe('ok');
    expect(readFileSync(secret, 'utf8')).toBe('top secret\n');
    const tasks = spawnSync('sh', ['-c', `grep -h NoNewPrivs /proc/${process.pid}/task/*/status | sort -u`], {
      encoding: 'utf8',
    });
    expect(tasks.stdout.trim()).toBe('NoNewPrivs:\t0');
  });

  it('the CLI with --report still writes its report (helper process) and the command is confined', async () => {
    const report = join(dir, 'report.json');
    const res = await cordon(['--report', report, '--', 'sh', '-c', `cat ${secret} || echo read-denied`]);
    expect(res.stdout).toContain('read-denied');
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ status: 'exited', backend: 'landlock' });
  });

  it('with and without --report the command starts like a spawned child: no ignored signals, pipes blocking', async () => {
    for (const extra of [[], ['--report', join(dir, 'sig.json')]]) {
      const res = await cordon([...extra, '--', 'sh', '-c', 'grep SigIgn /proc/self/status; yes | head -1']);
      expect(res.stdout).toBe('SigIgn:\t0000000000000000\ny\n');
    }
  });

  afterAll(() => {
    spawnSync('rm', ['-rf', dir]);
  });
});
