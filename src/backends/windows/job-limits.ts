// The job object's resource limits at launch: the JOBOBJECT_EXTENDED_LIMIT_INFORMATION fields
// (x64 layout, 144 bytes), and which limit ended a run.
//   BasicLimitInformation: PerProcessUserTimeLimit @0, PerJobUserTimeLimit @8 (100 ns),
//     LimitFlags @16, ..., ActiveProcessLimit @40; ProcessMemoryLimit @112, JobMemoryLimit @120.
import type { SpawnOutcome } from '../../exec/spawn.ts';
import type { LimitHit } from '../../limits/types.ts';
import type { WindowsPlan } from '../../plan/types.ts';
import { ERROR_NOT_ENOUGH_QUOTA } from '../../plan/windows/job-limits.ts';

export type WindowsJobResourceLimits = NonNullable<WindowsPlan['spec']['job']['resourceLimits']>;

export function writeJobResourceLimits(view: Buffer, limits: WindowsJobResourceLimits | undefined): void {
  if (!limits) return;
  if (limits.perJobUserTimeLimit !== undefined) view.writeBigInt64LE(BigInt(limits.perJobUserTimeLimit), 8);
  if (limits.activeProcessLimit !== undefined) view.writeUInt32LE(limits.activeProcessLimit, 40);
  if (limits.jobMemoryLimit !== undefined) view.writeBigUInt64LE(BigInt(limits.jobMemoryLimit), 120);
}

/** The job's CPU-time limit terminated the run (every process exits ERROR_NOT_ENOUGH_QUOTA). */
export function jobLimitHit(plan: WindowsPlan, outcome: SpawnOutcome): LimitHit | undefined {
  const cpu = plan.limits?.limits.find((l) => l.name === 'cpuTime' && l.mechanism === 'job-object');
  if (!cpu || !outcome.started || outcome.exitCode !== ERROR_NOT_ENOUGH_QUOTA) return undefined;
  return {
    name: 'cpuTime',
    value: cpu.value,
    detail: 'the job object ended the run (ERROR_NOT_ENOUGH_QUOTA)',
  };
}
