// Resource limit inputs: flags, library options, the profile's limits key, the merge of a
// profile chain with flags on top, and the pure planner's refusals. No processes.
import { describe, expect, it } from 'vitest';
import { toRunOptions } from '../../src/cli/flags.ts';
import { parseLimitFlags, parsePidsFlag } from '../../src/cli/limit-flags.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { planLimits } from '../../src/limits/plan.ts';
import { limitRequest } from '../../src/limits/request.ts';
import { formatLimitValue } from '../../src/limits/types.ts';
import { validateRunOptions } from '../../src/options/validate.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileData } from '../../src/profile/parse.ts';

describe('limit flags', () => {
  it('parses sizes, durations and counts; 0 and off remove a limit', () => {
    expect(parseLimitFlags({ pids: '64', memory: '256M', cpuTime: '1s', fileSize: '10MiB' })).toEqual({
      pids: 64,
      memoryBytes: 256 * 1024 ** 2,
      cpuTimeMs: 1000,
      fileSizeBytes: 10 * 1024 ** 2,
    });
    expect(parseLimitFlags({ pids: 'off', memory: '0', cpuTime: '0', fileSize: 'off' })).toEqual({
      pids: 0,
      memoryBytes: 0,
      cpuTimeMs: 0,
      fileSizeBytes: 0,
    });
    expect(toRunOptions({ pids: '8' }).run.pids).toBe(8);
  });

  it.each([
    [() => parsePidsFlag('many'), "invalid number for --pids: 'many'"],
    [() => parseLimitFlags({ memory: 'lots' }), "invalid size for --memory: 'lots'"],
    [() => parseLimitFlags({ cpuTime: '1 fortnight' }), "invalid duration for --cpu-time: '1 fortnight'"],
  ])('bad values name the flag and the value (%#)', (f, message) => {
    expect(f).toThrow(message);
  });

  it('library options are checked', () => {
    expect(() => validateRunOptions({ pids: -1 })).toThrow('invalid value for option pids: -1');
    expect(() => validateRunOptions({ memoryBytes: '1G' })).toThrow('invalid value for option memoryBytes');
    expect(validateRunOptions({ cpuTimeMs: 1000, fileSizeBytes: 0 })).toEqual({
      cpuTimeMs: 1000,
      fileSizeBytes: 0,
    });
  });
});

describe('profile limits key', () => {
  const parse = (limits: unknown, name = 'p') => parseProfileData({ limits }, 'p.yaml', name);

  it('accepts numbers, sizes, durations and off', () => {
    expect(parse({ pids: 256, memory: '2GiB', cpuTime: '10m', fileSize: 'off' }).limits).toEqual({
      pids: 256,
      memory: 2 * 1024 ** 3,
      cpuTime: 600_000,
      fileSize: 0,
    });
  });

  it.each([
    [{ pid: 3 }, "limits.pid: unknown key 'pid' — allowed keys: pids, memory, cpuTime, fileSize"],
    [{ pids: 'many' }, "limits.pids: 'many' is not a number of processes"],
    [{ memory: 'lots' }, 'limits.memory:'],
    [[1], 'limits: must be a mapping'],
  ])('%j is refused, naming the key', (limits, message) => {
    expect(() => parse(limits)).toThrow(message);
  });

  it('a child profile overrides its parent per key; flags override both; 0 removes', () => {
    const merged = mergeProfiles([
      parse({ pids: 100, fileSize: '1GiB' }, 'parent'),
      parse({ pids: 50 }, 'child'),
    ]);
    expect(merged.limits).toEqual({
      pids: { value: 50, profile: 'child' },
      fileSize: { value: 1024 ** 3, profile: 'parent' },
    });
    const request = limitRequest(
      merged.limits,
      { fileSizeBytes: 0, memoryBytes: 1024 },
      (p) => p === 'parent',
    );
    expect(request).toEqual({
      pids: { value: 50, source: 'profile child', builtin: false },
      memory: { value: 1024, source: '--memory', builtin: false },
      fileSize: { value: 0, source: '--file-size', builtin: false },
    });
  });
});

describe('the limits planner', () => {
  const linux = syntheticHost('linux');
  it('a user-asked limit with no mechanism is refused; a built-in default is listed', () => {
    const noCgroup = {
      ...linux,
      cgroup: { version: 2 as const, usable: false, swap: false, reason: 'no delegation' },
    };
    expect(() =>
      planLimits({ pids: { value: 8, source: '--pids', builtin: false } }, noCgroup, 'bwrap', false),
    ).toThrow('cannot enforce the pids limit 8 processes (--pids): no delegation');
    const soft = planLimits(
      { pids: { value: 8, source: 'profile strict', builtin: true } },
      noCgroup,
      'bwrap',
      false,
    );
    expect(soft?.limits[0]).toMatchObject({ mechanism: 'not-enforced' });
    expect(soft?.cgroup).toBeUndefined();
  });

  it('RLIMIT_FSIZE is in 512-byte blocks, rounded down (never looser); below 512 bytes is refused', () => {
    const blocks = (value: number) =>
      planLimits({ fileSize: { value, source: '--file-size', builtin: false } }, linux, 'bwrap', false)
        ?.fileSizeBlocks;
    expect(blocks(10 * 1024 ** 2)).toBe(20480);
    expect(blocks(1000)).toBe(1);
    expect(() => blocks(100)).toThrow('below 512 bytes');
  });

  it('formats values for messages', () => {
    expect(formatLimitValue('memory', 256 * 1024 ** 2)).toBe('256 MiB');
    expect(formatLimitValue('memory', 1024 ** 3)).toBe('1 GiB');
    expect(formatLimitValue('pids', 1)).toBe('1 process');
    expect(formatLimitValue('cpuTime', 1500)).toBe('1.5s');
  });
});

describe('Windows job limits at launch', () => {
  it('writes ActiveProcessLimit @40, JobMemoryLimit @120, PerJobUserTimeLimit @8 of the 144-byte structure', async () => {
    const { writeJobResourceLimits, jobLimitHit } = await import('../../src/backends/windows/job-limits.ts');
    const view = Buffer.alloc(144);
    writeJobResourceLimits(view, {
      activeProcessLimit: 64,
      jobMemoryLimit: 256 * 1024 ** 2,
      perJobUserTimeLimit: '15000000',
    });
    expect(view.readUInt32LE(40)).toBe(64);
    expect(view.readBigUInt64LE(120)).toBe(268435456n);
    expect(view.readBigInt64LE(8)).toBe(15000000n);
    expect(view.readUInt32LE(16)).toBe(0); // LimitFlags are the launcher's, untouched here
    const plan = {
      limits: { limits: [{ name: 'cpuTime', value: 1500, mechanism: 'job-object', source: '--cpu-time' }] },
    };
    const outcome = { started: true, exitCode: 1816 };
    // biome-ignore lint/suspicious/noExplicitAny: partial plan and outcome for the pure check
    expect(jobLimitHit(plan as any, outcome as any)).toMatchObject({ name: 'cpuTime', value: 1500 });
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(jobLimitHit(plan as any, { started: true, exitCode: 1 } as any)).toBeUndefined();
  });
});
