import { describe, expect, it } from 'vitest';
import { denialAnnotations, privateAreasOf, stderrSample } from '../../src/denials/for-run.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildPlan } from '../../src/plan/build.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const CWD = '/home/user/project';
const host = syntheticHost('linux');
const policy = resolvePolicy(loadProfile('workspace', CWD), { read: [], write: [], deny: [] }, host, CWD);
const plan = buildPlan({
  backend: 'bwrap',
  policy,
  command: ['true'],
  env: {},
  cwd: CWD,
  host,
  bestEffort: false,
});
const stderr = (text: string) => ({ head: Buffer.from(text), tail: Buffer.alloc(0) });

describe('denialAnnotations', () => {
  it('builds denials from a run, with bwrap private areas and EROFS semantics', () => {
    expect(privateAreasOf(plan, policy)).toEqual({ dirs: ['/tmp', '/run', '/var/run'], prefixes: [] });
    const out = denialAnnotations({
      policy,
      plan,
      host,
      networkFromFlag: false,
      stderr: stderr("touch: cannot touch '/etc/x': Read-only file system\ncat: /etc/y: Permission denied\n"),
    });
    expect(out.map((a) => [a.kind, a.operation, a.path, a.fix])).toEqual([
      // Never a system directory, whatever the command printed.
      ['denial', 'create', '/etc/x', undefined],
    ]);
  });

  it('does not repeat a path a backend log already reported, and notes what the cap left out', () => {
    const lines = Array.from(
      { length: 4 },
      (_, i) => `touch: cannot touch '/etc/f${i}': Read-only file system`,
    );
    const out = denialAnnotations({
      policy,
      plan,
      host,
      networkFromFlag: false,
      stderr: stderr(lines.join('\n')),
      maxDenials: 3,
      known: [{ kind: 'denial', message: 'from the log', path: '/etc/f0' }],
    });
    expect(out.map((a) => a.path ?? a.message)).toEqual([
      '/etc/f1',
      '/etc/f2',
      '1 more denial not listed (limit 3)',
    ]);
  });

  it('gives nothing without a policy or for the unconfined backend', () => {
    const none = buildPlan({
      backend: 'none',
      policy: undefined,
      command: ['true'],
      env: {},
      cwd: CWD,
      host,
      bestEffort: false,
    });
    const text = stderr("touch: cannot touch '/etc/x': Read-only file system");
    expect(
      denialAnnotations({ policy: undefined, plan: none, host, networkFromFlag: false, stderr: text }),
    ).toEqual([]);
  });

  it('examines both ends of a long stderr', () => {
    const head = Buffer.from(`a\n${'x'.repeat(300 * 1024)}`);
    const tail = Buffer.from('last line\n');
    const sample = stderrSample(head, tail);
    expect([sample.startsWith('a\n'), sample.endsWith('last line\n'), sample.length < 300 * 1024]).toEqual([
      true,
      true,
      true,
    ]);
  });
});
