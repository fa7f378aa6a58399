// Process side of a Windows run: a private window station holding a private desktop (random
// 128-bit name; DACL SYSTEM + user + per-run SID, so neither the logon SID nor another sandbox
// gets in, and the command's own objects are not reachable from the user's desktop), stdin =
// NUL and two pipes with only the child's three ends inheritable and listed in
// PROC_THREAD_ATTRIBUTE_HANDLE_LIST, a job object with the plan's limits, then
// CreateProcessAsUserW suspended → AssignProcessToJobObject → IsProcessInJob → ResumeThread.
// Struct offsets: see native/win32.ts. Each step registers its undo in `cleanups`.

import type { SpawnFailure } from '../../exec/spawn.ts';
import {
  allocBytes,
  allocWide,
  check,
  freeBytes,
  isNullHandle,
  type Ptr,
  type Win32,
  Win32Error,
} from '../../native/win32.ts';
import { sortedEnvBlock } from '../../plan/windows/env.ts';
import { type WindowsJobResourceLimits, writeJobResourceLimits } from './job-limits.ts';
import type { Cleanup } from './prepare-files.ts';
import { fillSddl, securityDescriptorFromSddl } from './token.ts';

const GENERIC_READ = 0x80000000;
const GENERIC_ALL = 0x10000000;
const OPEN_EXISTING = 3;
const HANDLE_FLAG_INHERIT = 1;
const STARTF_USESTDHANDLES = 0x100;
const PROC_THREAD_ATTRIBUTE_HANDLE_LIST = 0x20002;
const WINSTA_ALL_ACCESS = 0xf037f;
const JOB_EXTENDED_LIMIT_CLASS = 9;
const JOB_UI_RESTRICTIONS_CLASS = 4;
export const TERMINATED_EXIT = 1;

export interface StartInput {
  readonly token: Ptr;
  readonly userSid: string;
  readonly runSid: string;
  /** Name of the private window station and of its desktop (128 random bits). */
  readonly desktopName: string;
  /** SDDL template ({user}, {run}) for both. */
  readonly desktopDacl: string;
  readonly application: string;
  readonly commandLine: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly creationFlags: number;
  readonly jobLimits: number;
  readonly uiRestrictions: number;
  /** The plan's spec.job.resourceLimits (written into the extended limit information). */
  readonly resourceLimits?: WindowsJobResourceLimits | undefined;
}

export type Started =
  | { started: true; job: Ptr; hProcess: Ptr; pid: number; outRead: Ptr; errRead: Ptr }
  | { started: false; failure: SpawnFailure; message: string };

export function inheritableAttributes(w: Win32, sd: Ptr | undefined, inherit: boolean): { ptr: Ptr } {
  const mem = allocBytes(w, 24);
  mem.view.writeUInt32LE(24, 0);
  mem.view.writeBigUInt64LE(sd ?? 0n, 8);
  mem.view.writeUInt32LE(inherit ? 1 : 0, 16);
  return { ptr: mem.ptr };
}

export function closeHandle(w: Win32, h: Ptr | null | undefined): void {
  if (!isNullHandle(h)) w.k32['CloseHandle']!(h);
}

export interface PrivateDesktop {
  /** "<station>\\<desktop>" in stable memory, for STARTUPINFO.lpDesktop. */
  readonly name: Ptr;
  readonly winsta: Ptr;
  readonly desktop: Ptr;
}

/**
 * A window station and a desktop in it, both private to this run. CreateDesktopW creates the
 * desktop on the calling process's window station, so cordon switches to the new one for that
 * call and always switches back.
 */
export function createPrivateDesktop(
  w: Win32,
  input: Pick<StartInput, 'desktopName' | 'desktopDacl' | 'userSid' | 'runSid'>,
  cleanups: Cleanup[],
): PrivateDesktop {
  const { sd } = securityDescriptorFromSddl(w, fillSddl(input.desktopDacl, input.userSid, input.runSid));
  const sa = inheritableAttributes(w, sd, false);
  try {
    const winsta = w.user['CreateWindowStationW']!(input.desktopName, 0, WINSTA_ALL_ACCESS, sa.ptr);
    if (isNullHandle(winsta)) throw new Win32Error('CreateWindowStationW', w.k32['GetLastError']!());
    cleanups.push(() => w.user['CloseWindowStation']!(winsta));
    const previous = w.user['GetProcessWindowStation']!();
    if (isNullHandle(previous)) throw new Win32Error('GetProcessWindowStation', w.k32['GetLastError']!());
    check(w, 'SetProcessWindowStation(private)', w.user['SetProcessWindowStation']!(winsta));
    let desktop: Ptr;
    try {
      desktop = w.user['CreateDesktopW']!(input.desktopName, null, null, 0, GENERIC_ALL, sa.ptr);
      if (isNullHandle(desktop)) throw new Win32Error('CreateDesktopW', w.k32['GetLastError']!());
    } finally {
      check(w, 'SetProcessWindowStation(previous)', w.user['SetProcessWindowStation']!(previous));
    }
    const d = desktop;
    cleanups.push(() => w.user['CloseDesktop']!(d));
    const name = allocWide(w, `${input.desktopName}\\${input.desktopName}`);
    cleanups.push(() => freeBytes(w, name));
    return { name, winsta, desktop };
  } finally {
    freeBytes(w, sa.ptr);
    w.k32['LocalFree']!(sd);
  }
}

export function startInJob(w: Win32, input: StartInput, cleanups: Cleanup[]): Started {
  const desktopName = createPrivateDesktop(w, input, cleanups).name;

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
  const outRead = pipes[0]![0]!;
  const errRead = pipes[1]![0]!;
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
  si.view.writeBigUInt64LE(desktopName, 16);
  si.view.writeUInt32LE(STARTF_USESTDHANDLES, 60);
  for (const [i, h] of childEnds.entries()) si.view.writeBigUInt64LE(h, 80 + i * 8);
  si.view.writeBigUInt64LE(list.ptr, 104);

  // 4. process, job, resume
  const jobHandle = w.k32['CreateJobObjectW']!(null, null);
  if (isNullHandle(jobHandle)) throw new Win32Error('CreateJobObjectW', w.k32['GetLastError']!());
  const job: Ptr = jobHandle;
  const jobRef = job;
  cleanups.push(() => closeHandle(w, jobRef)); // KILL_ON_JOB_CLOSE: closing kills what is left
  const limits = allocBytes(w, 144);
  cleanups.push(() => freeBytes(w, limits.ptr));
  limits.view.writeUInt32LE(input.jobLimits, 16);
  writeJobResourceLimits(limits.view, input.resourceLimits);
  check(
    w,
    'SetInformationJobObject(ExtendedLimit)',
    w.k32['SetInformationJobObject']!(job, JOB_EXTENDED_LIMIT_CLASS, limits.ptr, 144),
  );
  if (input.uiRestrictions !== 0) {
    // Not on a job nested in cordon's own: AssignProcessToJobObject refuses UI limits there.
    const ui = allocBytes(w, 4);
    cleanups.push(() => freeBytes(w, ui.ptr));
    ui.view.writeUInt32LE(input.uiRestrictions, 0);
    check(
      w,
      'SetInformationJobObject(BasicUIRestrictions)',
      w.k32['SetInformationJobObject']!(job, JOB_UI_RESTRICTIONS_CLASS, ui.ptr, 4),
    );
  }

  const cmdline = allocWide(w, input.commandLine);
  cleanups.push(() => freeBytes(w, cmdline));
  const envBlock = Buffer.from(sortedEnvBlock(input.env), 'utf16le');
  const envMem = allocBytes(w, envBlock.length);
  envBlock.copy(envMem.view);
  cleanups.push(() => freeBytes(w, envMem.ptr));
  const pi = allocBytes(w, 24);
  cleanups.push(() => freeBytes(w, pi.ptr));
  const created = w.adv['CreateProcessAsUserW']!(
    input.token,
    input.application,
    cmdline,
    null,
    null,
    1,
    input.creationFlags,
    envMem.ptr,
    input.cwd,
    si.ptr,
    pi.ptr,
  );
  if (created === 0) {
    const code = w.k32['GetLastError']!() as number;
    const message = new Win32Error('CreateProcessAsUserW', code).message;
    if (code === 2 || code === 3) return { started: false, failure: 'not-found', message };
    if (code === 5 || code === 193 || code === 216)
      return { started: false, failure: 'not-executable', message };
    return { started: false, failure: 'spawn-failed', message };
  }
  const hProcess: Ptr = pi.view.readBigUInt64LE(0);
  const hThread = pi.view.readBigUInt64LE(8);
  const pid = pi.view.readUInt32LE(16);
  const proc = hProcess;
  cleanups.push(() => closeHandle(w, proc));
  const inJob = [0];
  const assigned = w.k32['AssignProcessToJobObject']!(job, hProcess) !== 0;
  const code = assigned ? 0 : (w.k32['GetLastError']!() as number);
  if (!assigned || w.k32['IsProcessInJob']!(hProcess, job, inJob) === 0 || inJob[0] === 0) {
    w.k32['TerminateProcess']!(hProcess, TERMINATED_EXIT);
    closeHandle(w, hThread);
    throw new Win32Error(
      assigned ? 'IsProcessInJob (the process is not in its job)' : 'AssignProcessToJobObject',
      code,
    );
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
  return { started: true, job, hProcess, pid, outRead, errRead };
}
