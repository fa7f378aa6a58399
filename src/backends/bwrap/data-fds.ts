// The descriptors a bwrap plan reads at fds 3, 4, ...: one empty descriptor per masked file,
// then the seccomp program. The program goes through a file in a private (0700) temp dir that
// is unlinked before the spawn, so only the descriptor remains.
import { mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BwrapPlan } from '../../plan/types.ts';

export function openBwrapDataFds(plan: BwrapPlan): number[] {
  const fds = Array.from({ length: plan.dataFds }, () => openSync('/dev/null', 'r'));
  if (plan.seccompProgram !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-seccomp-'));
    const file = join(dir, 'filter.bpf');
    try {
      writeFileSync(file, Buffer.from(plan.seccompProgram, 'base64'), { mode: 0o600 });
      fds.push(openSync(file, 'r'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return fds;
}
