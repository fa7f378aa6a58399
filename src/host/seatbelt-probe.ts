// macOS facts: the confstr user dirs for HostInfo, and for `cordon doctor` whether
// /usr/bin/sandbox-exec is there, which macOS this is, and whether this release compiles and
// runs cordon's generated profiles. The trial runs /usr/bin/true twice, so that every section
// the builder can emit is compiled at least once:
//   1. network off: a writable root with a read-only child (write section, exclusions with
//      their alias regexes, unix-socket clauses with require-not, the rename guard), a
//      private temp dir, an --allow-unix socket and localBinding;
//   2. network on (the IP, resolver and TLS rules).
// Both carry the base (the numeric TIOCSTI ioctl, preference domains, semaphore prefix).
// A trial that fails with "sandbox_apply: Operation not permitted" means cordon itself runs
// inside a sandbox (they cannot nest).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isNestedSandboxFailure } from '../backends/seatbelt/violations.ts';
import { buildSeatbeltPlan, SANDBOX_EXEC_PATH } from '../plan/macos/seatbelt.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import type { HostInfo } from './types.ts';

export interface SeatbeltProbe {
  readonly sandboxExec: boolean;
  readonly macosVersion: string | undefined;
  /** 'ok' (both trials ran), 'nested' (already sandboxed), or the failing trial's error text. */
  readonly trial: 'ok' | 'nested' | { readonly error: string };
}

const GETCONF = '/usr/bin/getconf';

/**
 * The user temp and cache dirs. $TMPDIR is normally the temp dir (…/T), and the cache dir its
 * sibling …/C: then no process is started. Otherwise getconf answers (confstr).
 */
export function probeDarwinUserDirs(
  tmpdir: string,
  realpath: (p: string) => string,
): { temp?: string; cache?: string } {
  const canonical = realpath(tmpdir);
  if (/^\/private\/var\/folders\/[^/]+\/[^/]+\/T$/.test(canonical))
    return { temp: canonical, cache: `${canonical.slice(0, -2)}/C` };
  const ask = (name: string): string | undefined => {
    const r = spawnSync(GETCONF, [name], { encoding: 'utf8', timeout: 5000 });
    const value = r.status === 0 ? r.stdout.trim().replace(/\/$/, '') : '';
    return value.startsWith('/') ? realpath(value) : undefined;
  };
  const temp = ask('DARWIN_USER_TEMP_DIR');
  const cache = ask('DARWIN_USER_CACHE_DIR');
  return { ...(temp ? { temp } : {}), ...(cache ? { cache } : {}) };
}

/** The two trial policies over `dir` (a fresh directory with a `ro` child). Pure. */
export function trialPolicies(dir: string): SandboxPolicy[] {
  const flag = { kind: 'flag', flag: '--read' } as const;
  const base = { platform: 'darwin', privateTmp: true, cwd: dir, profile: 'doctor' } as const;
  return [
    {
      ...base,
      rules: [
        { path: '/', access: 'read', source: flag },
        { path: dir, access: 'write', source: flag },
        { path: `${dir}/ro`, access: 'read', source: flag },
        { path: `${dir}/ro/hidden`, access: 'none', source: flag },
      ],
      network: 'off',
      localBinding: true,
      allowUnix: [`${dir}/ro/agent.sock`],
    },
    { ...base, rules: [{ path: '/', access: 'read', source: flag }], network: 'on' },
  ];
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
  // Our own fresh directory (mkdtemp, 0700): nothing a sandboxed command could have planted.
  const dir = host.realpath(mkdtempSync(join(host.tmpdir, 'cordon-doctor-')));
  try {
    mkdirSync(join(dir, 'ro'));
    mkdirSync(join(dir, 'tmp'));
    const names = ['network off: write root, read-only child, sockets, localBinding', 'network on'];
    const policies = trialPolicies(dir);
    for (let i = 0; i < policies.length; i++) {
      const plan = buildSeatbeltPlan({
        policy: policies[i]!,
        command: ['/usr/bin/true'],
        env: {},
        host,
        privateTmpDir: join(dir, 'tmp'),
      });
      const r = spawnSync(plan.executable, plan.args, { encoding: 'utf8', timeout: 10_000, cwd: dir });
      if (r.status === 0) continue;
      const stderr = `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim();
      if (isNestedSandboxFailure(stderr)) return { sandboxExec, macosVersion, trial: 'nested' };
      return {
        sandboxExec,
        macosVersion,
        trial: { error: `trial ${i + 1} (${names[i]}): ${stderr || `exit ${r.status ?? r.signal}`}` },
      };
    }
    return { sandboxExec, macosVersion, trial: 'ok' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
