// `cordon doctor` on Windows: the OS version, whether cordon runs elevated, a trial restricted
// token (IsTokenRestricted must say yes: Wine, for one, says no — and then every run is
// refused), whether cordon sits in a job (and so loses the job's UI limits), and which elements
// of the default profile the restricted-token backend can enforce on this machine.
import { release, version } from 'node:os';
import { createRestrictedToken, drawRunIdentity } from '../backends/windows/token.ts';
import { probeWindowsJob } from '../host/probe-win32.ts';
import { allocBytes, freeBytes, loadWin32, type Ptr } from '../native/win32.ts';
import {
  ADMINISTRATORS_SID,
  EVERYONE_SID,
  PRIVATE_OBJECT_DACL,
  RESTRICTED_CODE_SID,
} from '../plan/windows/sid.ts';
import { TOKEN_FLAGS } from '../plan/windows/spec.ts';
import { preparePlan } from '../prepare.ts';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

const TOKEN_QUERY = 0x8;
const TOKEN_ELEVATION_CLASS = 20;

function isElevated(): boolean | undefined {
  try {
    const w = loadWin32();
    const out = [null];
    if (w.adv['OpenProcessToken']!(w.k32['GetCurrentProcess']!(), TOKEN_QUERY, out) === 0) return undefined;
    const mem = allocBytes(w, 4);
    const ret = [0];
    const ok = w.adv['GetTokenInformation']!(out[0], TOKEN_ELEVATION_CLASS, mem.ptr, 4, ret);
    const elevated = ok !== 0 ? mem.view.readUInt32LE(0) !== 0 : undefined;
    freeBytes(w, mem.ptr);
    w.k32['CloseHandle']!(out[0] as unknown as Ptr);
    return elevated;
  } catch {
    return undefined;
  }
}

export function windowsDoctorChecks(): DoctorCheck[] {
  const checks: DoctorCheck[] = [{ name: 'windows', ok: true, detail: `${version()} (${release()})` }];
  const elevated = isElevated();
  checks.push({
    name: 'elevation',
    ok: elevated === false,
    detail:
      elevated === undefined
        ? 'could not read TokenElevation'
        : elevated
          ? "cordon runs elevated: the sandbox reads with the user's rights (Administrators is made deny-only)"
          : 'not elevated',
  });
  try {
    const w = loadWin32();
    const flags = TOKEN_FLAGS.DISABLE_MAX_PRIVILEGE | TOKEN_FLAGS.LUA_TOKEN | TOKEN_FLAGS.WRITE_RESTRICTED;
    const trial = createRestrictedToken(
      w,
      flags,
      [ADMINISTRATORS_SID],
      [
        { sid: '{run}', role: 'run' },
        { sid: EVERYONE_SID, role: 'everyone' },
        { sid: RESTRICTED_CODE_SID, role: 'restricted' },
      ],
      PRIVATE_OBJECT_DACL,
      (entry) => entry.sid,
      drawRunIdentity().runSid,
    );
    trial.close();
    checks.push({
      name: 'restricted token',
      ok: trial.restricted,
      detail: trial.restricted
        ? `CreateRestrictedToken works (user ${trial.userSid})`
        : 'CreateRestrictedToken succeeded but IsTokenRestricted says no: restricting SIDs are not honoured here (Wine?) — every run is refused',
    });
  } catch (error) {
    checks.push({
      name: 'restricted token',
      ok: false,
      detail: `cannot create a restricted token: ${(error as Error).message}`,
    });
  }
  const job = probeWindowsJob();
  checks.push({
    name: 'job',
    ok: job !== undefined && (!job.inJob || job.breakawayAllowed),
    detail:
      job === undefined
        ? 'could not tell whether cordon runs inside a job (IsProcessInJob failed)'
        : !job.inJob
          ? 'cordon is in no job: the command gets its own job with UI limits'
          : job.breakawayAllowed
            ? 'cordon runs inside a job that allows breakaway: the command leaves it for its own job with UI limits'
            : "cordon runs inside a job without breakaway (Task Scheduler, OpenSSH, a CI agent): the command's job is nested and carries no UI limits (listed as not enforced)",
  });
  try {
    const { plan } = preparePlan(['cmd.exe'], { bestEffort: true });
    const gaps = plan.notEnforced.filter((n) => !n.reason.startsWith('does not exist'));
    checks.push({
      name: 'default profile',
      ok: gaps.length === 0,
      detail:
        gaps.length === 0
          ? 'every rule is enforceable'
          : `not enforceable here: ${gaps.map((g) => `${g.access} ${g.path}`).join(', ')}`,
      ...(gaps.length === 0
        ? {}
        : {
            fix: 'run with --net (network) and a profile without denied reads, or accept the gaps with --best-effort',
          }),
    });
  } catch (error) {
    checks.push({ name: 'default profile', ok: false, detail: (error as Error).message });
  }
  return checks;
}
