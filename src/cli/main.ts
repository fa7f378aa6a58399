// The CLI entry: the only file that touches process.exit / exitCode, signals and the terminal.
// Text mode prints the command's stdout on stdout and its stderr (plus annotations) on stderr,
// then one metadata line; --json prints exactly one JSON object on stdout.
import { writeSync } from 'node:fs';
import { prepareSandboxCache } from '../cache/prepare.ts';
import { renderChangeLines } from '../changes/report.ts';
import { CordonError, isCordonError } from '../errors.ts';
import { EXIT_CORDON_ERROR, signalNumber } from '../exec/exit-status.ts';
import { listInheritableFds } from '../exec/procfs.ts';
import { probeHost } from '../host/probe.ts';
import type { Plan } from '../plan/types.ts';
import type { RunResult } from '../result/types.ts';
import { executePlan, preparePlan, type RunDeps } from '../run.ts';
import { VERSION } from '../version.ts';
import { toRunOptions } from './flags.ts';
import { parseArgv } from './program.ts';
import { openReport } from './report.ts';
import { renderMetaLine } from './text.ts';

function writeAll(fd: number, text: string): void {
  if (text.length === 0) return;
  const buf = Buffer.from(text);
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      return; // EPIPE: the reader went away
    }
  }
}

function errorJson(error: CordonError): string {
  return `${JSON.stringify({ version: 1, error: { code: error.code, message: error.message } })}\n`;
}

async function linuxProcessSetup(plan: Plan): Promise<boolean> {
  // Inherited descriptors above 2 would reach the command (and, with bwrap, walk around its
  // read-only mounts): mark them close-on-exec. Then become a child subreaper so orphans of
  // the command come back to us and can be killed. Both need koffi (loaded only here, ~10-20
  // ms), so it is skipped when there is nothing to do: no inheritable descriptor, and a bwrap
  // plan with its own pid namespace (bwrap is its init; when it exits the kernel kills every
  // process left in the namespace, so no orphan can outlive the run).
  const fds = listInheritableFds();
  const needSubreaper = !(plan.backend === 'bwrap' && plan.args.includes('--unshare-pid'));
  if (fds.length === 0 && !needSubreaper) return false;
  const { becomeChildSubreaper, setCloseOnExec } = await import('../native/linux.ts');
  setCloseOnExec(fds);
  return needSubreaper ? becomeChildSubreaper() : false;
}

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseArgv(argv, VERSION);
  if (parsed.kind === 'version') {
    writeAll(1, `${VERSION}\n`);
    return 0;
  }
  if (parsed.kind === 'help') {
    writeAll(1, parsed.helpText ?? '');
    return 0;
  }
  if (parsed.kind === 'doctor') {
    const { runDoctor } = await import('./doctor.ts');
    return runDoctor(parsed.flags.json ?? false, writeAll);
  }
  if (parsed.kind === 'cache') {
    const { runCacheCommand } = await import('../cache/command.ts');
    const action = parsed.command[0] === 'clear' ? 'clear' : 'show';
    return runCacheCommand(action, parsed.flags.json ?? false, parsed.flags.cwd ?? process.cwd(), writeAll);
  }
  const options = toRunOptions(parsed.flags);
  if (parsed.kind === 'explain') {
    const { runExplain } = await import('./explain.ts');
    return runExplain(parsed.command, options, parsed.flags.platform, writeAll);
  }
  const probe: RunDeps['probe'] = (needs) => probeHost(needs);
  const prepared = preparePlan(parsed.command, options.run, {
    probe,
    subreaper: false,
    prepareCache: prepareSandboxCache,
  });
  // Pinned before anything runs: a command that re-points the report's directory cannot move it.
  const report = options.report ? await openReport(options.report, prepared.policy) : undefined;
  const subreaper = process.platform === 'linux' ? await linuxProcessSetup(prepared.plan) : false;
  // Landlock confines the CLI's own main thread before the spawn (fast path); with --report the
  // report is written from that thread afterwards, so the helper process is used instead.
  const deps: RunDeps = {
    probe,
    subreaper,
    landlockInProcess: !options.report,
    prepareCache: prepareSandboxCache,
  };

  const controller = new AbortController();
  let receivedSignal: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (receivedSignal) return;
    receivedSignal = signal;
    controller.abort({ signal });
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);

  const spinner =
    !options.json && !options.quiet && process.stderr.isTTY && (process.stderr.columns ?? 0) >= 20
      ? await import('./spinner.ts').then((m) => m.startSpinner())
      : undefined;
  if (report) {
    report.write({
      version: 1,
      status: 'pending',
      started: false,
      command: prepared.command,
      cwd: prepared.cwd,
      backend: prepared.plan.backend,
    });
  }
  // Everything the CLI loads after the run (style.ts, chalk) is inside this one bundle file, so
  // a main thread confined by Landlock (run.ts) reads no module file afterwards.
  let result: RunResult;
  try {
    result = await executePlan(
      prepared,
      {
        ...options.run,
        signal: controller.signal,
        onStart: ({ pid, backend }) => {
          if (report) {
            report.write({
              version: 1,
              status: 'running',
              started: true,
              pid,
              command: prepared.command,
              cwd: prepared.cwd,
              backend,
            });
          }
        },
        onProgress: spinner ? (bytes) => spinner.update(bytes) : undefined,
      },
      deps,
    );
  } finally {
    spinner?.stop();
    for (const s of signals) process.off(s, onSignal);
  }
  report?.write(result);
  report?.close();
  let status = result.exitStatus;
  if (receivedSignal && result.cancelled) status = 128 + signalNumber(receivedSignal);
  if (options.json) {
    writeAll(1, `${JSON.stringify({ ...result, exitStatus: status })}\n`);
    return status;
  }
  writeAll(1, result.stdout.text);
  writeAll(2, result.stderr.text);
  if (result.changes)
    writeAll(
      2,
      renderChangeLines(result.changes, result.cwd)
        .map((l) => `cordon: ${l}\n`)
        .join(''),
    );
  if (!options.quiet) {
    // chalk is loaded only when there is colour to add: a pipe or NO_COLOR gets the plain line.
    const meta = renderMetaLine({ ...result, exitStatus: status }, options.run.timeoutMs);
    const color = process.stderr.isTTY && !process.env['NO_COLOR'];
    writeAll(2, `${color ? (await import('./style.ts')).styleMeta(meta, true) : meta}\n`);
    if (options.verbose) {
      for (const a of result.annotations) writeAll(2, `cordon: [${a.kind}] ${a.message}\n`);
    }
  }
  return status;
}

export async function cliMain(argv: readonly string[]): Promise<void> {
  const wantsJson =
    argv.includes('--json') && (argv.indexOf('--') === -1 || argv.indexOf('--json') < argv.indexOf('--'));
  let code: number;
  try {
    code = await main(argv);
  } catch (error) {
    const err = isCordonError(error)
      ? error
      : new CordonError('internal', `internal error: ${(error as Error)?.stack ?? String(error)}`);
    if (wantsJson) writeAll(1, errorJson(err));
    else writeAll(2, `cordon: ${err.message}\n`);
    code = EXIT_CORDON_ERROR;
  }
  process.exitCode = code;
}
