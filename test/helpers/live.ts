// Real-process helpers for live output: start the built CLI on pipes or on a terminal (a pty
// through script(1)), read its output as it arrives, and wait for a text to appear — ordering
// handshakes, never durations.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CORDON, CORDON_EXE, ROOT } from './cli.ts';

export interface Live {
  readonly child: ChildProcess;
  stdout(): Buffer;
  stderr(): Buffer;
  /** Resolves when `text` has appeared on stdout (or stderr), rejects if the process ends first. */
  waitFor(text: string, where?: 'stdout' | 'stderr'): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const cordonArgv = (args: readonly string[]) =>
  CORDON_EXE ? [CORDON_EXE, ...args] : [process.execPath, CORDON, ...args];

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export const hasScript = existsSync('/usr/bin/script');

/** cordon on pipes, or (`terminal`) on a 80x24 pty made by script(1): stdout+stderr merged. */
export function startCordon(
  args: readonly string[],
  opts: { terminal?: boolean; cwd?: string; readStdout?: boolean } = {},
): Live {
  const argv = cordonArgv(args);
  const full = opts.terminal
    ? ['script', '-qfec', `stty cols 80 rows 24; exec ${argv.map(shellQuote).join(' ')}`, '/dev/null']
    : argv;
  const child = spawn(full[0]!, full.slice(1), {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8', TERM: 'xterm' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  if (opts.readStdout !== false)
    child.stdout!.on('data', (c: Buffer) => {
      out.push(c);
      wake();
    });
  child.stderr!.on('data', (c: Buffer) => {
    err.push(c);
    wake();
  });
  let ended = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      ended = true;
      wake();
      resolve({ code, signal });
    }),
  );
  const live: Live = {
    child,
    stdout: () => Buffer.concat(out),
    stderr: () => Buffer.concat(err),
    exited,
    waitFor(text, where = 'stdout') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if ((where === 'stdout' ? live.stdout() : live.stderr()).includes(text)) resolve();
          else if (ended) reject(new Error(`ended before '${text}' appeared on ${where}`));
          else waiters.push(check);
        };
        check();
      });
    },
  };
  return live;
}

/** The screen lines a terminal would show for `bytes`: CR, LF, erase-in-line; other CSI ignored. */
export function screenLines(bytes: Buffer): string[] {
  const s = bytes.toString('utf8');
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\n') {
      lines.push(line.join(''));
      line = [];
      col = 0;
    } else if (c === '\r') col = 0;
    else if (c === '\x1b') {
      const m = /^\x1b\[([0-9;:?]*)([@-~])/.exec(s.slice(i));
      if (m) {
        if (m[2] === 'K') line.length = col;
        i += m[0].length - 1;
      }
    } else line[col++] = c;
  }
  if (line.length > 0) lines.push(line.join(''));
  return lines;
}
