// `cordon explain` and `cordon doctor` through the real CLI.
import { describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.ts';

const isLinux = process.platform === 'linux';

describe.runIf(isLinux)('explain', () => {
  it('prints rules with their sources, the backend choice and the full plan, and runs nothing', async () => {
    const dir = makeTempDir();
    const r = await runCli(['explain', '--deny', 'secret', '--', 'touch', 'ran'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`write ${dir}    ← profile workspace (filesystem[1])`);
    expect(r.stdout).toContain(`none  ${dir}/secret    ← flag --deny`);
    expect(r.stdout).toMatch(/backend: (bwrap|landlock)/);
    expect(r.stdout).toContain('"--cap-drop"');
    expect(r.stdout).toContain('"touch"');
    const ls = await runCli(['--backend', 'none', '-q', '--', 'ls', '-A', dir]);
    expect(ls.stdout).toBe('');
  });

  it('--json gives the same as data', async () => {
    const dir = makeTempDir();
    const r = await runCli(['explain', '--json', '--net', '--', 'true'], { cwd: dir });
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      version: 1,
      platform: 'linux',
      synthetic: false,
      network: 'on',
      privateTmp: true,
    });
    expect(j.rules).toContainEqual({
      path: dir,
      access: 'write',
      source: 'profile workspace (filesystem[1])',
    });
    expect(j.plan.args.at(-1)).toBe('true');
    expect(j.verdicts.map((v: { backend: string }) => v.backend)).toContain('bwrap');
  });

  it('--platform linux builds a plan from the documented synthetic host', async () => {
    const r = await runCli(['explain', '--json', '--platform', 'linux', '--', 'make'], {});
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.synthetic).toBe(process.platform !== 'linux');
  });

  it('bad flags still exit 125', async () => {
    const r = await runCli(['explain', '--platform', 'beos', '--', 'true']);
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/--platform/);
  });
});

describe.runIf(isLinux)('doctor', () => {
  it('reports each backend with the probe behind it', async () => {
    const r = await runCli(['doctor', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.checks.map((c: { name: string }) => c.name)).toEqual(
      expect.arrayContaining(['platform', 'bwrap', 'landlock', 'seccomp']),
    );
    expect(j.backends.find((b: { backend: string }) => b.backend === 'none')).toMatchObject({
      usable: false,
    });
    const text = await runCli(['doctor']);
    expect(text.stdout).toMatch(/bwrap: bubblewrap \d+\.\d+\.\d+ at \//);
  });
});
