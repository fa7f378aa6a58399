// Resource limits on real processes (issue 22): a bounded fork "bomb" under --pids, a 1 GiB
// allocation under --memory, a CPU loop under --cpu-time, a 100 MB write under --file-size —
// on bwrap, Landlock and none, as root (a per-run cgroup) and as uid 65534 (no cgroup: the
// refusal, and --file-size, which needs none). Every test is bounded: at most 500 sleepers
// (never exponential), 1 GiB asked for, a timeout on every run; the host side checks that
// nothing of the run is left and that the cgroup directories are gone.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeCgroup } from '../../src/host/cgroup-probe.ts';
import { isLinux, isRoot, makeTempDir, runCli } from '../helpers/cli.ts';
import { findProcesses } from '../helpers/procs.ts';

const cgroup = isLinux ? probeCgroup(0) : undefined;
const withCgroup = isLinux && isRoot && cgroup?.usable === true;
const dir = isLinux ? makeTempDir('cordon-limits-', '/var/tmp') : '';
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The per-run cgroup directories cordon creates (cordon-<pid>-<hex>) that still exist. */
function leftoverCgroups(): string[] {
  const parents =
    cgroup?.version === 1 && cgroup.v1 ? Object.values(cgroup.v1) : cgroup?.parent ? [cgroup.parent] : [];
  return parents.flatMap((p) =>
    existsSync(p) ? readdirSync(p).filter((n) => /^cordon-\d+-[0-9a-f]{8}$/.test(n)) : [],
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the JSON result, read field by field
const json = (stdout: string) => JSON.parse(stdout) as Record<string, any>;
// Landlock cannot enforce the workspace profile's denies inside readable dirs exactly.
const BACKENDS: [string, string[]][] = [
  ['bwrap', ['--backend', 'bwrap']],
  ['landlock', ['--backend', 'landlock', '--best-effort']],
  ['none', ['--backend', 'none']],
];

describe.runIf(withCgroup)('resource limits with a per-run cgroup (root)', () => {
  it.each(BACKENDS)(
    '%s: a bounded bomb under --pids 64 starts at most 64, ends, leaves nothing',
    async (_n, flags) => {
      const marker = `cordon-bomb-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
      const bomb = `i=0; while [ $i -lt 500 ]; do perl -e 'sleep 300' ${marker} & echo started; i=$((i+1)); done; wait`;
      const r = await runCli(
        [...flags, '--json', '--pids', '64', '--timeout', '60', '--', 'sh', '-c', bomb],
        { cwd: dir },
      );
      const result = json(r.stdout);
      const started = (result['stdout'].text as string).split('\n').filter((l) => l === 'started').length;
      expect(started).toBeGreaterThan(0);
      expect(started).toBeLessThan(64);
      expect(result['status']).toBe('limit-exceeded');
      expect(result['limit']).toMatchObject({ name: 'pids', value: 64 });
      expect(result['limits'][0]).toMatchObject({ name: 'pids', mechanism: `cgroup${cgroup!.version}` });
      expect(result['timedOut']).toBe(false);
      expect(findProcesses(marker)).toEqual([]);
      expect(leftoverCgroups()).toEqual([]);
    },
  );

  it.each(BACKENDS)(
    '%s: a 1 GiB allocation under --memory 256M is killed and reported as the memory limit',
    async (_n, flags) => {
      const bystander = `cordon-bystander-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
      const { spawn } = await import('node:child_process');
      const other = spawn('perl', ['-e', 'sleep 120', bystander], { stdio: 'ignore' });
      try {
        const hog =
          'const a=[];for(let i=0;i<1024;i++)a.push(Buffer.alloc(1<<20,1));console.log("allocated")';
        const r = await runCli(
          [...flags, '--json', '--memory', '256M', '--timeout', '60', '--', process.execPath, '-e', hog],
          { cwd: dir },
        );
        const result = json(r.stdout);
        expect(result['stdout'].text).not.toContain('allocated');
        expect(result['status']).toBe('limit-exceeded');
        expect(result['limit']).toMatchObject({ name: 'memory', value: 256 * 1024 ** 2 });
        expect(result['signal']).toBe('SIGKILL');
        // The host's other processes are untouched: the bystander and this test process live on.
        expect(findProcesses(bystander)).toEqual([other.pid]);
        expect(leftoverCgroups()).toEqual([]);
      } finally {
        other.kill('SIGKILL');
      }
    },
  );

  it.each(BACKENDS)('%s: a CPU loop under --cpu-time 1s is killed at the limit', async (_n, flags) => {
    const r = await runCli(
      [...flags, '--cpu-time', '1s', '--timeout', '60', '--', 'sh', '-c', 'while :; do :; done'],
      { cwd: dir },
    );
    expect(r.code).toBe(137);
    expect(r.stderr).toContain('cordon: cpu-time limit 1s reached · killed (exit 137)');
    expect(leftoverCgroups()).toEqual([]);
  });

  // The escape attempt: leave the run's cgroup for the root ones, raise its own pids.max and
  // RLIMIT_FSIZE, then fork. Only the sandboxing backends promise this (none is unconfined).
  it.each(BACKENDS.filter(([n]) => n !== 'none'))(
    '%s: a root command cannot leave its cgroup or raise its limits',
    async (_n, flags) => {
      const marker = `cordon-escape-${process.pid}-${Math.floor(Math.random() * 1e9)}`;
      const script = [
        'for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do [ -e "$f" ] && (echo $$ > "$f") 2>/dev/null && echo "ESCAPED $f"; done',
        'for f in $(sed -n "s/^[0-9]*:pids:\\(.*\\)$/\\1/p;s/^0::\\(.*\\)$/\\1/p" /proc/self/cgroup); do for d in /sys/fs/cgroup/pids$f /sys/fs/cgroup$f; do [ -e "$d/pids.max" ] && (echo max > "$d/pids.max") 2>/dev/null && echo "RAISED $d"; done; done',
        'ulimit -f unlimited 2>/dev/null && echo "FSIZE RAISED"',
        `i=0; while [ $i -lt 500 ]; do perl -e 'sleep 300' ${marker} & echo started; i=$((i+1)); done; wait`,
      ].join('\n');
      const r = await runCli(
        [
          ...flags,
          '--json',
          '--pids',
          '64',
          '--file-size',
          '1M',
          '--timeout',
          '60',
          '--',
          'sh',
          '-c',
          script,
        ],
        { cwd: dir },
      );
      const result = json(r.stdout);
      const text = result['stdout'].text as string;
      expect(text).not.toMatch(/ESCAPED|RAISED/);
      expect(text.split('\n').filter((l) => l === 'started').length).toBeLessThan(64);
      expect(result['limit']).toMatchObject({ name: 'pids' });
      expect(findProcesses(marker)).toEqual([]);
      expect(leftoverCgroups()).toEqual([]);
    },
  );

  it("a SIGKILLed cordon's empty cgroup is removed by the next run", async () => {
    const { spawn } = await import('node:child_process');
    const { CORDON } = await import('../helpers/cli.ts');
    const ready = join(dir, `ready-${Math.random()}`);
    const child = spawn(
      process.execPath,
      [CORDON, '--pids', '64', '--', 'sh', '-c', `touch ${ready}; exec sleep 30`],
      {
        cwd: dir,
        stdio: 'ignore',
      },
    );
    // Wait until the command runs (bounded by the test's own timeout), then SIGKILL cordon.
    while (!existsSync(ready)) await new Promise((r) => setTimeout(r, 20));
    expect(leftoverCgroups().length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const stale = leftoverCgroups();
    expect(stale.length).toBeGreaterThan(0); // nobody else removes it
    // bwrap dies with its parent; the directory stays until the next run sweeps it.
    const r = await runCli(['--pids', '64', '--', 'true'], { cwd: dir });
    expect(r.code).toBe(0);
    for (let i = 0; i < 50 && leftoverCgroups().length > 0; i++) {
      await runCli(['--pids', '64', '--', 'true'], { cwd: dir });
    }
    expect(leftoverCgroups().filter((n) => stale.includes(n))).toEqual([]);
  }, 30_000);

  it('the metadata line names the memory limit, distinct from a plain SIGKILL', async () => {
    const plain = await runCli(['--', 'sh', '-c', 'kill -KILL $$'], { cwd: dir });
    expect(plain.stderr).toContain('killed by SIGKILL');
    const hog = 'const a=[];for(let i=0;i<1024;i++)a.push(Buffer.alloc(1<<20,1))';
    const r = await runCli(['--memory', '256M', '--', process.execPath, '-e', hog], { cwd: dir });
    expect(r.code).toBe(137);
    expect(r.stderr).toContain('cordon: memory limit 256 MiB reached · killed (exit 137)');
  });
});

describe.runIf(isLinux)('--file-size (RLIMIT_FSIZE, no cgroup needed)', () => {
  const users: [string, number | undefined][] = isRoot
    ? [
        ['root', undefined],
        ['uid 65534', 65534],
      ]
    : [['self', undefined]];
  for (const [who, asUid] of users)
    it.each(BACKENDS)(`%s as ${who}: a 100 MB write stops at 10 MiB`, async (name, flags) => {
      const file = join(dir, `big-${name}-${asUid ?? 'self'}`);
      const r = await runCli(
        [
          ...flags,
          '--json',
          '--file-size',
          '10M',
          '--',
          'dd',
          'if=/dev/zero',
          `of=${file}`,
          'bs=1M',
          'count=100',
        ],
        { cwd: dir, asUid },
      );
      const result = json(r.stdout);
      expect(statSync(file).size).toBe(10 * 1024 ** 2);
      expect(result['status']).toBe('limit-exceeded');
      expect(result['limit']).toMatchObject({ name: 'fileSize', value: 10 * 1024 ** 2 });
      expect(result['limits']).toEqual([
        { name: 'fileSize', value: 10 * 1024 ** 2, mechanism: 'rlimit', source: '--file-size' },
      ]);
      rmSync(file, { force: true });
    });
});

describe.runIf(isLinux && isRoot)('without a cgroup (uid 65534)', () => {
  // (Landlock here runs under --best-effort for its file rules, which covers the limits too.)
  it.each(BACKENDS.filter(([n]) => n !== 'landlock'))(
    '%s: --pids, --memory, --cpu-time are refused (125), nothing run',
    async (_n, flags) => {
      for (const [limit, label] of [
        [['--pids', '64'], 'pids'],
        [['--memory', '256M'], 'memory'],
        [['--cpu-time', '1s'], 'cpu-time'],
      ] as const) {
        const marker = join(dir, `ran-${Math.random()}`);
        const r = await runCli([...flags, ...limit, '--', 'touch', marker], { cwd: dir, asUid: 65534 });
        expect(r.code).toBe(125);
        expect(r.stderr).toContain(`cannot enforce the ${label} limit`);
        expect(r.stderr).toContain('--best-effort');
        expect(existsSync(marker)).toBe(false);
      }
    },
  );

  it('with --best-effort the run goes on and lists the limit as not enforced', async () => {
    const r = await runCli(['--json', '--best-effort', '--pids', '64', '--', 'true'], {
      cwd: dir,
      asUid: 65534,
    });
    const result = json(r.stdout);
    expect(result['status']).toBe('exited');
    expect(result['limits'][0]).toMatchObject({ name: 'pids', mechanism: 'not-enforced' });
    expect(result['notEnforced']).toEqual([
      expect.objectContaining({ access: 'limit', path: 'pids 64 processes' }),
    ]);
  });
});
