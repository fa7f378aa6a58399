// Resource limits around a launch (Linux, macOS): creates the run's cgroup, puts the join step
// (limits/wrap.ts) in front of the executable, polls the cgroup's CPU time and kills the run
// at the limit (cpu.max would only throttle), and afterwards reads the kernel's counters to
// say which limit ended the run, then kills what is left and removes the cgroup.
import type { SpawnOutcome } from '../exec/spawn.ts';
import type { LimitHit, LimitsPlan } from '../limits/types.ts';
import { formatLimitValue, limitLabel } from '../limits/types.ts';
import { JOIN_FAILURE, wrapWithLimits } from '../limits/wrap.ts';
import type { Annotation } from '../result/types.ts';
import { lastText } from './exec-failure.ts';

/** How often the CPU time is read; the run may overshoot by this much per core. */
export const CPU_POLL_MS = 50;

export interface LimitsSession {
  wrap(executable: string, args: readonly string[]): { executable: string; args: readonly string[] };
  /** After the spawn's outcome: the limit that ended the run, and notes on the others. */
  finish(outcome: SpawnOutcome): Promise<{ limit?: LimitHit | undefined; annotations: Annotation[] }>;
}

/** A write past RLIMIT_FSIZE killed the command (SIGXFSZ). */
export function fileSizeHit(plan: LimitsPlan | undefined): LimitHit | undefined {
  const l = plan?.limits.find((x) => x.name === 'fileSize' && x.mechanism === 'rlimit');
  return l
    ? { name: 'fileSize', value: l.value, detail: 'a write went past the limit (SIGXFSZ)' }
    : undefined;
}

export async function startLimits(plan: LimitsPlan | undefined): Promise<LimitsSession | undefined> {
  if (!plan || (plan.cgroup === undefined && plan.fileSizeBlocks === undefined)) return undefined;
  const cg =
    plan.cgroup && plan.cgroupInfo
      ? (await import('../exec/cgroup.ts')).createRunCgroup(plan.cgroupInfo, plan)
      : undefined;
  const cpu = plan.limits.find((l) => l.name === 'cpuTime' && l.mechanism === plan.cgroup);
  let cpuKilledAt: number | undefined;
  const timer =
    cg && cpu
      ? setInterval(() => {
          const used = cg.cpuUsageUs();
          if (cpuKilledAt === undefined && used >= cpu.value * 1000) {
            cpuKilledAt = used;
            cg.kill();
          }
        }, CPU_POLL_MS)
      : undefined;
  timer?.unref();
  return {
    wrap: (executable, args) => wrapWithLimits(executable, args, plan.fileSizeBlocks, cg?.procsFiles ?? []),
    finish: async (outcome) => {
      if (timer) clearInterval(timer);
      const events = cg?.events() ?? { oomKills: 0, pidsRefused: 0 };
      await cg?.remove();
      const value = (name: LimitHit['name']) => plan.limits.find((l) => l.name === name)?.value ?? 0;
      const hits: LimitHit[] = [];
      if (cpuKilledAt !== undefined)
        hits.push({
          name: 'cpuTime',
          value: value('cpuTime'),
          detail: `${(cpuKilledAt / 1e6).toFixed(2)}s of CPU used`,
        });
      if (events.oomKills > 0)
        hits.push({
          name: 'memory',
          value: value('memory'),
          detail: `the kernel's OOM killer killed ${events.oomKills} process${events.oomKills === 1 ? '' : 'es'}`,
        });
      if (outcome.signal === 'SIGXFSZ' && plan.fileSizeBlocks !== undefined)
        hits.push({
          name: 'fileSize',
          value: value('fileSize'),
          detail: 'a write went past the limit (SIGXFSZ)',
        });
      if (events.pidsRefused > 0)
        hits.push({
          name: 'pids',
          value: value('pids'),
          detail: `${events.pidsRefused} fork${events.pidsRefused === 1 ? '' : 's'} refused`,
        });
      // The join step's own failure (exit 125 and its line): the command never ran.
      const joinFailed =
        outcome.started && outcome.exitCode === 125 && JOIN_FAILURE.exec(lastText(outcome.stderr));
      if (joinFailed)
        return { annotations: [{ kind: 'warning', message: `the command did not start: ${joinFailed[1]}` }] };
      const failed = outcome.started && (outcome.signal !== null || outcome.exitCode !== 0);
      // The limit that ended the run: our own CPU kill, an OOM kill or SIGXFSZ that ended it, or a
      // failure after refused forks; every other limit reached is a note.
      const limit = failed ? hits[0] : undefined;
      const annotations: Annotation[] = hits
        .filter((h) => h !== limit)
        .map((h) => ({
          kind: 'warning',
          message: `${limitLabel(h.name)} limit ${formatLimitValue(h.name, h.value)} reached: ${h.detail}`,
        }));
      return { limit, annotations };
    },
  };
}
