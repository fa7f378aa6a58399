// The flag table is the one definition: every run-scoped flag feeds some RunOptions field, and
// toRunOptions maps each flag to the field OPTION_SOURCES names.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLAG_TABLE, type FlagName, OPTION_SOURCES } from '../../src/cli/flag-table.ts';
import { toRunOptions } from '../../src/cli/flags.ts';

const envFile = join(mkdtempSync(join(tmpdir(), 'cordon-flags-')), '.env');
writeFileSync(envFile, 'FROM_FILE=1\n');

describe('flag table', () => {
  it('every run flag is the source of some RunOptions field; cli flags are not', () => {
    const consumed = new Set(Object.values(OPTION_SOURCES).flatMap((names) => names ?? []));
    for (const [name, spec] of Object.entries(FLAG_TABLE)) {
      if (spec.scope === 'run') expect(consumed.has(name as FlagName), name).toBe(true);
    }
    for (const name of consumed) expect(Object.keys(FLAG_TABLE)).toContain(name);
  });

  it('toRunOptions sets exactly the fields OPTION_SOURCES names for each flag', () => {
    const samples: Partial<Record<FlagName, unknown>> = {
      timeout: '2s',
      killAfter: '5s',
      signal: 'INT',
      maxOutput: '1KiB',
      cwd: '/x',
      backend: 'none',
      profile: 'strict',
      read: ['r'],
      write: ['w'],
      deny: ['d'],
      changes: true,
      net: true,
      env: ['KEEP', 'SET=1'],
      envFile: [envFile],
      clearEnv: true,
      bestEffort: true,
      verbose: true,
    };
    const base = toRunOptions({}).run as Record<string, unknown>;
    for (const [flag, value] of Object.entries(samples)) {
      const run = toRunOptions({ [flag]: value }).run as Record<string, unknown>;
      const changed = Object.keys(run).filter((k) => JSON.stringify(run[k]) !== JSON.stringify(base[k]));
      const expected = Object.entries(OPTION_SOURCES)
        .filter(([, names]) => names?.includes(flag as FlagName))
        .map(([field]) => field);
      // --env sets keepEnv and setEnv: both change with a sample that has one of each.
      expect(changed.sort(), flag).toEqual(expected.sort());
    }
  });
});
