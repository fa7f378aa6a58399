// The Windows launcher (impure edge): runs a WindowsPlan. In order:
//   1. private temp dir, placeholders for missing carve-outs, ACEs (acl.ts; idempotent)
//   2. restricted token (token.ts), world-writable audit (audit.ts), a private desktop whose
//      DACL admits the logon SID
//   3. stdin = NUL, stdout/stderr = anonymous pipes; only these three handles are inheritable
//      to the child (PROC_THREAD_ATTRIBUTE_HANDLE_LIST)
//   4. CreateProcessAsUserW suspended → AssignProcessToJobObject (KILL_ON_JOB_CLOSE, UI limits)
//      → ResumeThread: no instruction of the command runs outside the job
//   5. pipes read on worker threads (koffi async ReadFile); timeout and cancel call
//      TerminateJobObject (the whole tree); after exit, a drain window, then the job is
//      terminated so leftovers die and the pipes close
//   6. cleanup: handles, desktop, placeholders still empty, the private temp dir
// Verified only for plumbing under Wine (docs/windows.md); Wine enforces no token or ACL.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';
import { StreamCollector } from '../../exec/collector.ts';
import type { SpawnOutcome } from '../../exec/spawn.ts';
import {
  allocBytes,
  allocWide,
  check,
  freeBytes,
  isNullHandle,
  loadWin32,
  type Ptr,
  type Win32,
  Win32Error,
} from '../../native/win32.ts';
import { DRAIN_AFTER_EXIT_MS } from '../../options/defaults.ts';
import type { WindowsPlan } from '../../plan/types.ts';
import { buildBatchCommandLine } from '../../plan/windows/command-line.ts';
import { sortedEnvBlock } from '../../plan/windows/env.ts';
import { deriveCordonSid } from '../../plan/windows/sid.ts';
import { ALLOW_WRITE_RIGHTS, INHERIT_CONTAINERS_AND_OBJECTS, rightsMask } from '../../plan/windows/spec.ts';
import { type AceResult, ensureAce } from './acl.ts';
import { auditWorldWritable } from './audit.ts';
import { resolveWindowsProgram } from './resolve-program.ts';
import { createRestrictedToken, securityDescriptorFromSddl } from './token.ts';

const GENERIC_READ = 0x80000000;
const GENERIC_ALL = 0x10000000;
const OPEN_EXISTING = 3;
const HANDLE_FLAG_INHERIT = 1;
const STARTF_USESTDHANDLES = 0x100;
const PROC_THREAD_ATTRIBUTE_HANDLE_LIST = 0x20002;
const JOB_EXTENDED_LIMIT_CLASS = 9;
const JOB_UI_RESTRICTIONS_CLASS = 4;
const INFINITE = 0xffffffff;
const READ_CHUNK = 64 * 1024;
const TERMINATED_EXIT = 1;

export interface WindowsLaunchRequest {
  readonly captureBytes: number;
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onStart?: ((pid: number) => void) | undefined;
  readonly onProgress?: ((bytesSeen: number) => void) | undefined;
  readonly drainMs?: number | undefined;
  /** cordon's own environment (SystemRoot for cmd.exe, SSH_* to skip the private desktop). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Called with what was done to the file system (ACE timings), for --verbose and benches. */
  readonly onAcl?: ((results: readonly AceResult[]) => void) | undefined;
}

type Cleanup = () => void;

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function wrapSetupError(error: unknown): never {
  if (error instanceof CordonError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  throw new CordonError(
    'backend-unavailable',
    `could not set up the Windows sandbox: ${message} — nothing was run; cordon doctor shows what this machine supports`,
  );
}

const DRIVE_REMOTE = 4;

/**
 * ACEs on a mapped network drive are checked by the file server against the user, not the
 * restricted token (the same reason UNC rules are refused in the plan): refuse.
 */
function refuseNetworkDrives(w: Win32, plan: WindowsPlan): void {
  const paths = [...plan.spec.acl.aces.map((a) => a.nativePath), plan.spec.privateTmp?.parent ?? ''];
  for (const path of paths) {
    const drive = /^(?:\\\\\?\\)?([A-Za-z]):/.exec(path)?.[1];
    if (drive === undefined) continue;
    if (w.k32['GetDriveTypeW']!(`${drive}:\\`) === DRIVE_REMOTE) {
      throw new CordonError(
        'policy-unenforceable',
        `'${path}' is on the network drive ${drive}: — the file server checks the user, not the restricted token, so cordon cannot keep writes out of it; run from a local drive`,
      );
    }
  }
}

/** Prepares the file system: private temp dir, placeholders, ACEs. Returns undo steps. */
function prepareFiles(w: Win32, plan: WindowsPlan, cleanups: Cleanup[], request: WindowsLaunchRequest) {
  const env: Record<string, string> = { ...plan.env };
  let tmpSid: string | undefined;
  const aces = plan.spec.acl.aces.map((a) => ({
    nativePath: a.nativePath,
    type: a.type,
    sid: a.sid,
    rights: a.rights.value,
    inheritance: a.inheritance.value,
  }));
  const privateTmp = plan.spec.privateTmp;
  if (privateTmp) {
    const dir = mkdtempSync(winPath.join(privateTmp.parent.replace(/\//g, '\\'), privateTmp.prefix));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    for (const name of privateTmp.env) env[name] = dir;
    tmpSid = deriveCordonSid('write-root', dir.replace(/\\/g, '/'));
    aces.push({
      nativePath: dir,
      type: 'allow',
      sid: tmpSid,
      rights: rightsMask(ALLOW_WRITE_RIGHTS),
      inheritance: INHERIT_CONTAINERS_AND_OBJECTS,
    });
  }
  for (const placeholder of plan.spec.acl.placeholders) {
    if (exists(placeholder.nativePath)) continue;
    writeFileSync(placeholder.nativePath, '', { flag: 'wx' });
    cleanups.push(() => {
      try {
        if (statSync(placeholder.nativePath).size === 0) rmSync(placeholder.nativePath, { force: true });
      } catch {
        // gone already
      }
    });
  }
  const results: AceResult[] = [];
  for (const ace of aces) {
    if (!exists(ace.nativePath)) continue; // vanished since planning: nothing to grant or protect
    results.push(ensureAce(w, ace, () => performance.now()));
  }
  request.onAcl?.(results);
  return { env, tmpSid };
}

function inheritableAttributes(w: Win32, sd: Ptr | undefined, inherit: boolean): { ptr: Ptr } {
  const mem = allocBytes(w, 24);
  mem.view.writeUInt32LE(24, 0);
  mem.view.writeBigUInt64LE(sd ?? 0n, 8);
  mem.view.writeUInt32LE(inherit ? 1 : 0, 16);
  return { ptr: mem.ptr };
}

function closeHandle(w: Win32, h: Ptr | null | undefined): void {
  if (!isNullHandle(h)) w.k32['CloseHandle']!(h);
}

function readAll(w: Win32, handle: Ptr, collector: StreamCollector, onChunk: () => void): Promise<void> {
  const buf = allocBytes(w, READ_CHUNK);
  const count = allocBytes(w, 4);
  return new Promise((resolve) => {
    const next = () => {
      w.k32['ReadFile']!.async(handle, buf.ptr, READ_CHUNK, count.ptr, null, (err: unknown, ok: boolean) => {
        const n = count.view.readUInt32LE(0);
        if (err || !ok || n === 0) {
          freeBytes(w, buf.ptr);
          freeBytes(w, count.ptr);
          resolve();
          return;
        }
        collector.push(Buffer.from(buf.view.subarray(0, n)));
        onChunk();
        next();
      });
    };
    next();
  });
}

export async function launchWindowsPlan(
  plan: WindowsPlan,
  request: WindowsLaunchRequest,
): Promise<SpawnOutcome> {
  const startedAt = performance.now();
  const stdout = new StreamCollector(request.captureBytes);
  const stderr = new StreamCollector(request.captureBytes);
  const notStarted = (
    failure: SpawnOutcome['failure'],
    failureMessage?: string,
    cancelled = false,
  ): SpawnOutcome => ({
    started: false,
    failure,
    failureMessage,
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled,
    durationMs: performance.now() - startedAt,
    stdout: stdout.snapshot(),
    stderr: stderr.snapshot(),
  });
  if (request.signal?.aborted) return notStarted(undefined, undefined, true);

  const cwdNative = plan.spec.process.cwd;
  const resolved = resolveWindowsProgram(plan.spec.process.program, plan.env, cwdNative);
  if (resolved === undefined)
    return notStarted('not-found', `${plan.spec.process.program} was not found in the command's PATH`);
  const systemRoot = request.hostEnv['SystemRoot'] ?? request.hostEnv['SYSTEMROOT'] ?? 'C:\\Windows';
  const comspec = winPath.join(systemRoot, 'System32', 'cmd.exe');
  const isBatch = /\.(bat|cmd)$/i.test(resolved);
  const commandLine = isBatch ? buildBatchCommandLine(comspec, resolved, plan.args) : plan.commandLine;
  const application = isBatch ? comspec : resolved;

  const w = loadWin32();
  const cleanups: Cleanup[] = [];
  const runCleanups = () => {
    for (const step of cleanups.reverse()) {
      try {
        step();
      } catch {
        // best effort: one failed step must not keep the others from running
      }
    }
    cleanups.length = 0;
  };
  let token: ReturnType<typeof createRestrictedToken>;
  let job: Ptr;
  let hProcess: Ptr;
  let pid: number;
  let outRead: Ptr;
  let errRead: Ptr;
  try {
    // 1. files
    refuseNetworkDrives(w, plan);
    const { env, tmpSid } = prepareFiles(w, plan, cleanups, request);
    // 2. token and desktop
    token = createRestrictedToken(
      w,
      plan.spec.token.flags.value,
      plan.spec.token.denyOnlySids,
      plan.spec.token.restrictingSids,
      plan.spec.token.defaultDacl,
      (entry) =>
        entry.sid === '{private-tmp}' ? tmpSid : entry.sid.startsWith('S-') ? entry.sid : undefined,
    );
    const t = token;
    cleanups.push(() => t.close());
    const audited = auditWorldWritable(w, {
      sid: plan.spec.audit.sid,
      maxEntries: plan.spec.audit.maxEntries,
      budgetMs: plan.spec.audit.budgetMs,
      writableRoots: [
        ...plan.spec.acl.aces.filter((a) => a.type === 'allow').map((a) => a.nativePath),
        ...(env['TEMP'] && plan.spec.privateTmp ? [env['TEMP']] : []),
      ],
      pathDirs: (Object.entries(env).find(([k]) => k.toUpperCase() === 'PATH')?.[1] ?? '')
        .split(';')
        .filter((d) => d.trim() !== ''),
      hostEnv: request.hostEnv,
      logonSid: token.logonSid,
    });
    request.onAcl?.(audited);
    let desktopName: Ptr | null = null;
    const ssh = ['SSH_CONNECTION', 'SSH_CLIENT', 'SSH_TTY'].some((k) => (request.hostEnv[k] ?? '') !== '');
    if (!ssh) {
      const name = `cordon-${process.pid}-${Math.floor(performance.now()).toString(36)}`;
      const { sd } = securityDescriptorFromSddl(w, `D:(A;;GA;;;SY)(A;;GA;;;${token.logonSid ?? 'WD'})`);
      const sa = inheritableAttributes(w, sd, false);
      const desktop = w.user['CreateDesktopW']!(name, null, null, 0, GENERIC_ALL, sa.ptr);
      freeBytes(w, sa.ptr);
      w.k32['LocalFree']!(sd);
      if (isNullHandle(desktop)) throw new Win32Error('CreateDesktopW', w.k32['GetLastError']!());
      cleanups.push(() => w.user['CloseDesktop']!(desktop));
      desktopName = allocWide(w, `WinSta0\\${name}`);
      const dn = desktopName;
      cleanups.push(() => freeBytes(w, dn));
    }

    // 3. stdio
    const inherit = inheritableAttributes(w, undefined, true);
    cleanups.push(() => freeBytes(w, inherit.ptr));
    const nul = w.k32['CreateFileW']!('NUL', GENERIC_READ, 3, inherit.ptr, OPEN_EXISTING, 0, null);
    if (isNullHandle(nul)) throw new Win32Error('CreateFileW(NUL)', w.k32['GetLastError']!());
    const pipes: Ptr[][] = [];
    for (const stream of ['stdout', 'stderr']) {
      const r = [null];
      const wr = [null];
      check(w, `CreatePipe(${stream})`, w.k32['CreatePipe']!(r, wr, inherit.ptr, 0));
      check(w, 'SetHandleInformation', w.k32['SetHandleInformation']!(r[0], HANDLE_FLAG_INHERIT, 0));
      pipes.push([r[0] as unknown as Ptr, wr[0] as unknown as Ptr]);
    }
    outRead = pipes[0]![0]!;
    errRead = pipes[1]![0]!;
    const childEnds = [nul as Ptr, pipes[0]![1]!, pipes[1]![1]!];
    const closeChildEnds = () => {
      for (const h of childEnds.splice(0)) closeHandle(w, h);
    };
    cleanups.push(closeChildEnds);

    // attribute list with the handle list
    const size = [0];
    w.k32['InitializeProcThreadAttributeList']!(null, 1, 0, size);
    const list = allocBytes(w, size[0]!);
    cleanups.push(() => freeBytes(w, list.ptr));
    check(
      w,
      'InitializeProcThreadAttributeList',
      w.k32['InitializeProcThreadAttributeList']!(list.ptr, 1, 0, size),
    );
    cleanups.push(() => w.k32['DeleteProcThreadAttributeList']!(list.ptr));
    const handles = allocBytes(w, 24);
    cleanups.push(() => freeBytes(w, handles.ptr));
    for (const [i, h] of childEnds.entries()) handles.view.writeBigUInt64LE(h, i * 8);
    check(
      w,
      'UpdateProcThreadAttribute(HANDLE_LIST)',
      w.k32['UpdateProcThreadAttribute']!(
        list.ptr,
        0,
        PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
        handles.ptr,
        24,
        null,
        null,
      ),
    );
    const si = allocBytes(w, 112);
    cleanups.push(() => freeBytes(w, si.ptr));
    si.view.writeUInt32LE(112, 0);
    si.view.writeBigUInt64LE(desktopName ?? 0n, 16);
    si.view.writeUInt32LE(STARTF_USESTDHANDLES, 60);
    for (const [i, h] of childEnds.entries()) si.view.writeBigUInt64LE(h, 80 + i * 8);
    si.view.writeBigUInt64LE(list.ptr, 104);

    // 4. process, job, resume
    const jobHandle = w.k32['CreateJobObjectW']!(null, null);
    if (isNullHandle(jobHandle)) throw new Win32Error('CreateJobObjectW', w.k32['GetLastError']!());
    job = jobHandle;
    const jobRef = job;
    cleanups.push(() => closeHandle(w, jobRef)); // KILL_ON_JOB_CLOSE: closing kills what is left
    const limits = allocBytes(w, 144);
    cleanups.push(() => freeBytes(w, limits.ptr));
    limits.view.writeUInt32LE(plan.spec.job.limits.value, 16);
    check(
      w,
      'SetInformationJobObject(ExtendedLimit)',
      w.k32['SetInformationJobObject']!(job, JOB_EXTENDED_LIMIT_CLASS, limits.ptr, 144),
    );
    const ui = allocBytes(w, 4);
    cleanups.push(() => freeBytes(w, ui.ptr));
    ui.view.writeUInt32LE(plan.spec.job.uiRestrictions.value, 0);
    check(
      w,
      'SetInformationJobObject(BasicUIRestrictions)',
      w.k32['SetInformationJobObject']!(job, JOB_UI_RESTRICTIONS_CLASS, ui.ptr, 4),
    );

    const cmdline = allocWide(w, commandLine);
    cleanups.push(() => freeBytes(w, cmdline));
    const envBlock = Buffer.from(sortedEnvBlock(env), 'utf16le');
    const envMem = allocBytes(w, envBlock.length);
    envBlock.copy(envMem.view);
    cleanups.push(() => freeBytes(w, envMem.ptr));
    const pi = allocBytes(w, 24);
    cleanups.push(() => freeBytes(w, pi.ptr));
    const created = w.adv['CreateProcessAsUserW']!(
      token.token,
      application,
      cmdline,
      null,
      null,
      true,
      plan.spec.process.creationFlags.value,
      envMem.ptr,
      cwdNative,
      si.ptr,
      pi.ptr,
    );
    if (!created) {
      const code = w.k32['GetLastError']!() as number;
      runCleanups();
      const message = new Win32Error('CreateProcessAsUserW', code).message;
      if (code === 2 || code === 3) return notStarted('not-found', message);
      if (code === 5 || code === 193 || code === 216) return notStarted('not-executable', message);
      return notStarted('spawn-failed', message);
    }
    hProcess = pi.view.readBigUInt64LE(0);
    const hThread = pi.view.readBigUInt64LE(8);
    pid = pi.view.readUInt32LE(16);
    const proc = hProcess;
    cleanups.push(() => closeHandle(w, proc));
    if (!w.k32['AssignProcessToJobObject']!(job, hProcess)) {
      const code = w.k32['GetLastError']!() as number;
      w.k32['TerminateProcess']!(hProcess, TERMINATED_EXIT);
      closeHandle(w, hThread);
      throw new Win32Error('AssignProcessToJobObject', code);
    }
    const resumed = w.k32['ResumeThread']!(hThread) as number;
    closeHandle(w, hThread);
    if (resumed === 0xffffffff) {
      w.k32['TerminateJobObject']!(job, TERMINATED_EXIT);
      throw new Win32Error('ResumeThread', w.k32['GetLastError']!());
    }
    closeChildEnds(); // our copies: EOF arrives when the tree's copies close
    cleanups.push(() => closeHandle(w, outRead));
    cleanups.push(() => closeHandle(w, errRead));
  } catch (error) {
    runCleanups();
    wrapSetupError(error);
  }

  // 5. run
  request.onStart?.(pid);
  const progress = () => request.onProgress?.(stdout.totalBytes + stderr.totalBytes);
  const readers = Promise.all([readAll(w, outRead, stdout, progress), readAll(w, errRead, stderr, progress)]);
  let timedOut = false;
  let cancelled = false;
  const terminate = () => w.k32['TerminateJobObject']!(job, TERMINATED_EXIT);
  const timer =
    request.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          terminate();
        }, request.timeoutMs);
  const onAbort = () => {
    cancelled = true;
    terminate();
  };
  request.signal?.addEventListener('abort', onAbort, { once: true });
  await new Promise<void>((resolve) => {
    w.k32['WaitForSingleObject']!.async(hProcess, INFINITE, () => resolve());
  });
  clearTimeout(timer);
  request.signal?.removeEventListener('abort', onAbort);
  const code = [0];
  w.k32['GetExitCodeProcess']!(hProcess, code);
  const drainMs = request.drainMs ?? DRAIN_AFTER_EXIT_MS;
  const drained = await Promise.race([
    readers.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), drainMs)),
  ]);
  if (!drained) {
    terminate(); // leftovers die; their pipe ends close
    await Promise.race([readers, new Promise((r) => setTimeout(r, drainMs))]);
  }
  runCleanups();
  return {
    started: true,
    pid,
    exitCode: timedOut || cancelled ? null : code[0]! >>> 0,
    signal: null,
    timedOut,
    cancelled: cancelled && !timedOut,
    durationMs: performance.now() - startedAt,
    stdout: stdout.snapshot(),
    stderr: stderr.snapshot(),
  };
}
