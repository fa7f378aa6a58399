// The CLI entry: the only file that touches process.exit / exitCode, signals and the terminal.
// Text mode prints the command's stdout on stdout and its stderr (plus annotations) on stderr,
// then one metadata line; --json prints exactly one JSON object on stdout.
import { writeSync } from 'node:fs';
import type { LaunchMode } from '../backends/types.ts';
import { CordonError, isCordonError } from '../errors.ts';
import { EXIT_CORDON_ERROR, signalNumber } from '../exec/exit-status.ts';
import { listInheritableFds } from '../exec/procfs.ts';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../options/defaults.ts';
import type { Plan } from '../plan/types.ts';
import { preparePlan } from '../prepare.ts';
import { type ErrorJson, type ReportProgressJson, stamp } from '../result/json.ts';
import type { RunResult } from '../result/types.ts';
import { executePlan } from '../run.ts';
import { VERSION } from '../version.ts';
import { colorHints } from './color-env.ts';
import { applyDefaults } from './config.ts';
import { toRunOptions } from './flags.ts';
import { parseArgv } from './program.ts';
import { openReport } from './report.ts';
import { renderVerboseHeader } from './verbose.ts';

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

/** Where the CLI writes; tests pass their own to run the CLI in-process. */
export type Write = (fd: number, text: string) => void;

function errorJson(error: CordonError): string {
  const doc: ErrorJson = stamp({ error: { code: error.code, message: error.message } });
  return `${JSON.stringify(doc)}\n`;
}

async function linuxProcessSetup(plan: Plan): Promise<boolean> {
  // Inherited descriptors above 2 would reach the command (and, with bwrap, walk around its
  // read-only mounts): mark them close-on-exec. Then become a child subreaper so orphans of
  // the command come back to us and can be killed. Both need koffi (loaded only here, ~10-20
  // ms), so it is skipped when there is nothing to do: no inheritable descriptor, and a bwrap
  // plan with its own pid namespace (bwrap is its init; when it exits the kernel kills every
  // process left in the namespace, so no orphan can outlive the run).
  const fds = listInheritableFds();
  const needSubreaper = !(plan.backend === 'bwrap' && plan.ownsPidNamespace);
  if (fds.length === 0 && !needSubreaper) return false;
  const { becomeChildSubreaper, setCloseOnExec } = await import('../native/linux.ts');
  setCloseOnExec(fds);
  return needSubreaper ? becomeChildSubreaper() : false;
}

async function main(argv: readonly string[], write: Write): Promise<number> {
  const parsed = parseArgv(argv, VERSION);
  if (parsed.kind === 'version') {
    write(1, `${VERSION}\n`);
    return 0;
  }
  if (parsed.kind === 'help') {
    write(1, parsed.helpText ?? '');
    return 0;
  }
  if (parsed.kind === 'doctor') {
    const { runDoctor } = await import('./doctor.ts');
    return runDoctor(parsed.flags.json ?? false, write);
  }
  if (parsed.kind === 'cache') {
    const { runCacheCommand } = await import('../cache/command.ts');
    const action = parsed.command[0] === 'clear' ? 'clear' : 'show';
    return runCacheCommand(action, parsed.flags.json ?? false, parsed.flags.cwd ?? process.cwd(), write);
  }
  if (parsed.kind === 'completion' || parsed.kind === 'man') {
    const gen = await import('./completion.ts');
    write(
      1,
      parsed.kind === 'man'
        ? gen.renderManPage(VERSION)
        : gen.renderCompletion(gen.parseShell(parsed.command[0])),
    );
    return 0;
  }
  // Defaults from CORDON_* variables and the config file (config.ts); a flag wins.
  const defaulted = applyDefaults(parsed.flags, process.env);
  const options = toRunOptions(defaulted.flags);
  if (parsed.kind === 'explain') {
    const { runExplain } = await import('./explain.ts');
    return runExplain(parsed.command, options, parsed.flags.platform, write, defaulted.settings);
  }
  const hints = colorHints({
    terminal: Boolean(process.stdout.isTTY || process.stderr.isTTY),
    document: options.json || options.report !== undefined,
    env: process.env,
  });
  const runOptions =
    Object.keys(hints).length > 0
      ? { ...options.run, setEnv: { ...hints, ...options.run.setEnv } }
      : options.run;
  const prepared = preparePlan(parsed.command, runOptions);
  // Pinned before anything runs: a command that re-points the report's directory cannot move it.
  const report = options.report ? await openReport(options.report, prepared.policy) : undefined;
  const subreaper = process.platform === 'linux' ? await linuxProcessSetup(prepared.plan) : false;
  const mode: LaunchMode = { subreaper };

  if (options.verbose && !options.json) write(2, renderVerboseHeader(prepared).join(''));
  const controller = new AbortController();
  let receivedSignal: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (receivedSignal) return;
    receivedSignal = signal;
    controller.abort({ signal });
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);

  // Text mode streams (live.ts) unless --no-stream; live.ts draws its own spinner.
  const text = options.json ? undefined : await import('./live.ts');
  const textOptions = {
    budgetBytes: runOptions.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    quiet: options.quiet,
    verbose: options.verbose,
    timeoutMs: runOptions.timeoutMs,
  };
  const live = text && options.stream ? text.startLiveOutput(textOptions) : undefined;
  const spinner =
    !live && !options.json && !options.quiet && process.stderr.isTTY && (process.stderr.columns ?? 0) >= 20
      ? await import('./spinner.ts').then((m) => m.startSpinner())
      : undefined;
  if (report) {
    report.write(
      stamp({
        status: 'pending',
        started: false,
        command: prepared.command,
        cwd: prepared.cwd,
        backend: prepared.plan.backend,
      }) satisfies ReportProgressJson,
    );
  }
  // Everything the CLI loads after the run (style.ts, chalk) is inside this one bundle file, so
  // a main thread confined by Landlock (run.ts) reads no module file afterwards.
  let result: RunResult;
  try {
    result = await executePlan(
      prepared,
      {
        ...runOptions,
        signal: controller.signal,
        onStart: ({ pid }) => {
          if (report) {
            report.write(
              stamp({
                status: 'running',
                started: true,
                pid,
                command: prepared.command,
                cwd: prepared.cwd,
                backend: prepared.plan.backend,
              }) satisfies ReportProgressJson,
            );
          }
        },
        onProgress: spinner ? (bytes) => spinner.update(bytes) : undefined,
        onOutput: live?.onOutput,
      },
      mode,
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
    write(1, `${JSON.stringify({ ...result, exitStatus: status })}\n`);
    return status;
  }
  const shown = { ...result, exitStatus: status };
  if (live) await live.finish(shown);
  else await text?.printWholeText(shown, textOptions);
  return status;
}

/**
 * The whole CLI contract in-process: argv → what is written and the exit status. Every error
 * becomes one `cordon: …` line (or the JSON error object with --json) and 125.
 */
export async function runCli(argv: readonly string[], write: Write = writeAll): Promise<number> {
  const wantsJson =
    argv.includes('--json') && (argv.indexOf('--') === -1 || argv.indexOf('--json') < argv.indexOf('--'));
  let code: number;
  try {
    code = await main(argv, write);
  } catch (error) {
    const err = isCordonError(error)
      ? error
      : new CordonError('internal', `internal error: ${(error as Error)?.stack ?? String(error)}`);
    if (wantsJson) write(1, errorJson(err));
    else write(2, `cordon: ${err.message}\n`);
    code = EXIT_CORDON_ERROR;
  }
  return code;
}

export async function cliMain(argv: readonly string[]): Promise<void> {
  process.exitCode = await runCli(argv);
}
