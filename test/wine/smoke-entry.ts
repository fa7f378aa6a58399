// Runs under Windows node.exe 22 in Wine (scripts/wine-smoke.sh bundles it with esbuild):
// drives the real launcher through koffi and writes what happened to a JSON file (Node under
// Wine cannot write to a Linux pipe). Wine enforces no token, ACL or job UI limit, so these
// checks prove plumbing only: the calls exist, the structs are laid out right, handles reach
// the child, the job kills the tree, exit codes come back.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDaclSddl } from '../../src/backends/windows/acl.ts';
import { auditWorldWritable, candidateDirs } from '../../src/backends/windows/audit.ts';
import { launchWindowsPlan } from '../../src/backends/windows/launch.ts';
import { windowsDoctorChecks } from '../../src/cli/doctor-windows.ts';
import { probeWindowsHost } from '../../src/host/probe-win32.ts';
import { loadWin32 } from '../../src/native/win32.ts';
import { buildWindowsPlan } from '../../src/plan/windows/restricted-token.ts';
import { hasExplicitAce } from '../../src/plan/windows/sddl.ts';
import { deriveCordonSid } from '../../src/plan/windows/sid.ts';
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

async function run(command: string[], options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const plan = buildWindowsPlan({
    policy: policy(),
    command,
    env: {
      PATH: process.env['PATH'] ?? '',
      SystemRoot: process.env['SystemRoot'] ?? 'C:\\windows',
      PATHEXT: '.COM;.EXE;.BAT;.CMD',
    },
    host,
    bestEffort: false,
  });
  let acl: unknown[] = [];
  const outcome = await launchWindowsPlan(plan, {
    captureBytes: 0,
    hostEnv: process.env,
    drainMs: 500,
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
  const sddl = readDaclSddl(w, cwd.replace(/\//g, '\\'));
  const sid = deriveCordonSid('write-root', cwd);
  return { sddl, hasAllow: hasExplicitAce(sddl, { type: 'allow', sid, rights: 0x1301bf }) };
});
await step('secondRunAclIdempotent', () => run([node, '-e', '0']));
await step('audit', () => {
  const input = {
    sid: 'S-1-5-21-1-2-3-4',
    maxEntries: 500,
    budgetMs: 2000,
    writableRoots: [cwd.replace(/\//g, '\\')],
    pathDirs: (process.env['PATH'] ?? '').split(';').filter((d) => d !== ''),
    hostEnv: process.env,
    logonSid: undefined,
  };
  const started = performance.now();
  const hits = auditWorldWritable(loadWin32(), input);
  return {
    candidates: candidateDirs(input).length,
    hits: hits.length,
    ms: Math.round(performance.now() - started),
  };
});
await step('doctor', () => windowsDoctorChecks());
results['done'] = true;
save();
