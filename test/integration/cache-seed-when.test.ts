// When the host cache is copied in: at the end of planning for a run (REAL_SEAMS), never for
// the library's explain() (PLAN_ONLY_SEAMS), never without a package.json. Real file system
// and the real host probe; the host npm cache is named through $npm_config_cache.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { preparePlan } from '../../src/prepare.ts';
import { explain } from '../../src/run.ts';

const isLinux = process.platform === 'linux';
/** A package.json above the temp dir (a shared machine) would make the second case moot. */
const tmpAncestorsClean = (() => {
  const parts = realpathSync(tmpdir()).split('/');
  for (let i = parts.length; i > 0; i--)
    if (existsSync(`${parts.slice(0, i).join('/')}/package.json`)) return false;
  return true;
})();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function setup(withPackageJson: boolean) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'cordon-seed-when-')));
  dirs.push(root);
  const project = join(root, 'project');
  mkdirSync(project);
  if (withPackageJson) writeFileSync(join(project, 'package.json'), '{}\n');
  mkdirSync(join(root, 'hostnpm/_cacache/content-v2/sha512/ab/cd'), { recursive: true });
  writeFileSync(join(root, 'hostnpm/_cacache/content-v2/sha512/ab/cd/ef'), 'tarball');
  const xdg = join(root, 'xdg');
  mkdirSync(xdg, { mode: 0o700 });
  const env = { PATH: process.env['PATH'], XDG_CACHE_HOME: xdg, npm_config_cache: join(root, 'hostnpm') };
  return { project, env };
}

describe.runIf(isLinux)('when the host npm cache is copied in', () => {
  it("explain() plans the copy but copies nothing; a run's planning copies it", () => {
    const { project, env } = setup(true);
    const planned = explain(['true'], { cwd: project, env, backend: 'bwrap', bestEffort: true });
    const seed = planned.cache?.seeds[0];
    expect(seed?.source).toBe(join(env.npm_config_cache, '_cacache'));
    expect(planned.cacheSeeded).toBeUndefined();
    expect(readdirSync(planned.cache!.toolsDir)).toEqual([]);
    const run = preparePlan(['true'], { cwd: project, env, backend: 'bwrap', bestEffort: true });
    expect(run.cacheSeeded).toEqual([{ tool: 'npm', source: seed?.source, files: 1, bytes: 7, skipped: 0 }]);
  });

  it.runIf(tmpAncestorsClean)(
    'no package.json in the working directory or above: nothing planned, nothing copied',
    () => {
      const { project, env } = setup(false);
      const run = preparePlan(['true'], { cwd: project, env, backend: 'bwrap', bestEffort: true });
      expect(run.cache?.seeds).toEqual([]);
      expect(run.cacheSeeded).toEqual([]);
    },
  );
});
