// macOS facts for `cordon doctor`: is /usr/bin/sandbox-exec there, which macOS is this, and does
// a trial run of cordon's own generated profile work — which also proves this macOS release
// accepts every operation and filter name in it. A trial that fails with "sandbox_apply:
// Operation not permitted" means cordon itself already runs inside a sandbox (they cannot nest).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isNestedSandboxFailure } from '../backends/seatbelt/violations.ts';
import { buildSeatbeltPlan, SANDBOX_EXEC_PATH } from '../plan/macos/seatbelt.ts';
import type { HostInfo } from './types.ts';

export interface SeatbeltProbe {
  readonly sandboxExec: boolean;
  readonly macosVersion: string | undefined;
  /** 'ok', 'nested' (already sandboxed), or the trial's error text. */
  readonly trial: 'ok' | 'nested' | { readonly error: string };
}

export function probeSeatbelt(host: HostInfo): SeatbeltProbe {
  let sandboxExec = true;
  try {
    accessSync(SANDBOX_EXEC_PATH, constants.X_OK);
  } catch {
    sandboxExec = false;
  }
  const sw = spawnSync('/usr/bin/sw_vers', ['-productVersion'], { encoding: 'utf8', timeout: 5000 });
  const macosVersion = sw.status === 0 ? sw.stdout.trim() : undefined;
  if (!sandboxExec) return { sandboxExec, macosVersion, trial: { error: `${SANDBOX_EXEC_PATH} not found` } };
  const plan = buildSeatbeltPlan({
    policy: {
      platform: 'darwin',
      rules: [{ path: '/', access: 'read', source: { kind: 'flag', flag: '--read' } }],
      network: 'off',
      privateTmp: false,
      cwd: '/',
      profile: 'doctor',
    },
    command: ['/usr/bin/true'],
    env: {},
    host,
  });
  const r = spawnSync(plan.executable, plan.args, { encoding: 'utf8', timeout: 10_000, cwd: '/' });
  if (r.status === 0) return { sandboxExec, macosVersion, trial: 'ok' };
  const stderr = `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim();
  if (isNestedSandboxFailure(stderr)) return { sandboxExec, macosVersion, trial: 'nested' };
  return { sandboxExec, macosVersion, trial: { error: stderr || `exit ${r.status ?? r.signal}` } };
}
