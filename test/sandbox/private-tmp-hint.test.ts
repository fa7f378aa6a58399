// The private /tmp explained, real bubblewrap as root and as uid 65534: a write into a host
// /tmp directory fails inside (the sandbox's /tmp is a fresh tmpfs) and cordon says why and
// which flag shares it; the suggested flag, passed back, makes the same command work and the
// file lands on the host.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BATTERY_USERS, isLinux, isRoot, makeTempDir, runCli } from '../helpers/cli.ts';

const bwrapUsable =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '--', '/bin/true'], { stdio: 'ignore' })
    .status === 0;
const shIsDash = spawnSync('sh', ['-c', 'echo x > /nonexistent-dir/f'], { encoding: 'utf8' }).stderr.includes(
  'Directory nonexistent',
);

const created: string[] = [];
afterAll(() => {
  for (const d of created) rmSync(d, { recursive: true, force: true });
});

describe.runIf(bwrapUsable)('private /tmp hint (real bwrap)', () => {
  for (const [name, asUid] of BATTERY_USERS) {
    it.runIf(shIsDash && (asUid === undefined || isRoot))(
      `${name}: a write into a host /tmp directory is explained; the suggested --write works`,
      async () => {
        const dir = mkdtempSync('/tmp/cordon-hint-');
        chmodSync(dir, 0o777);
        created.push(dir);
        const cwd = makeTempDir('cordon-hint-cwd-', '/var/tmp');
        created.push(cwd);
        const command = ['sh', '-c', `echo x > ${dir}/file`];
        const env = {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          HOME: '/var/tmp',
          LANG: 'C.UTF-8',
          XDG_CACHE_HOME: '/nonexistent-cache',
        };
        const text = await runCli(['--', ...command], { cwd, env, asUid });
        expect(text.stderr).toContain(`cannot create ${dir}/file: Directory nonexistent`);
        expect(text.stderr).toContain(
          `cordon: possibly hidden: create of ${dir}/file — /tmp is private to the sandbox (empty at the start of every run), so the host's directory ${dir} is not visible inside; share it with the command: --write ${dir}`,
        );
        const json = JSON.parse((await runCli(['--json', '--', ...command], { cwd, env, asUid })).stdout);
        const hint = json.annotations.find(
          (a: { rule?: string }) => a.rule === 'private /tmp of the sandbox',
        );
        expect(hint).toMatchObject({
          kind: 'denial',
          operation: 'create',
          path: `${dir}/file`,
          fix: `--write ${dir}`,
        });
        const fixed = await runCli([...hint.fix.split(' '), '--', ...command], { cwd, env, asUid });
        expect(fixed.stderr).toMatch(/exit 0/);
        expect(readFileSync(join(dir, 'file'), 'utf8')).toBe('x\n');
      },
    );
  }
});
