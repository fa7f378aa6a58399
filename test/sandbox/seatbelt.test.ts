// The macOS lane: the real /usr/bin/sandbox-exec with cordon's generated profile, and the
// host-side escape battery (every escape test checks the file on the host, not only the exit
// code). It runs only on macOS: on other systems it shows as skipped. Not yet run on a Mac.
// The items of the profile review (issue 23) have their own files: seatbelt-holes.test.ts
// (items 1-6) and seatbelt-compat.test.ts (items 7-12).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.ts';

const isDarwin = process.platform === 'darwin';
const ENV = {
  PATH: '/usr/bin:/bin:/usr/sbin:/sbin',
  HOME: process.env['HOME'] ?? '/tmp',
  TMPDIR: process.env['TMPDIR'] ?? tmpdir(),
  LANG: 'en_US.UTF-8',
};

function cordon(cwd: string, flags: readonly string[], script: string) {
  return runCli([...flags, '--', '/bin/sh', '-c', script], { cwd, env: ENV });
}

describe.runIf(isDarwin)('seatbelt on macOS (real sandbox-exec)', () => {
  let work: string;
  let outside: string;
  let secret: string;

  beforeAll(() => {
    work = makeTempDir('cordon-sb-work-');
    outside = makeTempDir('cordon-sb-out-');
    secret = makeTempDir('cordon-sb-secret-');
    writeFileSync(join(outside, 'existing.txt'), 'orig\n');
    writeFileSync(join(secret, 'key'), 'TOP-SECRET-VALUE\n');
    mkdirSync(join(work, '.git'));
    writeFileSync(join(work, '.git', 'config'), '[core]\n');
  });

  it('runs a command and passes its exit code through', async () => {
    const r = await cordon(work, [], 'echo inside; exit 3');
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 3, stdout: 'inside\n' });
  });

  it('writes inside the working directory reach the host', async () => {
    const r = await cordon(work, [], 'echo made > made.txt');
    expect(r.code).toBe(0);
    expect(readFileSync(join(work, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot create or overwrite files outside the writable roots', async () => {
    const r = await cordon(
      work,
      ['--read', outside],
      `echo x > "${outside}/new.txt"; echo y > "${outside}/existing.txt"`,
    );
    expect(r.code).not.toBe(0);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(readFileSync(join(outside, 'existing.txt'), 'utf8')).toBe('orig\n');
  });

  it('cannot read a denied directory, directly or through a symlink it plants', async () => {
    rmSync(join(work, 'link'), { force: true });
    symlinkSync(join(secret, 'key'), join(work, 'link'));
    const r = await cordon(work, ['--deny', secret], `cat "${secret}/key"; cat link; ls "${secret}"`);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toContain('TOP-SECRET-VALUE');
    expect(r.stdout).not.toContain('key');
  });

  it('cannot hard-link a denied file into the working directory', async () => {
    const r = await cordon(work, ['--deny', secret], `ln "${secret}/key" hard; cat hard`);
    expect(r.stdout).not.toContain('TOP-SECRET-VALUE');
    expect(existsSync(join(work, 'hard'))).toBe(false);
  });

  it('protects .git in the working directory', async () => {
    const r = await cordon(work, [], 'echo evil >> .git/config; mkdir .git/hooks; mv .git .git-moved');
    expect(r.code).not.toBe(0);
    expect(readFileSync(join(work, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(work, '.git', 'hooks'))).toBe(false);
    expect(existsSync(join(work, '.git-moved'))).toBe(false);
  });

  it('cannot move the working directory away to reach its .git', async () => {
    const r = await cordon(work, [], `mv "$PWD" "$TMPDIR/moved" && echo evil >> "$TMPDIR/moved/.git/config"`);
    expect(r.code).not.toBe(0);
    expect(existsSync(work)).toBe(true);
    expect(readFileSync(join(work, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('nested reopen: write under none under write', async () => {
    const root = makeTempDir('cordon-sb-nest-');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'hidden.txt'), 'HIDDEN\n');
    const profile = join(makeTempDir('cordon-sb-prof-'), 'nest.yaml');
    writeFileSync(
      profile,
      'extends: workspace\nfilesystem:\n  - { path: "{cwd}/a", access: none }\n  - { path: "{cwd}/a/b", access: write }\n',
    );
    const ok = await cordon(root, ['--profile', profile], 'echo deep > a/b/f.txt && echo top > top.txt');
    expect(ok.code).toBe(0);
    expect(readFileSync(join(root, 'a', 'b', 'f.txt'), 'utf8')).toBe('deep\n');
    const denied = await cordon(root, ['--profile', profile], 'cat a/hidden.txt; echo x > a/new.txt');
    expect(denied.code).not.toBe(0);
    expect(denied.stdout).not.toContain('HIDDEN');
    expect(existsSync(join(root, 'a', 'new.txt'))).toBe(false);
  });

  it('a --write rule spelled with /tmp works (canonical /private/tmp)', async () => {
    const name = `cordon-sb-alias-${process.pid}`;
    mkdirSync(join('/private/tmp', name), { recursive: true });
    const r = await cordon(work, ['--write', `/tmp/${name}`], `echo via-alias > /tmp/${name}/f.txt`);
    expect(r.code).toBe(0);
    expect(readFileSync(join('/private/tmp', name, 'f.txt'), 'utf8')).toBe('via-alias\n');
    rmSync(join('/private/tmp', name), { recursive: true, force: true });
  });

  it('gives a private, writable TMPDIR and removes it after the run', async () => {
    const r = await cordon(work, [], 'echo "$TMPDIR"; echo t > "$TMPDIR/t.txt" && cat "$TMPDIR/t.txt"');
    expect(r.code).toBe(0);
    const [dir, content] = r.stdout.split('\n');
    expect(dir).toMatch(/\/cordon-[A-Za-z0-9]{6}$/);
    expect(content).toBe('t');
    expect(existsSync(dir!)).toBe(false);
  });

  it('network off blocks a connection to a local server; --net allows it', async () => {
    const server = createServer((s) => s.end('pong\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const script = `/usr/bin/nc -w 3 127.0.0.1 ${port} </dev/null`;
    const off = await cordon(work, [], script);
    const on = await cordon(work, ['--net'], script);
    server.close();
    expect(off.stdout).not.toContain('pong');
    expect(on.stdout).toContain('pong');
  });

  it('network off: unix sockets work inside the working directory, not to a host socket outside', async () => {
    const hostSock = join(outside, 'host.sock');
    const server = createServer((s) => s.end('from-host\n'));
    await new Promise<void>((resolve) => server.listen(hostSock, resolve));
    const node = process.execPath;
    const inside = await cordon(
      work,
      [],
      `"${node}" -e "const n=require('net');const s=n.createServer(c=>c.end('local-ok')).listen('s.sock',()=>n.connect('s.sock').on('data',d=>{console.log(String(d));s.close()}))"`,
    );
    const toHost = await cordon(work, ['--read', outside], `/usr/bin/nc -U "${hostSock}" </dev/null`);
    server.close();
    expect({ code: inside.code, stdout: inside.stdout }).toEqual({ code: 0, stdout: 'local-ok\n' });
    expect(toHost.stdout).not.toContain('from-host');
  });

  it('--json reports what the sandbox denied, with the flag that would allow it', async () => {
    const r = await runCli(['--json', '--deny', secret, '--', '/bin/cat', join(secret, 'key')], {
      cwd: work,
      env: ENV,
    });
    const result = JSON.parse(r.stdout);
    const denial = result.annotations.find((a: { kind: string }) => a.kind === 'denial');
    expect(result.stdout.text).not.toContain('TOP-SECRET-VALUE');
    expect(denial).toMatchObject({
      operation: expect.stringMatching(/^file-read/),
      fix: expect.stringContaining('--read'),
    });
  });

  it('runs in a directory whose name has spaces, quotes, parentheses and non-ASCII', async () => {
    const odd = join(makeTempDir('cordon-sb-odd-'), 'my "proj" (1) ünï');
    mkdirSync(odd);
    const r = await cordon(odd, [], 'echo ok > f.txt');
    expect(r.code).toBe(0);
    expect(readFileSync(join(odd, 'f.txt'), 'utf8')).toBe('ok\n');
  });

  it('common runtimes start: sysctls and services in the base profile suffice', async () => {
    const r = await cordon(
      work,
      [],
      `"${process.execPath}" -e "const os=require('os');console.log(os.cpus().length>0, os.totalmem()>0, typeof os.userInfo().username)"`,
    );
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: 'true true string\n' });
    const hasPython = (() => {
      try {
        execFileSync('/usr/bin/python3', ['-c', '0'], { stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    })();
    if (hasPython) {
      const py = await cordon(
        work,
        [],
        `/usr/bin/python3 -c "import os,multiprocessing as m; print(os.cpu_count()>0); l=m.Lock(); print('ok')"`,
      );
      expect({ code: py.code, stdout: py.stdout }).toEqual({ code: 0, stdout: 'True\nok\n' });
    }
  });
});
