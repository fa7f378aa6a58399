// Escape battery for a real Windows machine (describe.runIf(win32): skipped, and shown as
// skipped, everywhere else — no Windows here). Each case runs a command inside the sandbox that
// tries an escape, then checks the HOST side where there is one. One case per finding of
// issue 24 (docs/windows.md §9); `it.fails` marks the gaps the docs list as NOT enforced (green
// while the gap is real; red, asking for a docs update, if Windows turns out to block it).
// Runs use --net --best-effort: a restricted token cannot cut the network, deny reads, or block
// deletes, so every Windows plan has listed gaps.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAce, readDacl } from '../../src/backends/windows/acl.ts';
import { loadWin32 } from '../../src/native/win32.ts';
import { hasExplicitAce } from '../../src/plan/windows/dacl.ts';
import { deriveCordonSid } from '../../src/plan/windows/sid.ts';
import {
  DENY_WRITE_RIGHTS,
  INHERIT_CONTAINERS_AND_OBJECTS,
  rightsMask,
} from '../../src/plan/windows/spec.ts';
import { run } from '../../src/run.ts';
import * as probe from '../helpers/windows-probes.ts';

const onWindows = process.platform === 'win32';
const CORDON = fileURLToPath(new URL('../../bin/cordon', import.meta.url));
const js = (p: string) => JSON.stringify(p);
const ps = (command: string) => ['powershell.exe', '-NoProfile', '-NonInteractive', '-Command', command];

describe.runIf(onWindows)('Windows restricted token: escape battery (host-side checks)', () => {
  let base: string;
  let outside: string;
  let n = 0;
  /** A fresh project with a .git, so destructive cases do not disturb each other. */
  const project = () => {
    const dir = join(base, `project-${++n}`);
    mkdirSync(join(dir, '.git', 'hooks'), { recursive: true });
    writeFileSync(join(dir, '.git', 'config'), 'original');
    return dir;
  };
  let shared: string;
  const attempt = (cwd: string, command: string[], timeoutMs?: number) =>
    run(command, { cwd, network: true, bestEffort: true, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
  const nodeTry = (cwd: string, script: string, timeoutMs?: number) =>
    attempt(
      cwd,
      [process.execPath, '-e', `try { ${script} } catch (e) { process.stdout.write(e.code ?? String(e)) }`],
      timeoutMs,
    );

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'cordon-escape-'));
    outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'victim.txt'), 'original');
    shared = project();
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('writes inside the working directory; cmd.exe and PowerShell start (per-run default DACL)', async () => {
    await nodeTry(shared, `require('fs').writeFileSync(${js(join(shared, 'ok.txt'))}, 'x')`);
    const pwsh = await attempt(shared, ps('Write-Output ok'));
    const cmd = await attempt(shared, ['cmd.exe', '/d', '/c', 'echo ok']);
    expect([
      readFileSync(join(shared, 'ok.txt'), 'utf8'),
      pwsh.exitStatus,
      pwsh.stdout.text.trim(),
      cmd.stdout.text.trim(),
    ]).toEqual(['x', 0, 'ok', 'ok']);
  });

  it('cannot write outside the writable roots', async () => {
    await nodeTry(shared, `require('fs').writeFileSync(${js(join(outside, 'victim.txt'))}, 'pwned')`);
    await nodeTry(shared, `require('fs').writeFileSync(${js(join(outside, 'new.txt'))}, 'pwned')`);
    expect([readFileSync(join(outside, 'victim.txt'), 'utf8'), existsSync(join(outside, 'new.txt'))]).toEqual(
      ['original', false],
    );
  });

  it.fails('finding 1 (NOT enforced): cannot delete a file outside the writable roots', async () => {
    writeFileSync(join(outside, 'deletable.txt'), 'keep me');
    await nodeTry(shared, `require('fs').unlinkSync(${js(join(outside, 'deletable.txt'))})`);
    expect(existsSync(join(outside, 'deletable.txt'))).toBe(true);
  });

  it('cannot change .git, whatever the spelling, nor plant a hook, nor write its ADS', async () => {
    for (const spelled of ['.git', '.GIT', '.GiT'])
      await nodeTry(shared, `require('fs').writeFileSync(${js(join(shared, spelled, 'config'))}, 'pwned')`);
    await nodeTry(
      shared,
      `require('fs').writeFileSync(${js(join(shared, '.git', 'hooks', 'pre-commit'))}, 'evil')`,
    );
    await nodeTry(
      shared,
      `require('fs').writeFileSync(${js(`${join(shared, '.git', 'config')}:evil`)}, 'x')`,
    );
    expect([
      readFileSync(join(shared, '.git', 'config'), 'utf8'),
      existsSync(join(shared, '.git', 'hooks', 'pre-commit')),
    ]).toEqual(['original', false]);
    expect(() => readFileSync(`${join(shared, '.git', 'config')}:evil`)).toThrow();
  });

  it.fails('finding 1 (NOT enforced): cannot rename .git away and put a new one with a hook in its place', async () => {
    const p = project();
    const git = join(p, '.git');
    await nodeTry(
      p,
      `const fs = require('fs'); fs.renameSync(${js(git)}, ${js(join(p, 'git-old'))}); fs.mkdirSync(${js(join(git, 'hooks'))}, { recursive: true }); fs.writeFileSync(${js(join(git, 'hooks', 'pre-commit'))}, 'evil')`,
    );
    expect([
      readFileSync(join(git, 'config'), 'utf8'),
      existsSync(join(git, 'hooks', 'pre-commit')),
      existsSync(join(p, 'git-old')),
    ]).toEqual(['original', false, false]);
  });

  it('leaves no .cordon placeholder in the workspace', async () => {
    await nodeTry(shared, '0');
    expect(existsSync(join(shared, '.cordon'))).toBe(false);
  });

  it('a junction made after the first run does not let writes out', async () => {
    const p = project();
    await nodeTry(p, '0'); // the root's ACE is applied now, with no link below it
    execFileSync('cmd.exe', ['/d', '/c', 'mklink', '/J', join(p, 'junction'), outside]);
    await nodeTry(p, `require('fs').writeFileSync(${js(join(p, 'junction', 'victim.txt'))}, 'pwned')`);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('original');
  });

  it('finding 8: a junction to outside present at the first run is refused; no ACE propagates to the target', async () => {
    const p = project();
    const target = join(base, 'junction-target');
    mkdirSync(target);
    execFileSync('cmd.exe', ['/d', '/c', 'mklink', '/J', join(p, 'link'), target]);
    await expect(nodeTry(p, '0')).rejects.toMatchObject({ code: 'unsafe-symlink' });
    const sids = (readDacl(loadWin32(), target) ?? []).map((a) => a.sid);
    expect(sids.filter((s) => s.startsWith('S-1-9-'))).toEqual([]);
  });

  it('cannot write the real temp dir; the private TEMP works and is removed', async () => {
    const result = await nodeTry(
      shared,
      `require('fs').writeFileSync(require('path').join(process.env.TEMP, 'p.txt'), 'x'); process.stdout.write(process.env.TEMP + '\\n'); require('fs').writeFileSync(${js(join(tmpdir(), 'cordon-escape-victim.txt'))}, 'x')`,
    );
    expect(existsSync(join(tmpdir(), 'cordon-escape-victim.txt'))).toBe(false);
    const privateTemp = result.stdout.text.split('\n')[0]!;
    expect([/cordon-/.test(privateTemp), existsSync(privateTemp)]).toEqual([true, false]);
  });

  it('finding 2: runs on its own window station and cannot open WinSta0\\Default for input or hooks', async () => {
    const r = JSON.parse((await nodeTry(shared, probe.desktopProbe())).stdout.text);
    expect([String(r.own).startsWith('cordon-'), r.desktop === 'opened']).toEqual([true, false]);
  });

  it("finding 3: another sandbox cannot open this sandbox's process for writing or injection", async () => {
    const a = project();
    const b = project();
    const pidFile = join(a, 'pid.txt');
    const release = join(a, 'release');
    const long = nodeTry(
      a,
      `require('fs').writeFileSync(${js(pidFile)}, String(process.pid)); const t = setInterval(() => { if (require('fs').existsSync(${js(release)})) clearInterval(t) }, 100)`,
      60_000,
    );
    expect(await probe.appears(pidFile, 30_000)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const opened = await nodeTry(b, probe.openProcessProbe(pid, 0x0020 | 0x0008 | 0x0002)); // VM_WRITE | VM_OPERATION | CREATE_THREAD
    writeFileSync(release, '');
    await long;
    expect(opened.stdout.text).toMatch(/^denied/);
  });

  it("finding 5: cannot impersonate cordon's own unrestricted token to write outside", async () => {
    const target = join(outside, 'impersonated.txt');
    const r = await nodeTry(shared, probe.impersonationProbe(process.pid, target));
    expect({ wrote: existsSync(target), steps: r.stdout.text }).toMatchObject({ wrote: false });
  });

  it('finding 5: WMI Win32_Process.Create does not give a process outside the token', async () => {
    const ran = join(shared, 'wmi-ran');
    const target = join(outside, 'wmi.txt');
    const script = join(base, 'wmi-marker.js');
    writeFileSync(script, probe.markerScript(ran, target));
    await attempt(
      shared,
      ps(
        `Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments @{ CommandLine = '"${process.execPath}" "${script}"' } | Out-Null`,
      ),
    );
    await probe.appears(ran);
    expect(existsSync(target)).toBe(false);
  });

  it('finding 5: schtasks cannot register a task that would run as the user', async () => {
    const name = `cordon-escape-${process.pid}`;
    await attempt(shared, [
      'schtasks.exe',
      '/create',
      '/tn',
      name,
      '/tr',
      `cmd /c echo x > "${join(outside, 'task.txt')}"`,
      '/sc',
      'once',
      '/st',
      '23:59',
      '/f',
    ]);
    let registered = true;
    try {
      execFileSync('schtasks.exe', ['/query', '/tn', name], { stdio: 'ignore' });
      execFileSync('schtasks.exe', ['/delete', '/tn', name, '/f'], { stdio: 'ignore' });
    } catch {
      registered = false;
    }
    expect(registered).toBe(false);
  });

  it('finding 5: Start-Process of a URL handler does not run it outside the token', async () => {
    const scheme = `cordon-escape-${process.pid}`;
    const ran = join(shared, 'url-ran');
    const target = join(outside, 'url.txt');
    const script = join(base, 'url-marker.js');
    writeFileSync(script, probe.markerScript(ran, target));
    const unregister = probe.registerUrlHandler(scheme, `"${process.execPath}" "${script}" "%1"`);
    try {
      await attempt(shared, ps(`Start-Process '${scheme}:go'`));
      await probe.appears(ran);
      expect(existsSync(target)).toBe(false);
    } finally {
      unregister();
    }
  });

  it.runIf(onWindows && probe.explorerWindows() > 0).fails(
    'finding 5 (NOT enforced): COM to Explorer (ShellWindows → ShellExecute) runs nothing outside',
    async () => {
      const target = join(outside, 'com.txt');
      await attempt(
        shared,
        ps(
          `(New-Object -ComObject Shell.Application).Windows().Item(0).Document.Application.ShellExecute('cmd.exe', '/c echo x > "${target}"')`,
        ),
      );
      expect(await probe.appears(target)).toBe(false);
    },
  );

  it('finding 6: runs when cordon itself is in a job without breakaway, and lists the UI limits as not enforced', async () => {
    const { assigned, code, out } = await probe.runInsideJob(process.execPath, [
      CORDON,
      '--net',
      '--best-effort',
      '--json',
      '--',
      'cmd.exe',
      '/d',
      '/c',
      'echo hi',
    ]);
    const result = JSON.parse(out);
    const ui = result.notEnforced.some((g: { path: string }) => g.path === '(job UI limits)');
    expect({ assigned, code, stdout: result.stdout.text, ui }).toEqual({
      assigned: true,
      code: 0,
      stdout: 'hi\r\n',
      ui: true,
    });
  });

  it('finding 7: an ACE applied once is recognised on the next read and not written again', () => {
    const w = loadWin32();
    const dir = mkdtempSync(join(base, 'ace-'));
    const ace = {
      nativePath: dir,
      type: 'deny' as const,
      sid: deriveCordonSid('carve-out', dir),
      rights: rightsMask(DENY_WRITE_RIGHTS),
      inheritance: INHERIT_CONTAINERS_AND_OBJECTS,
    };
    const first = ensureAce(w, ace, () => 0);
    const second = ensureAce(w, ace, () => 0);
    expect([first.applied, second.applied, hasExplicitAce(readDacl(w, dir), ace)]).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('timeout kills the whole tree (job object)', async () => {
    const marker = join(shared, 'grandchild.txt');
    const child = `require('child_process').spawn(process.execPath, ['-e', "setTimeout(() => require('fs').writeFileSync(${js(marker).replace(/"/g, "'")}, 'x'), 3000)"], { stdio: 'ignore', detached: true }); setInterval(() => {}, 1000)`;
    const result = await nodeTry(shared, child, 1000);
    await new Promise((r) => setTimeout(r, 4000));
    expect([result.exitStatus, existsSync(marker)]).toEqual([124, false]);
  });
});
