// `cordon doctor`: for this machine, which backends can enforce which parts of a policy, the
// probe behind each answer, and for each missing piece the command that fixes it.
import { readFileSync } from 'node:fs';
import { BWRAP_SYSTEM_PATHS, findBwrap } from '../host/bwrap-find.ts';
import { bwrapWritableGuess, probeHost } from '../host/probe.ts';
import { probeSeatbelt } from '../host/seatbelt-probe.ts';
import { judgeBackends } from '../plan/choose.ts';
import { checkLandlockFit } from '../plan/linux/landlock.ts';
import { NO_POLICY_FLAGS, resolvePolicy } from '../policy/resolve.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import { DEFAULT_PROFILE, loadProfile } from '../profile/load.ts';
import { windowsDoctorChecks } from './doctor-windows.ts';

function readSysctl(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function runDoctor(json: boolean, write: (fd: number, text: string) => void): number {
  const host = probeHost({ bwrap: true, landlock: true, detailed: true });
  // Judge the backends against the default profile in this directory, so the Landlock line
  // says whether (and why not) it can enforce what a plain `cordon -- cmd` would ask for.
  let policy: SandboxPolicy | undefined;
  try {
    policy = resolvePolicy(loadProfile(DEFAULT_PROFILE, process.cwd()), NO_POLICY_FLAGS, host, process.cwd());
  } catch {
    policy = undefined;
  }
  const verdicts = judgeBackends(host, policy, (backend, p, h) =>
    backend === 'landlock' ? checkLandlockFit(p, h) : undefined,
  );
  const checks: { name: string; ok: boolean; detail: string; fix?: string }[] = [];
  checks.push({
    name: 'platform',
    ok: true,
    detail: `${host.platform} ${host.arch}, uid ${host.uid}, node ${process.version}`,
  });
  if (host.platform === 'linux') {
    const bw = host.bwrap;
    const search = findBwrap({
      pathVar: process.env['PATH'],
      writableGuess: bwrapWritableGuess(process.cwd()),
    });
    const why =
      search.chosen === undefined
        ? ''
        : (BWRAP_SYSTEM_PATHS as readonly string[]).includes(search.chosen)
          ? ' (chosen: a fixed system location, root-owned)'
          : ' (chosen: the first PATH entry that is root-owned all the way up and outside the workspace, home and temp)';
    const passed = search.candidates
      .filter((c) => c.rejected !== undefined)
      .map((c) => `; not used: ${c.path} — ${c.rejected}`)
      .join('');
    checks.push(
      bw
        ? {
            name: 'bwrap',
            ok: bw.usable,
            detail: `bubblewrap ${bw.version} at ${bw.path}${why}: ${bw.usable ? 'trial sandbox with user, pid and net namespaces started' : bw.unusableReason}${passed}`,
            ...(bw.usable
              ? {}
              : {
                  fix: 'see README "Ubuntu 24.04": an AppArmor profile for bwrap, or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
                }),
          }
        : {
            name: 'bwrap',
            ok: false,
            detail: `no trusted bubblewrap found (looked at ${BWRAP_SYSTEM_PATHS.join(', ')}, then PATH)${passed}`,
            fix: 'sudo apt-get install bubblewrap (or dnf install bubblewrap)',
          },
    );
    const apparmor = readSysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns');
    if (apparmor !== undefined)
      checks.push({
        name: 'apparmor userns restriction',
        ok: apparmor === '0',
        detail: `kernel.apparmor_restrict_unprivileged_userns = ${apparmor}`,
      });
    const maxUserns = readSysctl('/proc/sys/user/max_user_namespaces');
    if (maxUserns !== undefined)
      checks.push({
        name: 'user namespaces',
        ok: maxUserns !== '0',
        detail: `user.max_user_namespaces = ${maxUserns}`,
        ...(maxUserns === '0' ? { fix: 'sudo sysctl -w user.max_user_namespaces=10000' } : {}),
      });
    const ll = host.landlock;
    checks.push({
      name: 'landlock',
      ok: (ll?.abi ?? 0) > 0,
      detail: ll && ll.abi > 0 ? `Landlock ABI ${ll.abi}` : (ll?.reason ?? 'no Landlock'),
      ...((ll?.abi ?? 0) > 0 ? {} : { fix: 'use a kernel >= 5.13 booted with lsm=...,landlock' }),
    });
    checks.push({
      name: 'seccomp',
      ok: readSysctl('/proc/sys/kernel/seccomp/actions_avail') !== undefined,
      detail: `actions: ${readSysctl('/proc/sys/kernel/seccomp/actions_avail') ?? 'unknown'}`,
    });
  }
  if (host.platform === 'darwin') {
    const sb = probeSeatbelt(host);
    checks.push({
      name: 'macOS',
      ok: sb.macosVersion !== undefined,
      detail: `macOS ${sb.macosVersion ?? 'unknown'}`,
    });
    checks.push(
      sb.trial === 'ok'
        ? {
            name: 'seatbelt',
            ok: true,
            detail: "/usr/bin/sandbox-exec ran a trial command under cordon's profile",
          }
        : sb.trial === 'nested'
          ? {
              name: 'seatbelt',
              ok: false,
              detail:
                'cordon is already running inside a macOS sandbox (sandbox_apply: Operation not permitted); sandboxes cannot nest',
              fix: 'run cordon from a normal terminal, not from inside another sandboxed tool',
            }
          : {
              name: 'seatbelt',
              ok: false,
              detail: `trial run of /usr/bin/sandbox-exec failed: ${sb.trial.error}`,
              fix: sb.sandboxExec
                ? 'report this with the output of cordon explain -- true (the profile may use a name this macOS does not know)'
                : 'sandbox-exec ships with macOS; check /usr/bin/sandbox-exec',
            },
    );
  }
  if (host.platform === 'win32') checks.push(...windowsDoctorChecks());
  if (json) {
    write(1, `${JSON.stringify({ version: 1, platform: host.platform, checks, backends: verdicts })}\n`);
    return 0;
  }
  const lines = ['cordon doctor'];
  for (const c of checks) {
    lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
    if (c.fix) lines.push(`       fix: ${c.fix}`);
  }
  lines.push('backends:');
  for (const v of verdicts) lines.push(`  ${v.usable ? 'ok  ' : '--  '} ${v.backend}: ${v.reason}`);
  write(1, `${lines.join('\n')}\n`);
  return 0;
}
