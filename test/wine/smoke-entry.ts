// Runs under Windows node.exe 22 in Wine (scripts/wine-smoke.sh bundles it with esbuild):
// drives the real launcher through koffi and writes what happened to a JSON file (Node under
// Wine cannot write to a Linux pipe). Wine enforces no token, ACL or job UI limit, so these
// checks prove plumbing only: the calls exist, the structs are laid out right, handles reach
// the child, the job kills the tree, exit codes come back; the binary ACL walk reads what
// SDDL put in; the default DACL, window station and desktop carry SYSTEM + user + run SID.
// Launches pass acceptUnrestrictedToken (Wine's IsTokenRestricted says no); one step checks
// that without it the launcher refuses.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readAcl, readDacl, readObjectDacl, SE_OBJECT } from '../../src/backends/windows/acl.ts';
import { auditWorldWritable, candidateDirs } from '../../src/backends/windows/audit.ts';
import { launchWindowsPlan } from '../../src/backends/windows/launch.ts';
import { createPrivateDesktop } from '../../src/backends/windows/start-process.ts';
import {
  createRestrictedToken,
  drawRunIdentity,
  fillSddl,
  securityDescriptorFromSddl,
} from '../../src/backends/windows/token.ts';
import { windowsDoctorChecks } from '../../src/cli/doctor-windows.ts';
import { probeWindowsHost } from '../../src/host/probe-win32.ts';
import { allocBytes, freeBytes, loadWin32, type Ptr } from '../../src/native/win32.ts';
import { grantsWriteTo, hasExplicitAce } from '../../src/plan/windows/dacl.ts';
import { buildWindowsPlan } from '../../src/plan/windows/restricted-token.ts';
import { deriveCordonSid, EVERYONE_SID, PRIVATE_OBJECT_DACL } from '../../src/plan/windows/sid.ts';
import type { PolicyRule, SandboxPolicy } from '../../src/policy/types.ts';

const [resultsFile, workDir] = process.argv.slice(2) as [string, string];
const results: Record<string, unknown> = { node: process.version, platform: process.platform };
const save = () => writeFileSync(resultsFile, JSON.stringify(results, null, 2));

async function step(name: string, fn: () => Promise<unknown> | unknown): Promise<void> {
  try {
    results[name] = await fn();
  } catch (error) {
    results[name] = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
  save();
}

const host = probeWindowsHost(process.env);
const cwd = host.realpath(workDir);
mkdirSync(workDir, { recursive: true });
const node = process.execPath;

function policy(extra: PolicyRule[] = []): SandboxPolicy {
  const rules: PolicyRule[] = [
    { path: '/', access: 'read', source: { kind: 'flag', flag: '--read' } },
    { path: cwd, access: 'write', source: { kind: 'flag', flag: '--write' } },
    { path: `${cwd}/.git`, access: 'read', source: { kind: 'protected', reason: 'git metadata' } },
    ...extra,
  ];
  return { platform: 'win32', rules, network: 'on', privateTmp: true, cwd, profile: 'wine-smoke' };
}

async function run(
  command: string[],
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
  strict = false,
) {
  const plan = buildWindowsPlan({
    policy: policy(),
    command,
    env: {
      PATH: process.env['PATH'] ?? '',
      SystemRoot: process.env['SystemRoot'] ?? 'C:\\windows',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
    },
    host,
    bestEffort: true, // deletes outside the roots are never blocked: every Windows plan lists that gap
  });
  let acl: unknown[] = [];
  const outcome = await launchWindowsPlan(plan, {
    captureBytes: 0,
    hostEnv: process.env,
    drainMs: 500,
    ...(strict ? {} : { acceptUnrestrictedToken: 'wine-plumbing-lane' as const }),
    onAcl: (r) => {
      acl = [...acl, ...r];
    },
    ...options,
  });
  return {
    started: outcome.started,
    failure: outcome.failure,
    failureMessage: outcome.failureMessage,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    cancelled: outcome.cancelled,
    stdout: outcome.stdout.head.toString('utf8'),
    stderr: outcome.stderr.head.toString('utf8'),
    ms: Math.round(outcome.durationMs),
    acl,
  };
}

await step('koffi', () => {
  const w = loadWin32();
  return { loaded: typeof w.adv['CreateRestrictedToken'] === 'function' };
});
await step('exitAndStreams', () =>
  run([node, '-e', "process.stdout.write('to-out');process.stderr.write('to-err');process.exit(3)"]),
);
await step('stdinAtEof', () =>
  run([
    node,
    '-e',
    "let n=0;process.stdin.on('data',d=>n+=d.length).on('end',()=>process.stdout.write('eof '+n))",
  ]),
);
await step('privateTemp', () =>
  run([node, '-e', 'process.stdout.write(process.env.TEMP + "|" + process.env.TMP)']),
);
const marker = join(workDir, 'grandchild-survived.txt');
await step('timeoutKillsGrandchild', async () => {
  const target = marker.replace(/\\/g, '/');
  const script = `require('child_process').spawn(process.execPath,['-e',"setTimeout(()=>require('fs').writeFileSync('${target}','x'),3000)"],{stdio:'ignore'});setInterval(()=>{},1000)`;
  const result = await run([node, '-e', script], { timeoutMs: 1500 });
  await new Promise((r) => setTimeout(r, 4000));
  return { ...result, grandchildWroteMarker: existsSync(marker) };
});
await step('grandchildControl', async () => {
  // Same mechanism, nothing killed: the grandchild writes its marker, so the check above means something.
  const target = join(workDir, 'grandchild-control.txt').replace(/\\/g, '/');
  const script = `require('child_process').spawn(process.execPath,['-e',"require('fs').writeFileSync('${target}','x')"],{stdio:'ignore'});setTimeout(()=>{},2500)`;
  const result = await run([node, '-e', script], { timeoutMs: 20000 });
  return { ...result, grandchildWroteMarker: existsSync(target) };
});
await step('cancel', () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 800);
  return run([node, '-e', 'setInterval(()=>{},1000)'], { signal: controller.signal });
});
await step('batchFile', () => {
  writeFileSync(join(workDir, 'hello.cmd'), '@echo batch %~1\r\n');
  return run([join(workDir, 'hello.cmd'), 'arg one']);
});
await step('notFound', () => run(['cordon-no-such-program-xyz']));
await step('aclOnRoot', () => {
  const w = loadWin32();
  const dacl = readDacl(w, cwd.replace(/\//g, '\\'));
  const sid = deriveCordonSid('write-root', cwd);
  return { dacl, hasAllow: hasExplicitAce(dacl, { type: 'allow', sid, rights: 0x1301bf }) };
});
await step('refusesUnrestrictedToken', async () => {
  try {
    const r = await run([node, '-e', '0'], {}, true);
    return { started: r.started };
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
});
await step('aclWalk', () => {
  // The binary walk (GetAclInformation + GetAce + MapGenericMask) reads back what SDDL put in:
  // generic rights mapped with the file mapping, flags, SIDs — and a NULL DACL as null.
  const w = loadWin32();
  const sddl = 'D:(D;;0xd0156;;;S-1-1-0)(A;OICI;GA;;;S-1-9-1-1-2-3-4)(A;OICIIO;GR;;;S-1-5-18)';
  const { sd, dacl } = securityDescriptorFromSddl(w, sddl);
  const aces = readAcl(w, dacl);
  w.k32['LocalFree']!(sd);
  // A NULL DACL arrives as a 0 pointer (GetNamedSecurityInfoW). Wine parses D:NO_ACCESS_CONTROL
  // into an empty ACL instead, so that SDDL cannot stand in for one here; recorded as a Wine fact.
  const nul = securityDescriptorFromSddl(w, 'D:NO_ACCESS_CONTROL');
  const wineNoAccessControl = readAcl(w, nul.dacl);
  w.k32['LocalFree']!(nul.sd);
  const nullDacl = readAcl(w, 0n);
  return {
    aces,
    recognised: hasExplicitAce(aces, { type: 'allow', sid: 'S-1-9-1-1-2-3-4', rights: 0x1f01ff }),
    nullDacl,
    nullDaclWritable: grantsWriteTo(nullDacl, [EVERYONE_SID]),
    wineNoAccessControl,
  };
});
await step('tokenAndDesktop', () => {
  // The default DACL and the private window station/desktop, read back from the objects.
  const w = loadWin32();
  const { runSid, desktopName } = drawRunIdentity();
  const token = createRestrictedToken(
    w,
    0xd,
    ['S-1-5-32-544'],
    [
      { sid: '{run}', role: 'run' },
      { sid: EVERYONE_SID, role: 'everyone' },
    ],
    PRIVATE_OBJECT_DACL,
    (e) => e.sid,
    runSid,
  );
  const needed = [0];
  w.adv['GetTokenInformation']!(token.token, 6, null, 0, needed);
  const info = allocBytes(w, Math.max(needed[0]!, 8));
  const ok = w.adv['GetTokenInformation']!(token.token, 6, info.ptr, needed[0], needed);
  const defaultDacl = ok === 0 ? 'unreadable' : readAcl(w, info.view.readBigUInt64LE(0) as Ptr);
  freeBytes(w, info.ptr);
  const cleanups: (() => void)[] = [];
  const desktop = createPrivateDesktop(
    w,
    { desktopName, desktopDacl: PRIVATE_OBJECT_DACL, userSid: token.userSid, runSid },
    cleanups,
  );
  // Wine keeps no DACL on window stations/desktops (GetSecurityInfo gives NULL), so the lane
  // checks the descriptor cordon hands to CreateWindowStationW/CreateDesktopW, and that both exist.
  const winstaDacl = readObjectDacl(w, desktop.winsta, SE_OBJECT.WINDOW);
  const desktopDacl = readObjectDacl(w, desktop.desktop, SE_OBJECT.WINDOW);
  const given = securityDescriptorFromSddl(w, fillSddl(PRIVATE_OBJECT_DACL, token.userSid, runSid));
  const givenDacl = readAcl(w, given.dacl);
  w.k32['LocalFree']!(given.sd);
  const created = { winsta: desktop.winsta !== 0n, desktop: desktop.desktop !== 0n };
  for (const undo of cleanups.reverse()) undo();
  token.close();
  const sids = (d: unknown) => (Array.isArray(d) ? d.map((a: { sid: string }) => a.sid) : d);
  return {
    userSid: token.userSid,
    runSid,
    desktopName,
    restricted: token.restricted,
    defaultDacl: sids(defaultDacl),
    givenDacl: sids(givenDacl),
    created,
    winstaDacl: sids(winstaDacl),
    desktopDacl: sids(desktopDacl),
  };
});
await step('structSizes', () => {
  // Wine's own idea of two struct sizes cordon hard-codes (native/win32.ts): the job limit
  // block (144) through QueryInformationJobObject's returned length, ACL_SIZE_INFORMATION (12).
  const w = loadWin32();
  const job = w.k32['CreateJobObjectW']!(null, null);
  const buf = allocBytes(w, 256);
  const len = allocBytes(w, 4);
  const ok = w.k32['QueryInformationJobObject']!(job, 9, buf.ptr, 256, len.ptr);
  const short = w.k32['QueryInformationJobObject']!(job, 9, buf.ptr, 143, null);
  const jobExtendedLimit = ok === 0 ? -1 : len.view.readUInt32LE(0);
  w.k32['CloseHandle']!(job);
  freeBytes(w, buf.ptr);
  freeBytes(w, len.ptr);
  return { jobExtendedLimit, shortBufferFails: short === 0 };
});
await step('secondRunAclIdempotent', () => run([node, '-e', '0']));
await step('audit', () => {
  const input = {
    sid: 'S-1-5-21-1-2-3-4',
    maxEntries: 500,
    writableRoots: [cwd.replace(/\//g, '\\')],
    pathDirs: (process.env['PATH'] ?? '').split(';').filter((d) => d !== ''),
    hostEnv: process.env,
  };
  const started = performance.now();
  const outcome = auditWorldWritable(loadWin32(), input);
  return {
    candidates: candidateDirs(input).length,
    checked: outcome.checked,
    hits: outcome.results.length,
    ms: Math.round(performance.now() - started),
  };
});
await step('auditBudget', () => {
  // Past its count the audit refuses the run instead of stopping silently.
  try {
    auditWorldWritable(loadWin32(), {
      sid: 'S-1-9-2-1-2-3-4',
      maxEntries: 2,
      writableRoots: [],
      pathDirs: (process.env['PATH'] ?? '').split(';').filter((d) => d !== ''),
      hostEnv: process.env,
    });
    return { refused: false };
  } catch (error) {
    return { refused: true, code: (error as { code?: string }).code, message: (error as Error).message };
  }
});
await step('doctor', () => windowsDoctorChecks());
results['done'] = true;
save();
