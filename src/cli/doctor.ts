// `cordon doctor`: for this machine, which backends can enforce which parts of a policy, the
// probe behind each answer, and for each missing piece the command that fixes it.
import { cgroupUnavailableReason } from '../backends/landlock/cgroup.ts';
import { readLinuxFacts } from '../doctor/facts.ts';
import { linuxDoctorChecks } from '../doctor/linux.ts';
import { BWRAP_SYSTEM_PATHS, findBwrap } from '../host/bwrap-find.ts';
import { bwrapWritableGuess, probeHost } from '../host/probe.ts';
import { probeSeatbelt } from '../host/seatbelt-probe.ts';
import { judgeBackends } from '../plan/choose.ts';
import { checkLandlockFit } from '../plan/linux/landlock.ts';
import { unixSocketCheck } from '../plan/linux/unix-sockets.ts';
import { NO_POLICY_FLAGS, resolvePolicy } from '../policy/resolve.ts';
import type { SandboxPolicy } from '../policy/types.ts';
import { DEFAULT_PROFILE, loadProfile } from '../profile/load.ts';
import { type DoctorJson, stamp } from '../result/json.ts';
import { windowsDoctorChecks } from './doctor-windows.ts';

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
  if (host.node)
    checks.push({
      name: 'node',
      ok: true,
      detail: `${process.version} at ${host.node.executable}; {node} (read by the strict profile) is ${host.node.readRoots.join(', ')}${host.node.note ? `; ${host.node.note}` : ''}`,
    });
  if (host.platform === 'linux') {
    const facts = readLinuxFacts(host);
    checks.push(...linuxDoctorChecks(facts));
    const noCgroup = cgroupUnavailableReason();
    // Which bubblewrap was chosen, and why every other candidate was passed over (decided from
    // ownership and permissions alone, before anything is executed).
    const search = findBwrap({
      pathVar: process.env['PATH'],
      writableGuess: bwrapWritableGuess(process.cwd()),
    });
    const passed = search.candidates
      .filter((c) => c.rejected !== undefined)
      .map((c) => `; not used: ${c.path} — ${c.rejected}`)
      .join('');
    checks.push({
      name: 'bwrap choice',
      ok: search.chosen !== undefined,
      detail:
        search.chosen === undefined
          ? `no trusted bubblewrap found (looked at ${BWRAP_SYSTEM_PATHS.join(', ')}, then PATH)${passed}`
          : `at ${search.chosen} (chosen: ${(BWRAP_SYSTEM_PATHS as readonly string[]).includes(search.chosen) ? 'a fixed system location, root-owned' : 'the first PATH entry that is root-owned all the way up and outside the workspace, home and temp'})${passed}`,
    });
    checks.push({
      name: 'leftover processes',
      ok: noCgroup === undefined,
      detail:
        noCgroup === undefined
          ? 'Landlock runs get their own cgroup, killed with cgroup.kill after the run (bubblewrap: the pid namespace)'
          : `${noCgroup}: under Landlock, escaped background processes are swept by the CLI as a child subreaper; a double-forked process can outlive a library run() (bubblewrap: the pid namespace, unaffected)`,
    });
    checks.push(unixSocketCheck(host, facts.seccompActions));
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
            detail:
              '/usr/bin/sandbox-exec ran two trial commands whose profiles hold every rule cordon generates (network off and on)',
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
    const doc: DoctorJson = stamp({ platform: host.platform, checks, backends: verdicts });
    write(1, `${JSON.stringify(doc)}\n`);
    return 0;
  }
  const lines = ['cordon doctor'];
  for (const c of checks) {
    lines.push(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
    if (c.fix) lines.push(`       fix: ${c.fix}`);
  }
  lines.push('backends:');
  for (const v of verdicts) lines.push(`  ${v.usable ? 'ok  ' : '--  '} ${v.backend}: ${v.reason}`);
  const usable = verdicts.find((v) => v.usable && v.backend !== 'none');
  lines.push(
    usable
      ? `ready: cordon -- CMD will use ${usable.backend}${checks.some((c) => !c.ok) ? ' (run the fix lines above to enable the rest)' : ''}`
      : 'not ready: no sandbox backend works here; run the fix lines above',
  );
  write(1, `${lines.join('\n')}\n`);
  return 0;
}
