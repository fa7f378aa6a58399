// Text for explain and --verbose: each limit, its value, the mechanism that enforces it and
// where it came from. Pure.
import { formatLimitValue, type LimitsPlan, limitLabel, type PlannedLimit } from './types.ts';

const FILES: Readonly<Record<PlannedLimit['name'], Record<'cgroup1' | 'cgroup2', string>>> = {
  pids: { cgroup2: 'pids.max', cgroup1: 'pids.max' },
  memory: { cgroup2: 'memory.max, memory.swap.max 0', cgroup1: 'memory.limit_in_bytes = memsw' },
  cpuTime: {
    cgroup2: 'cpu.stat usage_usec, killed at the limit',
    cgroup1: 'cpuacct.usage, killed at the limit',
  },
  fileSize: { cgroup2: '', cgroup1: '' },
};

export function describeMechanism(l: PlannedLimit): string {
  switch (l.mechanism) {
    case 'cgroup1':
    case 'cgroup2':
      return `${l.mechanism === 'cgroup2' ? 'cgroup v2' : 'cgroup v1'} (${FILES[l.name][l.mechanism]})`;
    case 'rlimit':
      return 'RLIMIT_FSIZE (soft = hard, set before the first exec)';
    case 'job-object':
      return 'the job object';
    default:
      return `not enforced: ${l.reason ?? 'no mechanism'}`;
  }
}

export function describeLimits(plan: LimitsPlan | undefined): string[] {
  if (!plan) return ['limits: none'];
  return [
    'limits:',
    ...plan.limits.map(
      (l) =>
        `  ${limitLabel(l.name)} ${formatLimitValue(l.name, l.value)}: ${describeMechanism(l)}    ← ${l.source}`,
    ),
  ];
}
