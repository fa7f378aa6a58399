// Golden plans for resource limits (issue 22) on synthetic hosts: which mechanism each limit
// gets per platform, the refusals (125) and their messages, --best-effort, the built-in
// profile's soft default, and the join step's argv (macOS: RLIMIT_FSIZE before sandbox-exec).
import { describe, expect, it } from 'vitest';
import { isCordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import type { CgroupInfo } from '../../src/host/types.ts';
import { wrapWithLimits } from '../../src/limits/wrap.ts';
import type { RunOptions } from '../../src/options/types.ts';
import type { Platform } from '../../src/policy/types.ts';
import { preparePlan } from '../../src/prepare.ts';

const V2: CgroupInfo = { version: 2, usable: true, parent: '/sys/fs/cgroup/cordon.slice', swap: true };
const V1: CgroupInfo = {
  version: 1,
  usable: true,
  swap: true,
  v1: {
    pids: '/sys/fs/cgroup/pids',
    memory: '/sys/fs/cgroup/memory/job',
    cpuacct: '/sys/fs/cgroup/cpuacct',
    freezer: '/sys/fs/cgroup/freezer',
  },
};
const NONE: CgroupInfo = {
  version: 2,
  usable: false,
  swap: false,
  reason: 'cordon creates per-run cgroups only as root',
};
const ALL: RunOptions = {
  pids: 64,
  memoryBytes: 256 * 1024 ** 2,
  cpuTimeMs: 1000,
  fileSizeBytes: 10 * 1024 ** 2,
};

interface Case {
  name: string;
  platform: Platform;
  cgroup?: CgroupInfo;
  options: RunOptions;
}

const CASES: Case[] = [
  { name: 'linux cgroup2, every limit', platform: 'linux', cgroup: V2, options: ALL },
  { name: 'linux cgroup1 (hybrid host), every limit', platform: 'linux', cgroup: V1, options: ALL },
  { name: 'linux no cgroup: --pids refused', platform: 'linux', cgroup: NONE, options: { pids: 64 } },
  {
    name: 'linux no cgroup, --best-effort',
    platform: 'linux',
    cgroup: NONE,
    options: { ...ALL, bestEffort: true },
  },
  {
    name: 'linux no cgroup, --file-size only',
    platform: 'linux',
    cgroup: NONE,
    options: { fileSizeBytes: 1000 },
  },
  { name: 'linux --file-size below 512 bytes refused', platform: 'linux', options: { fileSizeBytes: 100 } },
  {
    name: 'linux --backend none, cgroup2',
    platform: 'linux',
    cgroup: V2,
    options: { backend: 'none', pids: 8 },
  },
  { name: 'linux strict profile: its file-size default', platform: 'linux', options: { profile: 'strict' } },
  {
    name: 'linux strict, --file-size 0 removes it',
    platform: 'linux',
    options: { profile: 'strict', fileSizeBytes: 0 },
  },
  { name: 'darwin --file-size exact', platform: 'darwin', options: { fileSizeBytes: 10 * 1024 ** 2 } },
  { name: 'darwin --memory refused', platform: 'darwin', options: { memoryBytes: 256 * 1024 ** 2 } },
  { name: 'darwin --pids refused', platform: 'darwin', options: { pids: 64 } },
  { name: 'darwin --cpu-time refused', platform: 'darwin', options: { cpuTimeMs: 1000 } },
  { name: 'darwin every limit, --best-effort', platform: 'darwin', options: { ...ALL, bestEffort: true } },
  {
    name: 'win32 --pids, --memory, --cpu-time: the job object',
    platform: 'win32',
    options: { pids: 64, memoryBytes: 256 * 1024 ** 2, cpuTimeMs: 1500, bestEffort: true, network: true },
  },
  { name: 'win32 --file-size refused', platform: 'win32', options: { fileSizeBytes: 1024 } },
  {
    name: 'win32 strict: the built-in file-size default is listed, not refused',
    platform: 'win32',
    options: { profile: 'strict', bestEffort: true },
  },
];

function render(c: Case): string {
  const base = syntheticHost(c.platform);
  const host = c.cgroup ? { ...base, cgroup: c.cgroup } : base;
  const lines = [`## ${c.name}`, `options: ${JSON.stringify(c.options)}`];
  try {
    const { plan } = preparePlan(['make', 'test'], c.options, {
      probe: () => host,
      platform: c.platform,
      cwdOverride: base.cwd,
    });
    lines.push(`backend: ${plan.backend}`);
    for (const l of plan.limits?.limits ?? [])
      lines.push(
        `limit ${l.name} ${l.value}: ${l.mechanism} (${l.source})${l.reason ? ` — ${l.reason}` : ''}`,
      );
    if (plan.limits?.cgroup) lines.push(`cgroup: ${plan.limits.cgroup}`);
    if (plan.limits?.fileSizeBlocks !== undefined)
      lines.push(`RLIMIT_FSIZE: ${plan.limits.fileSizeBlocks} blocks of 512 bytes`);
    for (const n of plan.notEnforced.filter((x) => x.access === 'limit'))
      lines.push(`not enforced: ${n.path}: ${n.reason}`);
    if (plan.limits && (plan.limits.fileSizeBlocks !== undefined || plan.limits.cgroup)) {
      const procs = plan.limits.cgroup ? ['<run cgroup>/cgroup.procs'] : [];
      const w = wrapWithLimits(plan.executable, plan.args.slice(0, 1), plan.limits.fileSizeBlocks, procs);
      const shown = [w.executable, w.args[0], '<script>', ...w.args.slice(2)].map((a) =>
        a!.length > 40 ? `${a!.slice(0, 40)}…` : a,
      );
      lines.push(`join step: ${JSON.stringify(shown)} ...`);
    }
    if (plan.backend === 'windows' && plan.limits) {
      lines.push(
        `job limits: ${plan.spec.job.limits.names.join(' | ')} = 0x${plan.spec.job.limits.value.toString(16)}`,
      );
      lines.push(`job resource limits: ${JSON.stringify(plan.spec.job.resourceLimits ?? null)}`);
    }
    if (!plan.limits) lines.push('no limits');
  } catch (error) {
    if (!isCordonError(error)) throw error;
    lines.push(`refused (125, ${error.code}): ${error.message}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('resource limit plans', () => {
  it('every case, one golden file', async () => {
    await expect(CASES.map(render).join('\n')).toMatchFileSnapshot('./__snapshots__/limits-plans.txt');
  });

  it('the join step is a fixed script: every value is a positional argument', () => {
    const w = wrapWithLimits('/usr/bin/bwrap', ['--a', "$(x) 'y'"], 20480, ['/cg/cgroup.procs']);
    expect(w.executable).toBe('/bin/sh');
    expect(w.args.slice(2)).toEqual([
      'cordon-limits',
      '20480',
      '/cg/cgroup.procs',
      '--',
      '/usr/bin/bwrap',
      '--a',
      "$(x) 'y'",
    ]);
    expect(w.args[1]).not.toContain('bwrap');
  });
});
