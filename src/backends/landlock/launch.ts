// Starting a Landlock plan without ever confining the caller's own work. Two modes:
//   helper (library run(), and the CLI with --report): spawn `node landlock-exec.js`, a fresh
//     process that confines itself and process.execve()s the command (same pid, so the
//     runner's group kill and timeout work unchanged). Costs one Node start (~60-120 ms).
//   self (the CLI): confine the CLI's main thread right before spawning; libuv forks from the
//     main thread, so the command and its descendants are confined. The libuv threadpool is
//     started first, so its threads (created together, before the restriction) stay
//     unconfined: the cleanup after the run (removing the private temp dir) runs there.
//     The CLI must not need more file access on its main thread afterwards, and it is made
//     non-dumpable, so the command (same domain) cannot ptrace it or open /proc/PPID/mem.
// Numbers and the reasoning: docs/landlock.md.
import { existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CordonError } from '../../errors.ts';
import { ConfineError, type ConfineSpec, confineThisThread, setNotDumpable } from '../../native/landlock.ts';
import { rightsFor } from '../../plan/linux/landlock.ts';
import type { LandlockPlan } from '../../plan/types.ts';
import { createPrivateTmp, type PrivateTmp } from './private-tmp.ts';

export type LandlockMode = 'self' | 'helper';

export interface LandlockLaunch {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly privateTmp?: string | undefined;
  /** Removes the private TMPDIR (descriptor-relative; see private-tmp.ts). */
  cleanup(opts?: { subreaper?: boolean | undefined }): Promise<void>;
}

export function findHelper(): string {
  const here = new URL('.', import.meta.url);
  for (const rel of ['../landlock-exec.js', './landlock-exec.js', './exec-entry.ts']) {
    const candidate = fileURLToPath(new URL(rel, here));
    if (existsSync(candidate)) return candidate;
  }
  throw new CordonError(
    'internal',
    `cannot find cordon's Landlock helper (landlock-exec.js) next to ${fileURLToPath(here)} — reinstall cordon`,
  );
}

/** Prefix of the variables carrying the command's environment to the helper. */
export const HELPER_ENV_PREFIX = 'CORDON_LANDLOCK_ENV_';
const CHUNK_CHARS = 96 * 1024; // below the kernel's 128 KiB limit for one env string

/**
 * The command's environment for the helper: JSON, base64, in chunks of ≤ 96 KiB, as the
 * helper's ONLY variables. Not argv (world-readable in /proc/PID/cmdline), and not the plain
 * variables (NODE_OPTIONS and friends would configure the helper's own Node).
 */
export function encodeHelperEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const text = Buffer.from(JSON.stringify(env)).toString('base64');
  const out: Record<string, string> = {};
  for (let i = 0; i * CHUNK_CHARS < text.length || i === 0; i++)
    out[`${HELPER_ENV_PREFIX}${i}`] = text.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS);
  return out;
}

export function decodeHelperEnv(vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  let text = '';
  for (let i = 0; vars[`${HELPER_ENV_PREFIX}${i}`] !== undefined; i++)
    text += vars[`${HELPER_ENV_PREFIX}${i}`];
  return JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Record<string, string>;
}

export function toConfineSpec(plan: LandlockPlan, privateTmp: string | undefined): ConfineSpec {
  const rules = plan.rules.map((r) => ({ path: r.path, rights: r.rights }));
  if (privateTmp) rules.push({ path: privateTmp, rights: rightsFor('write', 'dir', plan.handledFs) });
  return {
    abi: plan.abi,
    handledFs: plan.handledFs,
    handledNet: plan.handledNet,
    scoped: plan.scoped,
    rules,
    seccomp: plan.seccomp,
  };
}

export async function prepareLandlockLaunch(plan: LandlockPlan, mode: LandlockMode): Promise<LandlockLaunch> {
  const tmp: PrivateTmp | undefined = plan.privateTmp
    ? await createPrivateTmp(plan.privateTmp.parent, plan.privateTmp.prefix)
    : undefined;
  const privateTmp = tmp?.path;
  const env = privateTmp ? { ...plan.env, TMPDIR: privateTmp } : { ...plan.env };
  const cleanup = async (opts: { subreaper?: boolean | undefined } = {}) => {
    await tmp?.remove(opts);
  };
  const spec = toConfineSpec(plan, privateTmp);
  if (mode === 'helper') {
    return {
      executable: process.execPath,
      args: ['--no-warnings', findHelper(), JSON.stringify(spec), '--', plan.executable, ...plan.args],
      env: encodeHelperEnv(env),
      cwd: plan.cwd,
      privateTmp,
      cleanup,
    };
  }
  // Start the libuv threadpool now: its threads are created together, before the restriction.
  await access('/');
  try {
    // The command shares this thread's domain, and Landlock allows ptrace within a domain:
    // without this it could write this process's memory (/proc/PPID/mem) and run code on
    // the unconfined threadpool threads.
    setNotDumpable();
    confineThisThread(spec);
  } catch (error) {
    await cleanup();
    const message = error instanceof ConfineError ? error.message : String(error);
    throw new CordonError(
      'backend-unavailable',
      `could not apply the Landlock ruleset: ${message} — run cordon doctor, or use --backend bwrap`,
    );
  }
  return { executable: plan.executable, args: plan.args, env, cwd: plan.cwd, privateTmp, cleanup };
}
