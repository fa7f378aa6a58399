// Scripts the Windows escape battery runs INSIDE the sandbox (node -e). Each tries one escape
// through koffi (the project's own copy, readable from the sandbox) and prints a JSON verdict;
// the test checks the host side wherever there is one. Plus host-side harness: polling for a
// file, a URL protocol handler in HKCU, running a program inside a job. Used only on win32.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { allocBytes, freeBytes, loadWin32 } from '../../src/native/win32.ts';

const KOFFI = JSON.stringify(createRequire(import.meta.url).resolve('koffi'));
const js = (value: unknown) => JSON.stringify(value);
const NULL = 'const isNull = (h) => h === null || h === 0n || h === 0 || h === 0xffffffffffffffffn;';

/** Finding 2: leave the private desktop for WinSta0\Default with rights that allow input and hooks. */
export function desktopProbe(): string {
  return `const k = require(${KOFFI}); ${NULL}
const u = k.load('user32.dll');
const OpenWindowStationW = u.func('void *__stdcall OpenWindowStationW(const char16_t *n, int inherit, uint32_t access)');
const SetProcessWindowStation = u.func('int __stdcall SetProcessWindowStation(void *w)');
const OpenDesktopW = u.func('void *__stdcall OpenDesktopW(const char16_t *n, uint32_t flags, int inherit, uint32_t access)');
const GetProcessWindowStation = u.func('void *__stdcall GetProcessWindowStation()');
const GetInfo = u.func('int __stdcall GetUserObjectInformationW(void *h, int index, _Out_ uint8_t *buf, uint32_t len, _Out_ uint32_t *needed)');
const buf = Buffer.alloc(512); const n = [0];
GetInfo(GetProcessWindowStation(), 2, buf, 512, n);
const own = buf.toString('utf16le', 0, Math.max(0, n[0] - 2));
const ws = OpenWindowStationW('WinSta0', 0, 0x37f);
let desktop = 'no-winsta';
if (!isNull(ws)) { SetProcessWindowStation(ws); desktop = isNull(OpenDesktopW('Default', 0, 0, 0xbb)) ? 'denied' : 'opened'; }
process.stdout.write(JSON.stringify({ own, winsta: isNull(ws) ? 'denied' : 'opened', desktop }));`;
}

/** Finding 3: open another process (another sandbox's) for the rights that allow injection. */
export function openProcessProbe(pid: number, access: number): string {
  return `const k = require(${KOFFI}); ${NULL}
const k32 = k.load('kernel32.dll');
const OpenProcess = k32.func('void *__stdcall OpenProcess(uint32_t a, int inherit, uint32_t pid)');
const GetLastError = k32.func('uint32_t __stdcall GetLastError()');
const h = OpenProcess(${access}, 0, ${pid});
process.stdout.write(isNull(h) ? 'denied:' + GetLastError() : 'opened');`;
}

/** Finding 5: duplicate cordon's own unrestricted token, impersonate it, write outside the roots. */
export function impersonationProbe(pid: number, target: string): string {
  return `const k = require(${KOFFI}); ${NULL}
const k32 = k.load('kernel32.dll'); const adv = k.load('advapi32.dll');
const OpenProcess = k32.func('void *__stdcall OpenProcess(uint32_t a, int inherit, uint32_t pid)');
const CreateFileW = k32.func('void *__stdcall CreateFileW(const char16_t *n, uint32_t a, uint32_t s, void *sa, uint32_t d, uint32_t f, void *t)');
const CloseHandle = k32.func('int __stdcall CloseHandle(void *h)');
const GetLastError = k32.func('uint32_t __stdcall GetLastError()');
const OpenProcessToken = adv.func('int __stdcall OpenProcessToken(void *p, uint32_t a, _Out_ void **t)');
const DuplicateToken = adv.func('int __stdcall DuplicateToken(void *t, int level, _Out_ void **d)');
const SetThreadToken = adv.func('int __stdcall SetThreadToken(void *thread, void *token)');
const steps = {};
const p = OpenProcess(0x1000, 0, ${pid}); steps.process = isNull(p) ? 'denied:' + GetLastError() : 'opened';
if (!isNull(p)) { const t = [null]; steps.token = OpenProcessToken(p, 0xe, t) ? 'opened' : 'denied:' + GetLastError();
  if (t[0]) { const d = [null]; steps.duplicate = DuplicateToken(t[0], 2, d) ? 'ok' : 'denied:' + GetLastError();
    if (d[0]) { steps.impersonate = SetThreadToken(null, d[0]) ? 'ok' : 'denied:' + GetLastError();
      const f = CreateFileW(${js(target)}, 0x40000000, 0, null, 2, 0x80, null);
      steps.write = isNull(f) ? 'denied:' + GetLastError() : 'written'; if (!isNull(f)) CloseHandle(f); } } }
process.stdout.write(JSON.stringify(steps));`;
}

/** A program a service or the shell may start on the sandbox's behalf: it marks that it ran, then writes outside. */
export function markerScript(ranMarker: string, outsideTarget: string): string {
  return `const fs = require('fs');
try { fs.writeFileSync(${js(ranMarker)}, 'ran') } catch {}
try { fs.writeFileSync(${js(outsideTarget)}, 'escaped') } catch {}`;
}

/** Polls for a file a detached program may still write; the bound only ends the wait. */
export async function appears(path: string, boundMs = 15000): Promise<boolean> {
  for (let waited = 0; waited < boundMs && !existsSync(path); waited += 250)
    await new Promise((r) => setTimeout(r, 250));
  return existsSync(path);
}

/** How many Explorer windows ShellWindows lists (0 on a headless runner: the COM case cannot be tried). */
export function explorerWindows(): number {
  try {
    const out = execFileSync(
      'powershell.exe',
      ['-NoProfile', '-Command', '(New-Object -ComObject Shell.Application).Windows().Count'],
      { encoding: 'utf8' },
    );
    return Number(out.trim());
  } catch {
    return 0;
  }
}

/** Registers `scheme:` for the current user with `command`; returns the undo. */
export function registerUrlHandler(scheme: string, command: string): () => void {
  const key = `HKCU\\Software\\Classes\\${scheme}`;
  const reg = (...args: string[]) => execFileSync('reg.exe', args, { stdio: 'ignore' });
  reg('add', key, '/ve', '/d', 'URL:cordon escape test', '/f');
  reg('add', key, '/v', 'URL Protocol', '/d', '', '/f');
  reg('add', `${key}\\shell\\open\\command`, '/ve', '/d', command, '/f');
  return () => reg('delete', key, '/f');
}

/**
 * Runs `program args` (through a node wrapper that waits for a go) inside a fresh job with
 * KILL_ON_JOB_CLOSE and no BREAKAWAY_OK, as Task Scheduler or an OpenSSH session would.
 */
export async function runInsideJob(
  program: string,
  args: readonly string[],
): Promise<{ assigned: boolean; code: number | null; out: string }> {
  const w = loadWin32();
  const OpenProcess = w.koffi
    .load('kernel32.dll')
    .func('void *__stdcall OpenProcess(uint32_t a, int inherit, uint32_t pid)');
  const job = w.k32['CreateJobObjectW']!(null, null);
  const limits = allocBytes(w, 144);
  limits.view.writeUInt32LE(0x2000, 16); // JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE only
  w.k32['SetInformationJobObject']!(job, 9, limits.ptr, 144);
  freeBytes(w, limits.ptr);
  const wrapper = `process.stdin.once('data', () => { const r = require('child_process').spawnSync(${js(program)}, ${js(args)}, { encoding: 'utf8' }); process.stdout.write(r.stdout ?? ''); process.exit(r.status ?? 99) })`;
  const child = spawn(process.execPath, ['-e', wrapper], { stdio: ['pipe', 'pipe', 'inherit'] });
  await once(child, 'spawn');
  const handle = OpenProcess(0x0101, 0, child.pid); // PROCESS_TERMINATE | PROCESS_SET_QUOTA
  const assigned = w.k32['AssignProcessToJobObject']!(job, handle) !== 0;
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stdin.write('go\n');
  const [code] = (await once(child, 'exit')) as [number | null];
  w.k32['CloseHandle']!(handle);
  w.k32['CloseHandle']!(job);
  return { assigned, code, out };
}
