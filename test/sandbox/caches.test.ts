// Real bubblewrap runs: what a sandboxed command writes to its tool caches lands in the
// sandbox cache, never in the host's own (~/.npm, ~/.cache/go-build); links and `..` do not
// reach the host; ~/.npmrc shows its settings but not its token. Checked on the HOST side,
// as root and as uid 65534, each with HOME pointed at a fresh temp dir.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workspaceKey } from '../../src/cache/layout.ts';
import { isLinux, isRoot, runCli } from '../helpers/cli.ts';

const bwrapUsable =
  isLinux &&
  spawnSync('bwrap', ['--unshare-user', '--ro-bind', '/', '/', '--', '/bin/true'], { stdio: 'ignore' })
    .status === 0;
const npmPath = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();

/** path → sha256 of content (files), link target (links), 'dir'; the whole tree under root. */
function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(path);
    } catch {
      out[path] = 'missing';
      return;
    }
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out[path] = `link:${readlinkSync(path)}`;
    else if (st.isDirectory()) {
      out[path] = `dir:${mode}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else out[path] = `file:${mode}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  };
  walk(root);
  return out;
}

/**
 * Outside /tmp: the default profile gives the command a private /tmp, so a home under /tmp
 * would be invisible inside and prove nothing about the host's files.
 */
const created: string[] = [];
function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o777);
  created.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of created) {
    // Go and npm leave read-only directories; root removes them regardless, others chmod first.
    spawnSync('chmod', ['-R', 'u+w', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Fixture {
  home: string;
  project: string;
  entry: string;
  env: Record<string, string>;
}

function makeFixture(uid: number): Fixture {
  const home = makeTempDir('cordon-cache-home-');
  const project = makeTempDir('cordon-cache-proj-');
  writeFileSync(
    join(project, 'package.json'),
    '{"name":"demo-pkg","version":"1.0.0","files":["index.js"]}\n',
  );
  writeFileSync(join(project, 'index.js'), 'module.exports = 42;\n');
  // The host's own caches, with something in them to fingerprint.
  mkdirSync(join(home, '.npm/_cacache'), { recursive: true });
  writeFileSync(join(home, '.npm/_cacache/marker'), 'host npm cache\n');
  mkdirSync(join(home, '.cache/go-build'), { recursive: true });
  writeFileSync(join(home, '.cache/go-build/marker'), 'host go cache\n');
  writeFileSync(
    join(home, '.npmrc'),
    'registry=https://registry.example.test/\n//registry.example.test/:_authToken=TOPSECRET-TOKEN\n',
  );
  if (uid !== 0) {
    for (const p of [home, join(home, '.npm'), join(home, '.npm/_cacache'), join(home, '.cache')])
      chownSync(p, uid, uid);
    for (const p of [join(home, '.cache/go-build'), join(home, '.npmrc')]) chownSync(p, uid, uid);
    chmodSync(home, 0o755);
  }
  const entry = join(home, '.cache/cordon/sandbox-cache', workspaceKey(project));
  return {
    home,
    project,
    entry,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
  };
}

function hostCaches(f: Fixture): Record<string, string> {
  return { ...fingerprint(join(f.home, '.npm')), ...fingerprint(join(f.home, '.cache/go-build')) };
}

const users = isRoot ? [0, 65534] : [typeof process.getuid === 'function' ? process.getuid() : 0];

describe.runIf(bwrapUsable && npmPath !== '')('sandbox cache under bubblewrap (real npm)', () => {
  for (const uid of users) {
    const as: { asUid?: number } = uid === 0 || !isRoot ? {} : { asUid: uid };
    it(`uid ${uid}: npm pack and npm cache add write only the sandbox cache; a second run finds it`, async () => {
      const f = makeFixture(uid);
      const before = hostCaches(f);
      const pack = await runCli(['--', 'npm', 'pack'], { cwd: f.project, env: f.env, ...as });
      expect(pack.stderr).toMatch(/exit 0/);
      expect(existsSync(join(f.project, 'demo-pkg-1.0.0.tgz'))).toBe(true);
      const add = await runCli(['--', 'npm', 'cache', 'add', './demo-pkg-1.0.0.tgz'], {
        cwd: f.project,
        env: f.env,
        ...as,
      });
      expect(add.stderr).toMatch(/exit 0/);
      // The sandbox cache got npm's cache and logs, owned by the user, private.
      expect(readdirSync(join(f.entry, 'tools/npm'))).toEqual(expect.arrayContaining(['_cacache', '_logs']));
      expect(lstatSync(join(f.entry, 'tools')).uid).toBe(uid);
      expect(lstatSync(join(f.home, '.cache/cordon/sandbox-cache')).mode & 0o777).toBe(0o700);
      // A second sandboxed run sees what the first one cached.
      const ls = await runCli(['--', 'npm', 'cache', 'ls'], { cwd: f.project, env: f.env, ...as });
      expect(ls.stdout).toMatch(/demo-pkg-1\.0\.0\.tgz|demo-pkg/);
      // The host's caches are byte-for-byte what they were.
      expect(hostCaches(f)).toEqual(before);
      // cordon cache names the root, this workspace's entry and its size.
      const info = JSON.parse(
        (await runCli(['cache', '--json'], { cwd: f.project, env: f.env, ...as })).stdout,
      );
      expect(info.root).toBe(join(f.home, '.cache/cordon/sandbox-cache'));
      expect(info.workspaceEntry).toBe(workspaceKey(f.project));
      expect(info.entries.map((e: { name: string }) => e.name)).toEqual([workspaceKey(f.project)]);
      expect(info.bytes).toBeGreaterThan(0);
    });

    it(`uid ${uid}: writes through $PIP_CACHE_DIR and $GOCACHE land in the sandbox cache; links and .. stay inside`, async () => {
      const f = makeFixture(uid);
      const outside = join(f.home, 'outside');
      mkdirSync(outside);
      writeFileSync(join(outside, 'keep.txt'), 'keep\n');
      if (uid !== 0) chownSync(outside, uid, uid);
      const before = { ...hostCaches(f), ...fingerprint(outside) };
      const script = [
        'mkdir -p "$PIP_CACHE_DIR/tool" "$GOCACHE" && echo a > "$PIP_CACHE_DIR/tool/f" && echo b > "$GOCACHE/f"',
        // XDG_CACHE_HOME is not moved: ~/.cache stays the host's, read-only
        'echo x > "$HOME/.cache/planted" 2>/dev/null && echo WROTE-XDG',
        // `..` from the sandbox cache up to the host's caches: read-only there
        'echo x > "$npm_config_cache/../../../../../../.npm/_cacache/planted" 2>/dev/null && echo WROTE-DOTDOT',
        'echo x > "$GOCACHE/../../../../../../.cache/go-build/planted" 2>/dev/null && echo WROTE-DOTDOT2',
        // links planted in the sandbox cache, pointing at the host caches
        'ln -s "$HOME/.npm/_cacache" "$PIP_CACHE_DIR/npm-link" && echo x > "$PIP_CACHE_DIR/npm-link/planted" 2>/dev/null && echo WROTE-LINK',
        `ln -s "${outside}" "$PIP_CACHE_DIR/outside-link"`,
        // a link where a protected name would be: must not lock the next run out
        'ln -s "$HOME/.npm" "$PIP_CACHE_DIR/../.git"',
        'true',
      ].join('; ');
      const r = await runCli(['--', 'sh', '-c', script], { cwd: f.project, env: f.env, ...as });
      expect(r.stderr).toMatch(/exit 0/);
      expect(r.stdout).not.toMatch(/WROTE/);
      expect(readFileSync(join(f.entry, 'tools/pip/tool/f'), 'utf8')).toBe('a\n');
      expect(existsSync(join(f.home, '.cache/planted'))).toBe(false);
      expect(readFileSync(join(f.entry, 'tools/go-build/f'), 'utf8')).toBe('b\n');
      expect({ ...hostCaches(f), ...fingerprint(outside) }).toEqual(before);
      const again = await runCli(
        ['--', 'sh', '-c', 'echo again > "$PIP_CACHE_DIR/../.git/planted" 2>/dev/null; ls "$PIP_CACHE_DIR"'],
        {
          cwd: f.project,
          env: f.env,
          ...as,
        },
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/outside-link/);
      expect({ ...hostCaches(f), ...fingerprint(outside) }).toEqual(before);
      // cordon cache clear removes the links, not what they point at.
      const clear = await runCli(['cache', 'clear'], { cwd: f.project, env: f.env, ...as });
      expect(clear.code).toBe(0);
      expect(existsSync(f.entry)).toBe(false);
      expect({ ...hostCaches(f), ...fingerprint(outside) }).toEqual(before);
    });

    it(`uid ${uid}: ~/.npmrc inside shows the registry, not the token; the real file stays hidden`, async () => {
      const f = makeFixture(uid);
      const r = await runCli(
        [
          '--',
          'sh',
          '-c',
          'npm config get registry; cat "$npm_config_userconfig"; echo ---; cat "$HOME/.npmrc" 2>/dev/null; true',
        ],
        { cwd: f.project, env: f.env, ...as },
      );
      expect(r.stderr).toMatch(/exit 0/);
      // The real ~/.npmrc yields nothing: the deny rule covers it (unreadable inside).
      expect(r.stdout).toBe(
        'https://registry.example.test/\nregistry=https://registry.example.test/\n; cordon: removed //registry.example.test/:_authToken\n---\n',
      );
      expect(r.stdout).not.toMatch(/TOPSECRET/);
    });
  }

  it('refuses a sandbox cache root that is group/world-writable or owned by another user', async () => {
    const f = makeFixture(0);
    mkdirSync(join(f.home, '.cache/cordon'), { recursive: true, mode: 0o700 });
    chmodSync(join(f.home, '.cache/cordon'), 0o777);
    const r = await runCli(['--', 'true'], { cwd: f.project, env: f.env });
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(
      /refusing the sandbox cache directory '.*\/\.cache\/cordon': it is writable by everyone \(mode 777\)/,
    );
    if (isRoot) {
      // uid 65534 with its cache root pointed at root's directory
      const xdg = makeTempDir('cordon-cache-xdg-');
      mkdirSync(join(xdg, 'cordon'), { mode: 0o755 });
      const r2 = await runCli(['--', 'true'], {
        cwd: f.project,
        env: { ...f.env, XDG_CACHE_HOME: xdg },
        asUid: 65534,
      });
      expect(r2.code).toBe(125);
      expect(r2.stderr).toMatch(/belongs to uid 0, not to you \(uid 65534\)/);
    }
  });

  it.runIf(isRoot)(
    'a home the user cannot write: the run goes on without a cache, and says why',
    async () => {
      const f = makeFixture(0);
      chmodSync(f.home, 0o700); // root's: uid 65534 cannot create its cache there
      const r = await runCli(['--json', '--', 'sh', '-c', 'echo "[$npm_config_cache]"'], {
        cwd: f.project,
        env: f.env,
        asUid: 65534,
      });
      const result = JSON.parse(r.stdout);
      expect(result.stdout.text).toBe('[]\n');
      expect(result.stderr.text).toBe('');
      expect(result.cache).toEqual({
        mode: 'unavailable',
        dir: null,
        env: [],
        reason: `unavailable (cannot create '${f.home}/.cache/cordon': EACCES) — tools that write caches under your home will fail; set XDG_CACHE_HOME to a directory of your own, or cache: off in the profile`,
      });
    },
  );

  it('explain lists the sandbox cache, each redirection and the sanitized copy', async () => {
    const f = makeFixture(0);
    const r = await runCli(['explain', '--', 'npm', 'test'], { cwd: f.project, env: f.env });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain(`sandbox cache: workspace → ${f.entry}`);
    expect(lines).toContain(`    npm_config_cache=${f.entry}/tools/npm    ← npm (cache and _logs)`);
    expect(lines).toContain(`  sanitized copy: ${f.home}/.npmrc → ${f.entry}/config/npmrc`);
    expect(lines).toContain(`  write ${f.entry}/tools    ← sandbox cache`);
  });

  it('workspace entries are separate; cache: shared gives every workspace the same one; --env wins', async () => {
    const f = makeFixture(0);
    const other = makeTempDir('cordon-cache-proj2-');
    const profile = join(f.home, 'shared.yaml');
    writeFileSync(profile, 'extends: workspace\ncache: shared\n');
    const put = 'echo from-a > "$PIP_CACHE_DIR/mark"';
    const get = 'cat "$PIP_CACHE_DIR/mark" 2>/dev/null || echo none';
    await runCli(['--', 'sh', '-c', `mkdir -p "$PIP_CACHE_DIR" && ${put}`], { cwd: f.project, env: f.env });
    const separate = await runCli(['--', 'sh', '-c', get], { cwd: other, env: f.env });
    expect(separate.stdout).toBe('none\n');
    await runCli(['-p', profile, '--', 'sh', '-c', `mkdir -p "$PIP_CACHE_DIR" && ${put}`], {
      cwd: f.project,
      env: f.env,
    });
    const shared = await runCli(['-p', profile, '--', 'sh', '-c', get], { cwd: other, env: f.env });
    expect(shared.stdout).toBe('from-a\n');
    expect(existsSync(join(f.home, '.cache/cordon/sandbox-cache/shared/tools/pip/mark'))).toBe(true);
    const explicit = await runCli(
      ['--env', 'npm_config_cache=/tmp/npm', '--', 'sh', '-c', 'echo $npm_config_cache'],
      {
        cwd: f.project,
        env: f.env,
      },
    );
    expect(explicit.stdout).toBe('/tmp/npm\n');
  });

  it('cache: off and the read-only profile leave the environment and the rules alone', async () => {
    const f = makeFixture(0);
    const r = await runCli(
      ['--profile', 'read-only', '--json', '--', 'sh', '-c', 'echo "[$npm_config_cache]"'],
      {
        cwd: f.project,
        env: f.env,
      },
    );
    const result = JSON.parse(r.stdout);
    expect(result.stdout.text).toBe('[]\n');
    expect(result.cache).toBeNull();
    expect(existsSync(join(f.home, '.cache/cordon/sandbox-cache'))).toBe(false);
  });

  it('the JSON result names the redirections', async () => {
    const f = makeFixture(0);
    const r = await runCli(['--json', '--', 'true'], { cwd: f.project, env: f.env });
    const result = JSON.parse(r.stdout);
    expect(result.cache).toEqual({
      mode: 'workspace',
      dir: f.entry,
      env: [
        'npm_config_cache',
        'GOCACHE',
        'PIP_CACHE_DIR',
        'YARN_CACHE_FOLDER',
        'YARN_GLOBAL_FOLDER',
        'GRADLE_USER_HOME',
        'DENO_DIR',
        'BUN_INSTALL_CACHE_DIR',
        'CCACHE_DIR',
        'GOMODCACHE',
        'npm_config_userconfig',
      ],
      // The fixture's host ~/.npm/_cacache holds only a marker file: walked, nothing to copy.
      seeded: [{ tool: 'npm', source: join(f.home, '.npm/_cacache'), files: 0, bytes: 0 }],
    });
  });
});

const hasGoAndZip = spawnSync('sh', ['-c', 'command -v go && command -v zip']).status === 0;

describe.runIf(bwrapUsable && hasGoAndZip && isRoot)('Go under the sandbox cache (real go)', () => {
  it('go build writes its build and module caches in the sandbox cache; the host module cache is a read-only source', async () => {
    const f = makeFixture(0);
    // A module "dependency" served from a hand-made file proxy into the HOST module cache.
    const proxy = makeTempDir('cordon-cache-goproxy-');
    const v = join(proxy, 'example.com/dep/@v');
    mkdirSync(v, { recursive: true });
    writeFileSync(join(v, 'list'), 'v1.0.0\n');
    writeFileSync(join(v, 'v1.0.0.info'), '{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}\n');
    writeFileSync(join(v, 'v1.0.0.mod'), 'module example.com/dep\n\ngo 1.19\n');
    const src = join(proxy, 'src/example.com/dep@v1.0.0');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'go.mod'), 'module example.com/dep\n\ngo 1.19\n');
    writeFileSync(join(src, 'dep.go'), 'package dep\n\nfunc Hello() string { return "dep says hi" }\n');
    expect(
      spawnSync('sh', ['-c', `cd "${join(proxy, 'src')}" && zip -qrD "${join(v, 'v1.0.0.zip')}" example.com`])
        .status,
    ).toBe(0);
    writeFileSync(
      join(f.project, 'go.mod'),
      'module example.com/app\n\ngo 1.19\n\nrequire example.com/dep v1.0.0\n',
    );
    writeFileSync(
      join(f.project, 'main.go'),
      'package main\n\nimport (\n\t"fmt"\n\t"example.com/dep"\n)\n\nfunc main() { fmt.Println(dep.Hello()) }\n',
    );
    const hostEnv = {
      ...f.env,
      GOPROXY: `file://${proxy}`,
      GOSUMDB: 'off',
      GOFLAGS: '-mod=mod -buildvcs=false',
      GOCACHE: join(f.home, '.cache/go-build'),
    };
    // Outside any sandbox: fill the host's module cache (~/go/pkg/mod) and go.sum.
    const tidy = spawnSync('go', ['mod', 'tidy'], { cwd: f.project, env: hostEnv, encoding: 'utf8' });
    expect(tidy.stderr).toMatch(/downloading example.com\/dep v1.0.0/);
    expect(tidy.status).toBe(0);
    expect(readFileSync(join(f.project, 'go.sum'), 'utf8')).toMatch(/example.com\/dep v1.0.0 h1:/);
    const before = { ...hostCaches(f), ...fingerprint(join(f.home, 'go')) };
    // Sandboxed, network off, no GOPROXY of the user's: the module comes from the host's cache.
    const r = await runCli(['--', 'go', 'run', '-buildvcs=false', '.'], {
      cwd: f.project,
      env: { ...f.env, GOSUMDB: 'off' },
    });
    expect(r.stdout).toBe('dep says hi\n');
    // "downloading" from the host module cache through the file:// proxy, network off
    expect(r.stderr).toMatch(/go: downloading example.com\/dep v1.0.0\n[\s\S]*exit 0/);
    expect(readdirSync(join(f.entry, 'tools'))).toEqual(expect.arrayContaining(['go-build', 'go-mod']));
    expect(existsSync(join(f.entry, 'tools/go-mod/example.com/dep@v1.0.0/dep.go'))).toBe(true);
    expect({ ...hostCaches(f), ...fingerprint(join(f.home, 'go')) }).toEqual(before);
  });
});
