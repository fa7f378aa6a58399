// Escape battery for a real Windows machine (skipped elsewhere; never run here, no Windows).
// Each case runs a node.exe script inside the sandbox that tries a write the policy forbids,
// then checks the HOST side: the file outside is unchanged or absent. Uses the library run()
// with --net and --best-effort, since a restricted token cannot cut the network or deny reads.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/run.ts';

const onWindows = process.platform === 'win32';

describe.runIf(onWindows)('Windows restricted token: escape battery (host-side checks)', () => {
  let base: string;
  let project: string;
  let outside: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'cordon-escape-'));
    project = join(base, 'project');
    outside = join(base, 'outside');
    mkdirSync(join(project, '.git', 'hooks'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(project, '.git', 'config'), 'original');
    writeFileSync(join(outside, 'victim.txt'), 'original');
    execFileSync('cmd.exe', ['/d', '/c', 'mklink', '/J', join(project, 'junction'), outside]);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const attempt = (script: string, timeoutMs?: number) =>
    run(
      [process.execPath, '-e', `try { ${script} } catch (e) { process.stdout.write(e.code ?? String(e)) }`],
      {
        cwd: project,
        network: true,
        bestEffort: true,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      },
    );
  const js = (p: string) => JSON.stringify(p);

  it('writes inside the working directory', async () => {
    await attempt(`require('fs').writeFileSync(${js(join(project, 'ok.txt'))}, 'x')`);
    expect(readFileSync(join(project, 'ok.txt'), 'utf8')).toBe('x');
  });

  it('cannot write outside the writable roots', async () => {
    await attempt(`require('fs').writeFileSync(${js(join(outside, 'victim.txt'))}, 'pwned')`);
    await attempt(`require('fs').writeFileSync(${js(join(outside, 'new.txt'))}, 'pwned')`);
    expect([readFileSync(join(outside, 'victim.txt'), 'utf8'), existsSync(join(outside, 'new.txt'))]).toEqual(
      ['original', false],
    );
  });

  it('cannot write through a junction inside the project', async () => {
    await attempt(`require('fs').writeFileSync(${js(join(project, 'junction', 'victim.txt'))}, 'pwned')`);
    expect(readFileSync(join(outside, 'victim.txt'), 'utf8')).toBe('original');
  });

  it('cannot change .git, whatever the spelling, nor plant a hook', async () => {
    for (const spelled of ['.git', '.GIT', '.GiT']) {
      await attempt(`require('fs').writeFileSync(${js(join(project, spelled, 'config'))}, 'pwned')`);
    }
    await attempt(`require('fs').writeFileSync(${js(join(project, '.git', 'hooks', 'pre-commit'))}, 'evil')`);
    await attempt(`require('fs').appendFileSync(${js(join(project, '.git', 'config'))}, 'pwned')`);
    expect([
      readFileSync(join(project, '.git', 'config'), 'utf8'),
      existsSync(join(project, '.git', 'hooks', 'pre-commit')),
    ]).toEqual(['original', false]);
  });

  it('cannot rename or delete .git, nor write its alternate data stream', async () => {
    await attempt(`require('fs').renameSync(${js(join(project, '.git'))}, ${js(join(project, 'git-old'))})`);
    await attempt(`require('fs').rmSync(${js(join(project, '.git'))}, { recursive: true, force: true })`);
    await attempt(`require('fs').writeFileSync(${js(`${join(project, '.git', 'config')}:evil`)}, 'x')`);
    expect(existsSync(join(project, '.git', 'config'))).toBe(true);
    expect(() => readFileSync(`${join(project, '.git', 'config')}:evil`)).toThrow();
  });

  it('cordon itself creates no .cordon (nothing reads it; it is not protected)', async () => {
    await attempt('1');
    expect(existsSync(join(project, '.cordon'))).toBe(false);
  });

  it('cannot write the real temp dir; the private TEMP works and is removed', async () => {
    const result = await attempt(
      `require('fs').writeFileSync(require('path').join(process.env.TEMP, 'p.txt'), 'x'); process.stdout.write(process.env.TEMP + '\\n'); require('fs').writeFileSync(${js(join(tmpdir(), 'cordon-escape-victim.txt'))}, 'x')`,
    );
    expect(existsSync(join(tmpdir(), 'cordon-escape-victim.txt'))).toBe(false);
    const privateTemp = result.stdout.text.split('\n')[0]!;
    expect(privateTemp).toMatch(/cordon-/);
    expect(existsSync(privateTemp)).toBe(false);
  });

  it('timeout kills the whole tree (job object)', async () => {
    const marker = join(project, 'grandchild.txt');
    const child = `require('child_process').spawn(process.execPath, ['-e', "setTimeout(() => require('fs').writeFileSync(${js(marker).replace(/"/g, "'")}, 'x'), 3000)"], { stdio: 'ignore', detached: true }); setInterval(() => {}, 1000)`;
    const result = await attempt(child, 1000);
    await new Promise((r) => setTimeout(r, 4000));
    expect([result.exitStatus, existsSync(marker)]).toEqual([124, false]);
  });
});
