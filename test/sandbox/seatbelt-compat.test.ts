// The macOS lane, issue 23 items 7-12 (commands that would fail, the denial report, doctor)
// and the escapes that must stay closed (open, osascript, launchctl submit). Real
// /usr/bin/sandbox-exec; runs only on macOS, elsewhere every test shows as skipped. Not yet
// run on a Mac.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { probeHost } from '../../src/host/probe.ts';
import { probeSeatbelt } from '../../src/host/seatbelt-probe.ts';
import { makeTempDir, runCli } from '../helpers/cli.ts';
import { cordonSh, hasPython, isDarwin, LANE_ENV, profileFile } from '../helpers/seatbelt-lane.ts';

const NODE = process.execPath;
const SERVE = `"${NODE}" -e "const s=require('http').createServer((q,r)=>r.end('pong')).listen(0,'127.0.0.1',()=>require('http').get('http://127.0.0.1:'+s.address().port,r=>r.on('data',d=>{console.log(String(d));s.close()}))).on('error',e=>{console.log(e.code)})"`;

describe.runIf(isDarwin)('seatbelt review: commands, report, doctor (items 7-12)', () => {
  let work: string;
  let outside: string;
  let secret: string;

  beforeAll(() => {
    work = makeTempDir('cordon-sb-work-');
    outside = makeTempDir('cordon-sb-out-');
    secret = makeTempDir('cordon-sb-secret-');
    mkdirSync(join(secret, 'd'));
  });

  it('item 7: with the network off a loopback server fails, and the denial names localBinding', async () => {
    const r = await runCli(['--json', '--', '/bin/sh', '-c', SERVE], { cwd: work, env: LANE_ENV });
    const result = JSON.parse(r.stdout);
    expect(result.stdout.text).not.toContain('pong');
    const bind = result.annotations.find((a: { operation?: string }) => a.operation === 'network-bind');
    expect(bind?.fix).toContain('localBinding');
  });

  it('item 7: localBinding: true runs a loopback server and client, and reaches host loopback', async () => {
    const profile = profileFile('extends: workspace\nlocalBinding: true\n');
    const own = await cordonSh(work, ['--profile', profile], SERVE);
    expect(own.stdout).toBe('pong\n');
    const host = createServer((s) => s.end('host-port\n'));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    const port = (host.address() as { port: number }).port;
    const r = await cordonSh(work, ['--profile', profile], `/usr/bin/nc -w 3 127.0.0.1 ${port} </dev/null`);
    host.close();
    // Documented: loopback is the host's, so this is reachable with the key on.
    expect(r.stdout).toContain('host-port');
  });

  it('item 8: fs.watch on a directory sees the command own changes', async () => {
    const r = await cordonSh(
      work,
      [],
      `"${NODE}" -e "const fs=require('fs');fs.mkdirSync('w',{recursive:true});const w=fs.watch('w',(e,f)=>{if(f==='x'){console.log('event');w.close()}});setTimeout(()=>fs.writeFileSync('w/x','1'),100)"`,
    );
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: 'event\n' });
  });

  it('item 8: FSEvents does not name files under a denied directory (events in order, sentinel last)', async () => {
    // The watcher runs in the sandbox on `outside`, which holds the denied `outside/secret`.
    // The host writes the denied file first, then a sentinel: FSEvents delivers in order, so
    // when the sentinel arrives any event for the denied file would have arrived already.
    const denied = join(outside, 'secret');
    mkdirSync(denied, { recursive: true });
    const ready = join(work, `ready-${process.pid}`);
    const script = `"${NODE}" -e "const fs=require('fs');const w=fs.watch(process.argv[1],{recursive:true},(e,f)=>{console.log(f);if(String(f).includes('sentinel'))w.close()});fs.writeFileSync(process.argv[2],'')" "${outside}" "${ready}"`;
    let finished = false;
    const run = cordonSh(work, ['--read', outside, '--deny', denied], script).finally(() => {
      finished = true;
    });
    while (!existsSync(ready) && !finished) await new Promise((r) => setTimeout(r, 50));
    writeFileSync(join(denied, 'leak.txt'), 'x');
    writeFileSync(join(outside, 'sentinel'), 'x');
    const r = await run;
    expect(r.stdout).toContain('sentinel');
    expect(r.stdout).not.toContain('leak.txt');
  });

  it('item 9: the confstr cache dir is writable (clang module caches); the temp dir is the private one', async () => {
    const r = await cordonSh(
      work,
      ['--profile', 'strict'],
      'c=$(getconf DARWIN_USER_CACHE_DIR) && mkdir -p "$c/cordon-test" && echo ok > "$c/cordon-test/f" && cat "$c/cordon-test/f"; rm -rf "$c/cordon-test"',
    );
    expect(r.stdout).toBe('ok\n');
  });

  it('item 10: strict basics: /dev/stdout and /dev/stderr, tty, and the resolver files with --net', async () => {
    const r = await cordonSh(
      work,
      ['--profile', 'strict'],
      'echo out >/dev/stdout; echo err >/dev/stderr; tty',
    );
    expect(r.stdout).toBe('out\nnot a tty\n');
    expect(r.stderr).toContain('err');
    const net = await cordonSh(
      work,
      ['--profile', 'strict', '--net'],
      'cat /etc/hosts >/dev/null && echo hosts-ok',
    );
    expect(net.stdout).toBe('hosts-ok\n');
  });

  it('item 10: a PATH entry in a denied directory does not hide the programs after it', async () => {
    const bin = join(secret, 'd');
    const r = await cordonSh(work, ['--deny', secret], 'ls / >/dev/null && echo found', {
      PATH: `${bin}:/usr/bin:/bin`,
    });
    expect(r.stdout).toBe('found\n');
  });

  it('item 10: runtimes start: Node os.cpus', async () => {
    const r = await cordonSh(work, [], `"${NODE}" -e "console.log(require('os').cpus().length>0)"`);
    expect(r.stdout).toBe('true\n');
  });

  it.runIf(hasPython)('item 10: runtimes start: Python multiprocessing', async () => {
    const py = await cordonSh(
      work,
      [],
      `/usr/bin/python3 -c "import multiprocessing as m; m.Lock(); print('ok')"`,
    );
    expect(py.stdout).toBe('ok\n');
  });

  it('item 11: harmless framework lookups are not reported as denials', async () => {
    const r = await runCli(['--json', '--', '/usr/bin/defaults', 'read', '-g'], { cwd: work, env: LANE_ENV });
    const noisy = JSON.parse(r.stdout).annotations.filter((a: { kind: string; message: string }) =>
      /logd|diagnosticd|analyticsd|notification_center|kern\.bootargs/.test(a.message),
    );
    expect(noisy).toEqual([]);
  });

  it('item 12: doctor trials compile and run every section on this macOS', () => {
    expect(probeSeatbelt(probeHost()).trial).toBe('ok');
  });

  it('open, osascript and launchctl submit still cannot start anything outside the sandbox', async () => {
    const mark = join(outside, 'escaped');
    const label = `cordon.test.${process.pid}`;
    const r = await cordonSh(
      work,
      ['--read', outside],
      [
        `open -g -a /System/Applications/Calculator.app && echo OPEN-OK`,
        `osascript -e 'tell application "Terminal" to do script "touch ${mark}"' && echo OSA-OK`,
        `launchctl submit -l ${label} -- /usr/bin/touch "${mark}" && echo LAUNCHCTL-OK`,
      ].join('; '),
    );
    let submitted = false;
    try {
      execFileSync('/bin/launchctl', ['list', label], { stdio: 'ignore' });
      submitted = true;
      execFileSync('/bin/launchctl', ['remove', label], { stdio: 'ignore' });
    } catch {
      // not listed: nothing was submitted
    }
    expect({ stdout: r.stdout.match(/[A-Z]+-OK/g) ?? [], submitted, escaped: existsSync(mark) }).toEqual({
      stdout: [],
      submitted: false,
      escaped: false,
    });
  });
});
