// Resource limits on Windows: the job object's own (pure). pids → ActiveProcessLimit (a count
// of processes; threads are not limited), memory → JobMemoryLimit (committed memory of the
// whole job), cpuTime → PerJobUserTimeLimit (user-mode time of the whole job; kernel time is
// not counted). A file-size limit has no Windows equivalent.
import type { LimitsPlan } from '../../limits/types.ts';
import type { WindowsPlan } from '../types.ts';
import { JOB_LIMITS } from './spec.ts';

/** Exit code the job gives every process when PerJobUserTimeLimit is exceeded. */
export const ERROR_NOT_ENOUGH_QUOTA = 1816;

export function withJobLimits(plan: WindowsPlan, limits: LimitsPlan): WindowsPlan {
  const job = limits.limits.filter((l) => l.mechanism === 'job-object');
  if (job.length === 0) return plan;
  const value = (name: string) => job.find((l) => l.name === name)?.value;
  const pids = value('pids');
  const memory = value('memory');
  const cpu = value('cpuTime');
  const names = [
    ...plan.spec.job.limits.names,
    ...(cpu !== undefined ? ['JOB_OBJECT_LIMIT_JOB_TIME'] : []),
    ...(pids !== undefined ? ['JOB_OBJECT_LIMIT_ACTIVE_PROCESS'] : []),
    ...(memory !== undefined ? ['JOB_OBJECT_LIMIT_JOB_MEMORY'] : []),
  ];
  const mask = names.reduce((m, n) => m | (JOB_LIMITS as Record<string, number>)[n]!, 0);
  return {
    ...plan,
    spec: {
      ...plan.spec,
      job: {
        ...plan.spec.job,
        limits: { names, value: mask },
        resourceLimits: {
          ...(pids !== undefined ? { activeProcessLimit: pids } : {}),
          ...(memory !== undefined ? { jobMemoryLimit: memory } : {}),
          ...(cpu !== undefined ? { perJobUserTimeLimit: String(BigInt(cpu) * 10_000n) } : {}),
        },
      },
    },
  };
}
