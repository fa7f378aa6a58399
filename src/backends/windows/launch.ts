// The Windows launcher (impure edge): runs a WindowsPlan. In order:
//   1. private temp dir, placeholders for missing carve-outs, ACEs (acl.ts; idempotent)
//   2. restricted token (token.ts; IsTokenRestricted must say yes), world-writable audit
//      (audit.ts), a private window station + desktop for this run's SID (start-process.ts)
//   3. stdin = NUL, stdout/stderr = anonymous pipes; only these three handles are inheritable
//      to the child (PROC_THREAD_ATTRIBUTE_HANDLE_LIST)
//   4. CreateProcessAsUserW suspended → AssignProcessToJobObject (KILL_ON_JOB_CLOSE, UI limits)
//      → ResumeThread: no instruction of the command runs outside the job
//   5. pipes read on worker threads (koffi async ReadFile); the shared deadline (timeout and
//      cancel, exec/deadline.ts) calls TerminateJobObject (the whole tree, no grace: a job has
//      no TERM); after exit, the shared bounded drain (exec/drain.ts), then the job is
//      terminated so leftovers die and the pipes close
//   6. cleanup: handles, desktop, placeholders still empty, the private temp dir
// Verified only for plumbing under Wine (docs/windows.md); Wine enforces no token or ACL.

import { win32 as winPath } from 'node:path';
import { CordonError } from '../../errors.ts';
import { StreamCollector } from '../../exec/collector.ts';
import { startDeadline } from '../../exec/deadline.ts';
import { drainWithin } from '../../exec/drain.ts';
import type { SpawnOutcome } from '../../exec/spawn.ts';
import { allocBytes, freeBytes, loadWin32, type Ptr, type Win32 } from '../../native/win32.ts';
import { DRAIN_AFTER_EXIT_MS } from '../../options/defaults.ts';
import type { WindowsPlan } from '../../plan/types.ts';
import { buildBatchCommandLine } from '../../plan/windows/command-line.ts';
import type { LaunchContext, LaunchResult } from '../types.ts';
import type { AceResult } from './acl.ts';
import { auditWorldWritable } from './audit.ts';
import { jobLimitHit } from './job-limits.ts';
import { type Cleanup, prepareFiles, refuseNetworkDrives } from './prepare-files.ts';
import { resolveWindowsProgram } from './resolve-program.ts';
import { startInJob, TERMINATED_EXIT } from './start-process.ts';
import { assertRestricted, createRestrictedToken, drawRunIdentity } from './token.ts';

const INFINITE = 0xffffffff;
const READ_CHUNK = 64 * 1024;

export interface WindowsLaunchRequest {
  readonly captureBytes: number;
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onStart?: ((pid: number) => void) | undefined;
  readonly onProgress?: ((bytesSeen: number) => void) | undefined;
  readonly onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
  readonly drainMs?: number | undefined;
  /** cordon's own environment (SystemRoot for cmd.exe; SystemDrive, PUBLIC, ProgramData for the audit). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Called with what was done to the file system (ACE timings), for --verbose and benches. */
  readonly onAcl?: ((results: readonly AceResult[]) => void) | undefined;
  /**
   * Wine lane only (test/wine): Wine ignores restricting SIDs, so IsTokenRestricted says no and
   * every run is refused; the lane sets this to exercise the plumbing after that check. run.ts
   * never sets it.
   */
  readonly acceptUnrestrictedToken?: 'wine-plumbing-lane' | undefined;
}

function wrapSetupError(error: unknown): never {
  if (error instanceof CordonError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  throw new CordonError(
    'backend-unavailable',
    `could not set up the Windows sandbox: ${message} — nothing was run; cordon doctor shows what this machine supports`,
  );
}

function readAll(
  w: Win32,
  handle: Ptr,
  collector: StreamCollector,
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
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
        const chunk = Buffer.from(buf.view.subarray(0, n));
        collector.push(chunk);
        onChunk(chunk);
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
    const { env, tmpSid } = prepareFiles(w, plan, cleanups, request.onAcl);
    // 2. token and desktop
    const { runSid, desktopName } = drawRunIdentity();
    token = createRestrictedToken(
      w,
      plan.spec.token.flags.value,
      plan.spec.token.denyOnlySids,
      plan.spec.token.restrictingSids,
      plan.spec.token.defaultDacl,
      (entry) =>
        entry.sid === '{private-tmp}' ? tmpSid : entry.sid.startsWith('S-') ? entry.sid : undefined,
      runSid,
    );
    if (request.acceptUnrestrictedToken !== 'wine-plumbing-lane') assertRestricted(token);
    const t = token;
    cleanups.push(() => t.close());
    const audited = auditWorldWritable(w, {
      sid: plan.spec.audit.sid,
      maxEntries: plan.spec.audit.maxEntries,
      writableRoots: [
        ...plan.spec.acl.aces.filter((a) => a.type === 'allow').map((a) => a.nativePath),
        ...(env['TEMP'] && plan.spec.privateTmp ? [env['TEMP']] : []),
      ],
      pathDirs: (Object.entries(env).find(([k]) => k.toUpperCase() === 'PATH')?.[1] ?? '')
        .split(';')
        .filter((d) => d.trim() !== ''),
      hostEnv: request.hostEnv,
    });
    request.onAcl?.(audited.results);
    const started = startInJob(
      w,
      {
        token: token.token,
        userSid: token.userSid,
        runSid,
        desktopName,
        desktopDacl: plan.spec.desktop.dacl,
        application,
        commandLine,
        env,
        cwd: cwdNative,
        creationFlags: plan.spec.process.creationFlags.value,
        jobLimits: plan.spec.job.limits.value,
        uiRestrictions: plan.spec.job.uiRestrictions.value,
        resourceLimits: plan.spec.job.resourceLimits,
      },
      cleanups,
    );
    if (!started.started) {
      runCleanups();
      return notStarted(started.failure, started.message);
    }
    ({ job, hProcess, pid, outRead, errRead } = started);
  } catch (error) {
    runCleanups();
    wrapSetupError(error);
  }

  // 5. run
  request.onStart?.(pid);
  const chunkFrom = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
    request.onOutput?.(name, chunk);
    request.onProgress?.(stdout.totalBytes + stderr.totalBytes);
  };
  const readers = Promise.all([
    readAll(w, outRead, stdout, chunkFrom('stdout')),
    readAll(w, errRead, stderr, chunkFrom('stderr')),
  ]);
  const terminate = () => w.k32['TerminateJobObject']!(job, TERMINATED_EXIT);
  // A job has no TERM to send first: the deadline terminates it outright (grace 0).
  const deadline = startDeadline({
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    graceMs: 0,
    kill: (sig) => {
      if (sig === 'SIGKILL') terminate();
    },
  });
  await new Promise<void>((resolve) => {
    w.k32['WaitForSingleObject']!.async(hProcess, INFINITE, () => resolve());
  });
  const reason = deadline.reason;
  deadline.dispose();
  const timedOut = reason === 'timeout';
  const cancelled = reason === 'cancel';
  const code = [0];
  w.k32['GetExitCodeProcess']!(hProcess, code);
  const drainMs = request.drainMs ?? DRAIN_AFTER_EXIT_MS;
  if (!(await drainWithin(readers, drainMs))) {
    terminate(); // leftovers die; their pipe ends close
    await drainWithin(readers, drainMs);
  }
  runCleanups();
  return {
    started: true,
    pid,
    exitCode: timedOut || cancelled ? null : code[0]! >>> 0,
    signal: null,
    timedOut,
    cancelled,
    durationMs: performance.now() - startedAt,
    stdout: stdout.snapshot(),
    stderr: stderr.snapshot(),
  };
}

/** The launcher interface run.ts uses (the restricted token resolves the program itself). */
export async function launchWindows(plan: WindowsPlan, ctx: LaunchContext): Promise<LaunchResult> {
  const outcome = await launchWindowsPlan(plan, {
    captureBytes: ctx.captureBytes,
    timeoutMs: ctx.timeoutMs,
    signal: ctx.signal,
    onStart: ctx.onStart,
    onProgress: ctx.onProgress,
    onOutput: ctx.onOutput,
    hostEnv: ctx.hostEnv,
  });
  return { outcome, annotations: [], limit: jobLimitHit(plan, outcome) };
}
