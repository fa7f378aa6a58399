// Live output through the real CLI and real processes: the command's first line reaches
// cordon's stdout while the command is still running (it waits for the test to see that line),
// on a pipe and on a terminal; the terminal filter against a forged verdict, OSC 52 and
// queries on a real pty; EPIPE; a reader that does not read; SIGKILL of cordon; --no-stream.
// Every check is an ordering handshake, never a duration.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLinux, makeTempDir, runCli } from '../helpers/cli.ts';
import { hasScript, screenLines, startCordon } from '../helpers/live.ts';
import { offList } from '../helpers/terminal.ts';

// Prints a line, waits (bounded) until the test creates ./go, prints another.
const WAIT_FOR_GO =
  'i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; [ -e go ] && echo "second: go" || echo "second: timeout"';

describe.runIf(isLinux)('live output: the first line arrives before the command ends', () => {
  it('on a pipe (stdout and stderr apart)', async () => {
    const dir = makeTempDir();
    const c = startCordon(['--', 'sh', '-c', `echo first; echo err-first >&2; ${WAIT_FOR_GO}`], { cwd: dir });
    await c.waitFor('first\n');
    await c.waitFor('err-first\n', 'stderr');
    writeFileSync(join(dir, 'go'), '');
    const end = await c.exited;
    expect([end.code, c.stdout().toString()]).toEqual([0, 'first\nsecond: go\n']);
    expect(c.stderr().toString()).toMatch(/^err-first\ncordon: exit 0 · /);
  });

  it.runIf(hasScript)(
    'on a terminal (a pty through script), with the spinner erased before output',
    async () => {
      const dir = makeTempDir();
      const c = startCordon(['--', 'sh', '-c', `echo first; ${WAIT_FOR_GO}`], { cwd: dir, terminal: true });
      await c.waitFor('first');
      await c.waitFor('running'); // the spinner, drawn at the start of the next line
      writeFileSync(join(dir, 'go'), '');
      await c.exited;
      const lines = screenLines(c.stdout());
      expect(lines.slice(0, 2)).toEqual(['first', 'second: go']);
      expect(lines[2]).toMatch(/^cordon: exit 0 · /);
      expect(lines.join('\n')).not.toContain('running');
    },
  );

  it('library: onOutput gets every chunk as it is read, and the same result at the end', async () => {
    const { run } = await import('../../src/index.ts');
    const dir = makeTempDir();
    const chunks: string[] = [];
    const result = await run(['sh', '-c', `echo first; ${WAIT_FOR_GO}`], {
      cwd: dir,
      backend: 'none',
      onOutput: (stream, chunk) => {
        chunks.push(`${stream}:${chunk.toString()}`);
        if (chunk.includes('first')) writeFileSync(join(dir, 'go'), '');
      },
    });
    expect(chunks.join('')).toBe('stdout:first\nstdout:second: go\n');
    expect([result.exitStatus, result.stdout.text]).toEqual([0, 'first\nsecond: go\n']);
  });
});

describe.runIf(isLinux && hasScript)('live output on a real terminal: the allow-list filter', () => {
  it.each([[[]], [['--no-stream']]])(
    'a forged verdict cannot hide the real one (SGR 8 conceal, an unterminated OSC) %j',
    async (flags: string[]) => {
      const forge = "printf 'cordon: exit 0 · 1ms · bwrap, workspace\\n\\033[8m\\033]8;;http://x'; exit 3";
      const c = startCordon([...flags, '--', 'sh', '-c', forge], { terminal: true });
      await c.exited;
      const raw = c.stdout();
      // --no-stream keeps the ora spinner, whose synchronized-output mode is cordon's own.
      expect(offList(Buffer.from(raw.toString().replace(/\x1b\[\?2026[hl]/g, '')))).toEqual([]);
      expect(raw.toString()).not.toContain('\x1b]');
      const lines = screenLines(raw);
      expect(lines.at(-1)).toMatch(/^cordon: exit 3 · /);
      // The real verdict comes after an attribute reset, on its own line.
      const at = raw.indexOf('cordon: exit 3');
      expect(raw.subarray(0, at).toString()).toMatch(/\x1b\[0m(\r?\n)?(\x1b\[2m)?$/);
    },
  );

  it('drops OSC 52 (clipboard) and terminal queries, keeps colours and text', async () => {
    const evil = [
      '\\033]52;c;ZWNobyBvd25lZA==\\007',
      '\\033[6n\\033[c\\033[>c',
      '\\033P$qm\\033\\\\',
      '\\033P+q544e\\033\\\\',
      '\\033]4;1;?\\007\\033]10;?\\007\\033]11;?\\033\\\\',
      '\\033[?1049h',
    ].join('');
    const c = startCordon(['--', 'sh', '-c', `printf 'a\\033[31mred\\033[0m${evil}z\\n'`], {
      terminal: true,
    });
    await c.exited;
    const raw = c.stdout();
    expect(offList(raw)).toEqual([]);
    expect(raw.toString()).toContain('a\x1b[31mred\x1b[0mz');
    for (const bad of ['\x1b]', '\x1b[6n', '\x1b[c', '\x1bP', '\x1b[?1049h'])
      expect(raw.toString()).not.toContain(bad);
  });

  it('pipes and files get the bytes unchanged; own lines end the open string first', async () => {
    const r = await runCli(['--', 'sh', '-c', "printf 'x\\033[8m\\033]52;c;aGk='"]);
    expect(r.stdout).toBe('x\x1b[8m\x1b]52;c;aGk=');
    // stdout left conceal on and an OSC open: the verdict on stderr comes after ST, SGR 0, a newline.
    expect(r.stderr).toMatch(/^\x1b\\\x1b\[0m\ncordon: exit 0 · /);
  });
});

describe.runIf(isLinux)('live output: slow and closed readers, SIGKILL', () => {
  it('EPIPE (the reader went away): keeps collecting, exits with the exact status', async () => {
    const c = startCordon(['--max-output', '0', '--', 'sh', '-c', 'seq 1 300000; echo done >&2; exit 3']);
    await c.waitFor('1\n');
    c.child.stdout!.destroy(); // like `| head -1`
    const end = await c.exited;
    expect(end.code).toBe(3);
    expect(c.stderr().toString()).toMatch(/done\ncordon: exit 3 · /);
  });

  it('a reader that does not read: the command still runs to its end, the rest is held back', async () => {
    const dir = makeTempDir();
    const c = startCordon(
      [
        '--max-output',
        '8MiB',
        '--',
        'sh',
        '-c',
        'head -c 12000000 /dev/zero | tr "\\0" a; touch finished; echo; echo end',
      ],
      { cwd: dir, readStdout: false },
    );
    // Nobody reads cordon's stdout (a pipe buffer fills at 64 KiB); the command finishing
    // shows cordon kept draining it.
    const { existsSync } = await import('node:fs');
    for (let i = 0; i < 600 && !existsSync(join(dir, 'finished')); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, 'finished'))).toBe(true);
    const out: Buffer[] = [];
    c.child.stdout!.on('data', (b: Buffer) => out.push(b));
    const end = await c.exited;
    const text = Buffer.concat(out).toString();
    expect(end.code).toBe(0);
    expect(text).toMatch(/\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
    expect(text.endsWith('\nend\n')).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(c.stderr().toString()).toContain('not keeping up');
  });

  it('SIGKILL of cordon: what was streamed is already out', async () => {
    const dir = makeTempDir();
    const c = startCordon(['--', 'sh', '-c', `echo streamed; ${WAIT_FOR_GO}`], { cwd: dir });
    await c.waitFor('streamed\n');
    c.child.kill('SIGKILL');
    await c.exited;
    writeFileSync(join(dir, 'go'), '');
    expect(c.stdout().toString()).toBe('streamed\n');
  });

  it('--no-stream prints the whole result at the end, as before', async () => {
    const r = await runCli(['--no-stream', '--max-output', '200', '--', 'sh', '-c', 'seq 1 300; echo e >&2']);
    expect(r.stdout).toMatch(/^1\n2\n[\s\S]*\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n[\s\S]*300\n$/);
    expect(r.stderr).toMatch(/^e\ncordon: exit 0 · .* omitted$/m);
    expect(r.stderr).not.toContain('holding back');
  });

  it('output within the budget is byte-for-byte what --no-stream prints (invalid UTF-8, no final newline)', async () => {
    // stdout only: with both streams, which one was read last decides the fresh line (a race).
    const script = "printf 'a\\377b\\342\\202 \\033[1mbold\\033[0m'; printf 'x'";
    const streamed = await runCli(['--', 'sh', '-c', script]);
    const whole = await runCli(['--no-stream', '--', 'sh', '-c', script]);
    const meta = (s: string) => s.replace(/ · \d+(\.\d+)?(ms|s)/, ' · T');
    expect([streamed.stdout, meta(streamed.stderr)]).toEqual([whole.stdout, meta(whole.stderr)]);
    expect(streamed.stdout).toBe('a\ufffdb\ufffd \x1b[1mbold\x1b[0mx');
    expect(streamed.stderr).toMatch(/^\ncordon: exit 0 · /); // stdout ended mid-line
  });

  it('a long output: streamed head is a prefix, the tail a suffix, the marker exact, within --max-output', async () => {
    const r = await runCli(['--', 'seq', '1', '20000']);
    const full = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('');
    const m = /\n\[\.\.\. (\d+) bytes omitted \.\.\.\]\n/.exec(r.stdout)!;
    const head = r.stdout.slice(0, m.index);
    const tail = r.stdout.slice(m.index + m[0].length);
    expect(full.startsWith(head) && full.endsWith(tail)).toBe(true);
    expect(Number(m[1])).toBe(full.length - head.length - tail.length);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(64 * 1024);
    expect(r.stderr).toMatch(
      /^\n?cordon: holding back the middle of the output .*\ncordon: exit 0 · .* omitted\n$/,
    );
  });
});
