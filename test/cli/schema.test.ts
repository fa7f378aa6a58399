// The published JSON Schemas (schema/*.json, shipped in the package) checked against real
// output: run results of several kinds (real processes), explain for every platform, doctor,
// the error object, the --report file and the library's run(). The validator is
// test/helpers/json-schema.ts; a wrong document is shown to fail it.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/index.ts';
import { isLinux, makeTempDir, ROOT, runCli } from '../helpers/cli.ts';
import { validate } from '../helpers/json-schema.ts';

const schema = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'schema', `${name}.schema.json`), 'utf8')) as Record<string, unknown>;
const RESULT = schema('result');
const EXPLAIN = schema('explain');
const DOCTOR = schema('doctor');
const ERROR = schema('error');

function home() {
  const h = makeTempDir('cordon-schema-');
  // A home only its owner can write: the single executable refuses to keep its native module
  // below a directory others can write (makeTempDir's dirs are 0777 for the uid-65534 lanes).
  chmodSync(h, 0o755);
  const dir = join(h, 'work');
  mkdirSync(dir, { mode: 0o777 });
  writeFileSync(join(dir, 'file'), 'x');
  return { dir, env: { PATH: process.env['PATH'], HOME: h, LANG: 'C.UTF-8' } };
}

describe('the schemas ship with the package', () => {
  it('package.json lists schema/ in files, and each schema is a 2020-12 document with an $id', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schema/');
    for (const s of [RESULT, EXPLAIN, DOCTOR, ERROR]) {
      expect(s['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(String(s['$id'])).toMatch(/schema\/\w+\.schema\.json$/);
    }
  });

  it('the validator rejects a document that drifted (a missing field, an extra one, a wrong type)', () => {
    const good = {
      version: 1,
      error: { code: 'bad-flag', message: 'x' },
    };
    expect(validate(ERROR, good)).toEqual([]);
    expect(validate(ERROR, { version: 1 })).toEqual(['$: missing required error']);
    expect(validate(ERROR, { ...good, extra: 1 })).toEqual(['$: unexpected property extra']);
    expect(validate(ERROR, { version: 2, error: { code: 'Bad', message: 3 } })).toEqual([
      '$.version: expected 1',
      '$.error.code: does not match ^[a-z]+(-[a-z]+)*$',
      '$.error.message: expected string, got integer',
    ]);
  });
});

describe.runIf(isLinux)('run results (real processes) match schema/result.schema.json', () => {
  it.each([
    ['exited', ['--', 'echo', 'hi']],
    ['changes', ['--changes', '--', 'sh', '-c', 'echo a > new; mkdir d']],
    ['truncated', ['--max-output', '64', '--', 'sh', '-c', 'seq 1 2000']],
    ['timed-out', ['--timeout', '300ms', '--kill-after', '100ms', '--', 'sleep', '30']],
    ['not-found', ['--', 'no-such-command-cordon']],
    ['signaled', ['--', 'sh', '-c', 'kill -9 $$']],
    ['denial', ['--', 'sh', '-c', 'echo hi > /etc/cordon-schema-test']],
    ['file-size limit', ['--file-size', '1M', '--', 'true']],
    ['no sandbox', ['--backend', 'none', '--', 'true']],
  ])('%s', async (_name, args) => {
    const h = home();
    const r = await runCli(['--json', ...args], { cwd: h.dir, env: h.env });
    const doc = JSON.parse(r.stdout) as unknown;
    expect(validate(RESULT, doc)).toEqual([]);
  });

  it('the --report file, at the end, is a result too', async () => {
    const h = home();
    const report = join(h.dir, '..', `report-${process.pid}-${Date.now()}.json`);
    await runCli(['-q', '--report', report, '--', 'true'], { cwd: h.dir, env: h.env });
    expect(validate(RESULT, JSON.parse(readFileSync(report, 'utf8')))).toEqual([]);
  });

  it("the library's run() returns a result of the same schema", async () => {
    const result = await run(['echo', 'lib'], { cwd: home().dir });
    expect(validate(RESULT, JSON.parse(JSON.stringify(result)))).toEqual([]);
  });
});

describe('explain, doctor and the error object match their schemas', () => {
  it.each([
    ['this host', ['explain', '--json', '--', 'true']],
    ['darwin', ['explain', '--json', '--platform', 'darwin', '--', 'true']],
    ['win32', ['explain', '--json', '--platform', 'win32', '--', 'true']],
    ['no sandbox', ['explain', '--json', '--backend', 'none', '--', 'true']],
  ])('explain: %s', async (_name, args) => {
    const h = home();
    const r = await runCli(args, { cwd: h.dir, env: h.env });
    expect(validate(EXPLAIN, JSON.parse(r.stdout))).toEqual([]);
  });

  it('explain of a policy the backend refuses carries the refusal (win32 restricted token, exit 125)', async () => {
    const r = await runCli(['explain', '--json', '--platform', 'win32', '--', 'true']);
    const doc = JSON.parse(r.stdout) as { refusal?: string };
    expect([r.code, typeof doc.refusal]).toEqual([125, 'string']);
    expect(validate(EXPLAIN, doc)).toEqual([]);
  });

  it('doctor --json', async () => {
    const r = await runCli(['doctor', '--json']);
    expect(validate(DOCTOR, JSON.parse(r.stdout))).toEqual([]);
  });

  it.each([
    [['--json', '--timeout', 'x', '--', 'true']],
    [['--json', '--read', '/no/such/path', '--', 'true']],
    [['explain', '--json', '--bogus', '--', 'true']],
    [['--json', '--backend', 'landlock', '--', 'true']],
  ])('error: %j', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(125);
    expect(validate(ERROR, JSON.parse(r.stdout))).toEqual([]);
  });
});
