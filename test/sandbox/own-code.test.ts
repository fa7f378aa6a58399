// Issue 13, item 2: with cordon installed inside the workspace (npm install cordon), a run
// must not be able to rewrite cordon's own code, its native module, the .bin links, or the
// Node binary running it — what the next run executes unconfined. Real bwrap and Landlock,
// as root and as uid 65534; the files are checked on the host.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLinux, isRoot, ROOT } from '../helpers/cli.ts';
import { type Fixture, makeFixture } from '../helpers/sandbox.ts';

const canBwrap =
  isLinux &&
  spawnSync('/usr/bin/bwrap', ['--unshare-user', '--ro-bind', '/', '/', '/bin/true'], { stdio: 'ignore' })
    .status === 0;

const users: [string, number | undefined][] = [
  ['root', undefined],
  ['uid 65534', 65534],
];

const ATTACK = [
  'for f in node_modules/cordon/dist/cli.cjs node_modules/cordon/dist/landlock-exec.js node_modules/cordon/bin/cordon node_modules/cordon/package.json node_modules/koffi/package.json node_modules/@koromix/koffi-*/package.json; do echo pwned > $f; done',
  'rm -f node_modules/.bin/cordon; ln -s /bin/true node_modules/.bin/cordon',
  'printf "#!/bin/sh\\necho pwned\\n" > node_modules/.bin/node',
  'printf "#!/bin/sh\\necho pwned\\n" > node_modules/.bin/bwrap',
  'echo done',
].join('; ');

describe.runIf(canBwrap && isRoot).each(users)(
  "cordon's own code installed in the workspace, as %s",
  (_l, uid) => {
    let fx: Fixture;
    let pkg: string;
    let originals: Record<string, string>;
    const own = () => [
      join(pkg, 'dist/cli.cjs'),
      join(pkg, 'dist/landlock-exec.js'),
      join(pkg, 'bin/cordon'),
      join(pkg, 'package.json'),
      join(fx.ws, 'node_modules/koffi/package.json'),
      join(fx.ws, `node_modules/@koromix/koffi-${process.platform}-${process.arch}/package.json`),
    ];
    beforeEach(() => {
      fx = makeFixture(uid);
      // What `npm install cordon` leaves: node_modules/cordon, node_modules/koffi, .bin/cordon.
      pkg = join(fx.ws, 'node_modules/cordon');
      mkdirSync(pkg, { recursive: true });
      for (const sub of ['dist', 'bin', 'package.json'])
        cpSync(join(ROOT, sub), join(pkg, sub), { recursive: true });
      cpSync(join(ROOT, 'node_modules/koffi'), join(fx.ws, 'node_modules/koffi'), { recursive: true });
      cpSync(join(ROOT, 'node_modules/@koromix'), join(fx.ws, 'node_modules/@koromix'), { recursive: true });
      mkdirSync(join(fx.ws, 'node_modules/.bin'));
      symlinkSync('../cordon/bin/cordon', join(fx.ws, 'node_modules/.bin/cordon'));
      if (uid !== undefined) spawnSync('chown', ['-R', '-h', `${uid}:${uid}`, join(fx.ws, 'node_modules')]);
      originals = Object.fromEntries(own().map((f) => [f, readFileSync(f, 'utf8')]));
    });
    afterEach(() => rmSync(fx.base, { recursive: true, force: true }));

    const runLocal = (args: string[], node = process.execPath) => {
      const argv = [node, join(fx.ws, 'node_modules/.bin/cordon'), ...args];
      const full =
        uid === undefined
          ? argv
          : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', ...argv];
      return spawnSync(full[0]!, full.slice(1), {
        cwd: fx.ws,
        env: { PATH: `${join(fx.ws, 'node_modules/.bin')}:/usr/bin:/bin`, HOME: fx.home, LANG: 'C.UTF-8' },
        encoding: 'utf8',
      });
    };

    it('bwrap: dist/, bin/, package.json, koffi and node_modules/.bin stay read-only', () => {
      const r = runLocal(['--backend', 'bwrap', '-q', '--', 'sh', '-c', ATTACK]);
      expect(r.stdout).toBe('done\n');
      for (const f of own()) expect(readFileSync(f, 'utf8')).toBe(originals[f]);
      expect(existsSync(join(fx.ws, 'node_modules/.bin/node'))).toBe(false);
      expect(existsSync(join(fx.ws, 'node_modules/.bin/bwrap'))).toBe(false);
      // Other dependencies stay writable: only cordon's own files are protected.
      const w = runLocal([
        '--backend',
        'bwrap',
        '-q',
        '--',
        'sh',
        '-c',
        'mkdir node_modules/other && echo ok',
      ]);
      expect(w.stdout).toBe('ok\n');
    });

    it('Landlock cannot keep them read-only: refused with 125, even with --best-effort, nothing run', () => {
      const r = runLocal(['--backend', 'landlock', '--best-effort', '-q', '--', 'sh', '-c', ATTACK]);
      expect(r.status).toBe(125);
      expect(r.stderr).toContain("Landlock cannot keep cordon's own code read-only");
      for (const f of own()) expect(readFileSync(f, 'utf8')).toBe(originals[f]);
    });

    it('the Node binary running cordon, inside the workspace, stays read-only', () => {
      const node = join(fx.ws, 'tools/node');
      mkdirSync(join(fx.ws, 'tools'));
      copyFileSync(process.execPath, node);
      if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, join(fx.ws, 'tools')]);
      const size = statSync(node).size;
      const r = runLocal(
        [
          '--backend',
          'bwrap',
          '-q',
          '--',
          'sh',
          '-c',
          'echo pwned > tools/node; rm -f tools/node; echo done',
        ],
        node,
      );
      expect(r.stdout).toBe('done\n');
      expect(statSync(node).size).toBe(size);
    });
  },
);
