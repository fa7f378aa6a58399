// --changes against the real file system, through the library's run(): the unconfined
// backend everywhere, bwrap where it is usable. Also: the report never alters the command's
// output or exit status, whatever limit cuts it.
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeReport } from '../../src/changes/types.ts';
import { probeHost } from '../../src/host/probe.ts';
import { run } from '../../src/run.ts';
import { makeTempDir } from '../helpers/cli.ts';

const bwrapUsable = process.platform === 'linux' && probeHost({ bwrap: true }).bwrap?.usable === true;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const dir = makeTempDir('cordon-changes-');
  dirs.push(dir);
  mkdirSync(join(dir, 'a/b'), { recursive: true });
  writeFileSync(join(dir, 'a/b/keep.txt'), 'keep');
  writeFileSync(join(dir, 'a/b/move-me.txt'), 'move');
  writeFileSync(join(dir, 'mod.txt'), 'one');
  writeFileSync(join(dir, 'same-size.txt'), 'aaaa');
  writeFileSync(join(dir, 'del.txt'), 'x');
  mkdirSync(join(dir, 'old/inner'), { recursive: true });
  writeFileSync(join(dir, 'old/inner/x'), 'x');
  return dir;
}

const SCRIPT = [
  'echo two >> mod.txt',
  // same size, mtime put back: only the ctime shows the change
  'M=$(stat -c %Y same-size.txt); printf bbbb > same-size.txt; touch -d @$M same-size.txt',
  'rm del.txt',
  'rm -r old',
  'mkdir -p n/m && echo new > n/m/new.txt',
  'mv a/b/move-me.txt a/moved.txt',
  'echo out',
].join(' && ');

function listed(report: ChangeReport | undefined) {
  return report?.entries.map((e) => `${e.change} ${e.path}`);
}

const backends = [['none', true] as const, ['bwrap', bwrapUsable] as const];

describe.each(backends)('--changes with backend %s', (backend, usable) => {
  it.runIf(usable)('lists created, modified, deleted and renamed paths in nested directories', async () => {
    const dir = workspace();
    const result = await run(['sh', '-c', SCRIPT], { cwd: dir, backend, changes: { maxFiles: 100 } });
    expect([result.exitCode, result.stdout.text]).toEqual([0, 'out\n']);
    expect(listed(result.changes)).toEqual([
      `deleted ${dir}/a/b/move-me.txt`,
      `created ${dir}/a/moved.txt`,
      `deleted ${dir}/del.txt`,
      `modified ${dir}/mod.txt`,
      `created ${dir}/n`,
      `created ${dir}/n/m`,
      `created ${dir}/n/m/new.txt`,
      `deleted ${dir}/old`,
      `deleted ${dir}/old/inner`,
      `deleted ${dir}/old/inner/x`,
      `modified ${dir}/same-size.txt`,
    ]);
    expect([
      result.changes?.created,
      result.changes?.modified,
      result.changes?.deleted,
      result.changes?.truncation,
    ]).toEqual([4, 2, 5, undefined]);
  });

  it.runIf(usable)('keeps names with a newline and invalid UTF-8 exact', async () => {
    const dir = workspace();
    const result = await run(['sh', '-c', `touch "$(printf 'nl\\nname')" "$(printf 'bad\\377')"`], {
      cwd: dir,
      backend,
      changes: true,
    });
    const bad = Buffer.concat([Buffer.from(`${dir}/bad`), Buffer.from([0xff])]);
    expect(result.changes?.entries).toEqual([
      { change: 'created', path: `${dir}/bad\uFFFD`, pathBase64: bad.toString('base64'), type: 'file' },
      { change: 'created', path: `${dir}/nl\nname`, type: 'file' },
    ]);
  });
});

describe('--changes limits', () => {
  it('cuts the listing at maxFiles and says so', async () => {
    const dir = workspace();
    const result = await run(['sh', '-c', 'for i in 1 2 3 4 5; do touch f$i; done'], {
      cwd: dir,
      backend: 'none',
      changes: { maxFiles: 2 },
    });
    expect([result.changes?.created, listed(result.changes), result.changes?.truncation]).toEqual([
      5,
      [`created ${dir}/f1`, `created ${dir}/f2`],
      {
        code: 'changes_truncated',
        reasons: { max_files: 3 },
        skipped: [`${dir}/f3`, `${dir}/f4`, `${dir}/f5`],
        skipped_count: 3,
      },
    ]);
  });

  it('does not descend below maxDepth and says which directories it left out', async () => {
    const dir = workspace();
    const result = await run(['sh', '-c', 'touch a/b/deep.txt top.txt'], {
      cwd: dir,
      backend: 'none',
      changes: { maxDepth: 1 },
    });
    expect([listed(result.changes), result.changes?.truncation]).toEqual([
      [`created ${dir}/top.txt`],
      {
        code: 'changes_truncated',
        reasons: { depth: 2 },
        skipped: [`${dir}/a`, `${dir}/old`],
        skipped_count: 2,
      },
    ]);
  });

  it('reports what the scan-time budget left out', async () => {
    const dir = workspace();
    const result = await run(['touch', 'x'], { cwd: dir, backend: 'none', changes: { timeMs: 0 } });
    expect([result.exitCode, listed(result.changes), result.changes?.truncation]).toEqual([
      0,
      [],
      { code: 'changes_truncated', reasons: { time: 1 }, skipped: [dir], skipped_count: 1 },
    ]);
  });

  it('never alters the output or exit status, even when the report is cut', async () => {
    const dir = workspace();
    const cmd = ['sh', '-c', 'echo to-out; echo to-err >&2; touch x1 x2 x3; exit 3'];
    const plain = await run(cmd, { cwd: dir, backend: 'none' });
    rmSync(join(dir, 'x1'), { force: true });
    const cut = await run(cmd, {
      cwd: dir,
      backend: 'none',
      changes: { maxFiles: 1, maxDepth: 1, timeMs: 0 },
    });
    const pick = (r: typeof plain) => [r.exitCode, r.exitStatus, r.status, r.stdout, r.stderr, r.annotations];
    expect(pick(cut)).toEqual(pick(plain));
    expect(plain.changes).toBeUndefined();
    expect(cut.changes?.truncation?.code).toBe('changes_truncated');
  });

  it('leaves untouched files out', async () => {
    const dir = workspace();
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, 'mod.txt'), past, past);
    const result = await run(['cat', 'mod.txt'], { cwd: dir, backend: 'none', changes: true });
    expect([result.stdout.text, result.changes?.entries, statSync(join(dir, 'mod.txt')).size]).toEqual([
      'one',
      [],
      3,
    ]);
    expect(readFileSync(join(dir, 'mod.txt'), 'utf8')).toBe('one');
  });
});
