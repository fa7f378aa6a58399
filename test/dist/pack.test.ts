// The npm package as a user gets it: `npm pack` of the built tree, installed from the tarball
// into an empty prefix (dependencies from the registry), then the installed `cordon` binary
// and the library import are exercised from there. Needs `npm run build` first (npm test
// does it). Takes ~10–30 s, mostly the dependency install.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLinux, makeTempDir, ROOT } from '../helpers/cli.ts';

const run = promisify(execFile);
const hasBwrap = isLinux && ['/usr/bin/bwrap', '/bin/bwrap'].some((p) => existsSync(p));

describe.runIf(isLinux)('npm package (pack, install into an empty prefix, run)', () => {
  let work: string;
  let prefix: string;
  let cordon: string;
  let files: string[];
  const env = { PATH: process.env['PATH'], HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8' };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist/cli.cjs'))) throw new Error('dist/ is missing: run npm run build first');
    work = mkdtempSync(join(tmpdir(), 'cordon-pack-'));
    // --ignore-scripts: `prepare` would rebuild dist/ while other test files use it.
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
      cwd: ROOT,
    });
    const info = JSON.parse(packed.stdout)[0] as { filename: string; files: { path: string }[] };
    files = info.files.map((f) => f.path).sort();
    prefix = join(work, 'prefix');
    await run(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        join(work, info.filename),
      ],
      { cwd: work, env: { ...process.env, npm_config_loglevel: 'error' } },
    );
    cordon = join(prefix, 'node_modules/.bin/cordon');
  }, 240_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('ships the bundles, the shim, the types and the profiles, and nothing from src/ or test/', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/cordon',
        'bin/package.json',
        'dist/cli.cjs',
        'dist/index.js',
        'dist/types/index.d.ts',
        'dist/man/cordon.1',
        'dist/completions/cordon.bash',
        'dist/completions/_cordon',
        'dist/completions/cordon.fish',
        'schema/result.schema.json',
        'schema/explain.schema.json',
        'schema/doctor.schema.json',
        'schema/error.schema.json',
        'package.json',
      ]),
    );
    expect(files.filter((f) => /^(src|test|scripts|bench|\.dist-sea|node_modules)\//.test(f))).toEqual([]);
    expect(
      files.filter(
        (f) =>
          f.startsWith('dist/') &&
          !/^dist\/(cli\.cjs|index\.js|landlock-exec\.js|unix-supervisor\.js|types\/|man\/cordon\.1$|completions\/)/.test(
            f,
          ),
      ),
    ).toEqual([]);
  });

  it('the installed cordon prints its version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const out = await run(cordon, ['--version'], { env });
    expect(out.stdout).toBe(`${pkg.version}\n`);
  });

  it('the installed cordon doctor reports on this machine', async () => {
    const out = await run(cordon, ['doctor', '--json'], { env }).catch((e) => e as { stdout: string });
    const report = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(typeof report).toBe('object');
    expect(JSON.stringify(report)).toContain('bwrap');
  });

  it.runIf(hasBwrap)('the installed cordon runs a command under bubblewrap, writes stay inside', async () => {
    const dir = makeTempDir();
    const outside = makeTempDir();
    const res = await run(
      cordon,
      [
        '--json',
        '--backend',
        'bwrap',
        '--',
        'sh',
        '-c',
        `echo inside > ok.txt; echo escaped > ${outside}/x.txt; cat ok.txt`,
      ],
      { env, cwd: dir },
    ).catch((e) => e as { stdout: string });
    const result = JSON.parse(res.stdout) as { backend: string; stdout: { text: string } };
    expect(result.backend).toBe('bwrap');
    expect(result.stdout.text).toBe('inside\n');
    expect(readFileSync(join(dir, 'ok.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(outside, 'x.txt'))).toBe(false); // host side unchanged
  });

  it('the library imports by package name (ESM, with types) and run() works', async () => {
    const script = join(prefix, 'use-lib.mjs');
    writeFileSync(
      script,
      [
        "import { run, explain, CordonError } from 'cordon';",
        "const r = await run(['sh', '-c', 'echo from-lib'], { backend: 'none' });",
        'console.log(JSON.stringify({ status: r.status, out: r.stdout.text, err: typeof CordonError, explain: typeof explain }));',
      ].join('\n'),
    );
    const out = await run(process.execPath, [script], { env, cwd: prefix });
    expect(JSON.parse(out.stdout)).toEqual({
      status: 'exited',
      out: 'from-lib\n',
      err: 'function',
      explain: 'function',
    });
    const pkg = JSON.parse(readFileSync(join(prefix, 'node_modules/cordon/package.json'), 'utf8')) as {
      exports: Record<string, { types: string }>;
    };
    expect(existsSync(join(prefix, 'node_modules/cordon', pkg.exports['.']!.types))).toBe(true);
  });
});
