// A warm first run from the host's npm cache, real bubblewrap and real npm, as root and as uid
// 65534: a package that is only in the host's ~/.npm (put there from a local registry that is
// gone before the sandboxed run) installs with `npm install --offline` on the FIRST sandboxed
// run; the command then rewrites every file of its copy; the host cache is byte-identical
// before and after (sha256 of every file, mode, mtime, inode and link count).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLinux, isRoot, NOBODY_CANNOT_RUN_NODE, runCli } from '../helpers/cli.ts';

const bwrapUsable =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '--', '/bin/true'], { stdio: 'ignore' })
    .status === 0;
const npmPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();

function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    const st = lstatSync(path, { bigint: true });
    const meta = `${st.mode}:${st.mtimeNs}:${st.ino}:${st.nlink}:${st.uid}`;
    if (st.isDirectory()) {
      out[path] = `dir:${meta}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else if (st.isFile())
      out[path] = `file:${meta}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    else out[path] = `other:${meta}`;
  };
  walk(root);
  return out;
}

const created: string[] = [];
afterAll(() => {
  for (const d of created) {
    spawnSync('chmod', ['-R', 'u+w', d], { stdio: 'ignore' });
    rmSync(d, { recursive: true, force: true });
  }
});

/** Outside /tmp, which is private inside the sandbox. */
function tempDir(prefix: string, uid: number): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  created.push(dir);
  if (uid !== 0) chownSync(dir, uid, uid);
  chmodSync(dir, 0o755);
  return dir;
}

/** A one-package registry: packument and tarball, served until close(). */
async function startRegistry(work: string) {
  const pkg = join(work, 'package');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    '{"name":"cordon-seed-demo","version":"1.0.0","main":"index.js"}\n',
  );
  writeFileSync(join(pkg, 'index.js'), "module.exports = 'from the host cache';\n");
  const tgz = join(work, 'demo.tgz');
  expect(spawnSync('tar', ['-czf', tgz, '-C', work, 'package']).status).toBe(0);
  const tarball = readFileSync(tgz);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const packument = JSON.stringify({
    name: 'cordon-seed-demo',
    'dist-tags': { latest: '1.0.0' },
    versions: {
      '1.0.0': {
        name: 'cordon-seed-demo',
        version: '1.0.0',
        main: 'index.js',
        dist: { tarball: `${url}cordon-seed-demo/-/cordon-seed-demo-1.0.0.tgz`, integrity, shasum },
      },
    },
  });
  server.on('request', (req, res) => {
    if (req.url === '/cordon-seed-demo') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(packument);
    } else if (req.url === '/cordon-seed-demo/-/cordon-seed-demo-1.0.0.tgz') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarball);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Host side, unsandboxed (async: the registry is served by this process). */
function hostNpm(args: string[], env: Record<string, string>, uid: number): Promise<number | null> {
  const argv =
    uid === 0
      ? [npmPath, ...args]
      : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', npmPath, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

const users = isRoot ? [0, ...(NOBODY_CANNOT_RUN_NODE ? [] : [65534])] : [process.getuid?.() ?? 0];

// Root lanes run it for root and (through setpriv) uid 65534; a lane that is itself unprivileged
// skips it visibly.
describe.runIf(bwrapUsable && npmPath !== '' && isRoot)(
  'warm first run from the host npm cache (real bwrap, real npm)',
  () => {
    for (const uid of users) {
      it(`uid ${uid}: an offline install of a package only in the host cache succeeds on the first sandboxed run; the host cache is unchanged`, async () => {
        const home = tempDir('cordon-seed-home-', uid);
        const project = tempDir('cordon-seed-proj-', uid);
        const work = tempDir('cordon-seed-reg-', 0);
        writeFileSync(
          join(project, 'package.json'),
          '{"name":"seed-test","version":"1.0.0","private":true}\n',
        );
        if (uid !== 0) chownSync(join(project, 'package.json'), uid, uid);
        const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
        const registry = await startRegistry(work);
        const add = await hostNpm(
          ['cache', 'add', 'cordon-seed-demo@1.0.0', `--registry=${registry.url}`],
          env,
          uid,
        );
        await registry.close(); // from here on nothing can be downloaded
        expect(add).toBe(0);
        const hostCache = join(home, '.npm');
        const before = fingerprint(hostCache);
        expect(Object.keys(before).some((p) => p.includes('/_cacache/content-v2/'))).toBe(true);
        const as = uid === 0 || !isRoot ? {} : { asUid: uid };
        const install = await runCli(
          [
            '--json',
            '--',
            'npm',
            'install',
            '--offline',
            '--no-audit',
            '--no-fund',
            `--registry=${registry.url}`,
            'cordon-seed-demo@1.0.0',
          ],
          { cwd: project, env, ...as },
        );
        const result = JSON.parse(install.stdout);
        expect(result.stderr.text).not.toMatch(/ENOTCACHED/);
        expect([result.status, result.exitCode]).toEqual(['exited', 0]);
        expect(result.cache.seeded).toEqual([
          expect.objectContaining({
            tool: 'npm',
            source: join(hostCache, '_cacache'),
            files: expect.any(Number),
          }),
        ]);
        expect(result.cache.seeded[0].files).toBeGreaterThan(0);
        expect(readFileSync(join(project, 'node_modules/cordon-seed-demo/index.js'), 'utf8')).toMatch(
          /host cache/,
        );
        // The command rewrites every file of its copy (and tries the host's): the host's stay.
        const script =
          'chmod -R u+w "$npm_config_cache/_cacache" && find "$npm_config_cache/_cacache" -type f -exec sh -c \'echo poisoned > "$1"\' _ {} \\; && ' +
          'find "$HOME/.npm/_cacache" -type f -exec sh -c \'echo poisoned > "$1"\' _ {} \\; 2>/dev/null; true';
        const poison = await runCli(['--', 'sh', '-c', script], { cwd: project, env, ...as });
        expect(poison.stderr).toMatch(/exit 0/);
        // A second run: nothing copied again (the host cache did not change), still offline.
        const again = JSON.parse(
          (await runCli(['--json', '--', 'true'], { cwd: project, env, ...as })).stdout,
        );
        expect(again.cache.seeded[0].files).toBe(0);
        expect(fingerprint(hostCache)).toEqual(before);
      });
    }
  },
);
