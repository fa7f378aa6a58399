// Policy → Windows plan (restricted token + ACEs + job object). Pure: machine facts via HostInfo.
//
// What a WRITE_RESTRICTED token can express: writes succeed only where BOTH the user and one
// of the restricting SIDs are granted; reads are checked as the user alone. So:
//   1. Rules are re-spelled canonically (paths.ts) and merged case-insensitively.
//   2. Every rule is compared with the access its parent has:
//        write under read|none  → allow ACE, SID write-root(P), CI|OI  (writable root)
//        read|none under write  → deny-write ACE, SID carve-out(P), CI|OI (protected, read-only);
//                                 a missing one gets an empty placeholder file to carry the ACE
//        none (existing file)   → NOT ENFORCEABLE: the token reads as the user
//        read under none, or no rule for / → NOT ENFORCEABLE: restricted read roots
//   3. network off             → NOT ENFORCEABLE: a restricted token has no network switch
//   Unenforceable elements refuse the run (125, all named at once) unless --best-effort, which
//   lists them in plan.notEnforced. Rules on UNC shares that need an ACE are refused the same
//   way (the server checks the user, not the local restricted token).
//   4. What the design cannot hold whatever the policy (gaps.ts): deletes and renames outside
//      the roots and of carve-outs, writes no local ACL governs — refused the same way.
//   5. Token: DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED; restricting SIDs in the
//      order write-roots, carve-outs, the per-run SID, Everyone, RESTRICTED (not the logon SID). Default
//      DACL, window station and desktop: SYSTEM + user + per-run SID. Job: KILL_ON_JOB_CLOSE,
//      UI limits unless nested in cordon's own job (gaps.ts).
import { CordonError } from '../../errors.ts';
import type { HostInfo } from '../../host/types.ts';
import { findGoverningRule } from '../../policy/access.ts';
import type { SandboxPolicy } from '../../policy/types.ts';
import type { NotEnforced, WindowsPlan } from '../types.ts';
import { buildBatchCommandLine, buildCommandLine, isBatchFile } from './command-line.ts';
import { buildWindowsEnv } from './env.ts';
import { decideJob, structuralGaps } from './gaps.ts';
import { canonicalWindowsPath, hasShortNameComponent, parentOf, toNativePath } from './paths.ts';
import { canonicalCwd, canonicalRules, describe, makeAce, parentAccess } from './rules.ts';
import {
  ADMINISTRATORS_SID,
  EVERYONE_SID,
  PRIVATE_OBJECT_DACL,
  RESTRICTED_CODE_SID,
  WORLD_WRITABLE_SID,
} from './sid.ts';
import {
  CREATION_FLAGS,
  JOB_LIMITS,
  JOB_UI_LIMITS,
  namedMask,
  type RestrictingSid,
  TOKEN_FLAGS,
  type WindowsAce,
  type WindowsPlaceholder,
  type WindowsSpec,
} from './spec.ts';

export interface WindowsBuildInput {
  readonly policy: SandboxPolicy;
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly host: HostInfo;
  readonly bestEffort: boolean;
}

const PRIVATE_TMP_PREFIX = 'cordon-';
/** Objects the world-writable audit looks at before the run is refused as unauditable. */
const AUDIT_MAX_ENTRIES = 5000;

/** cordon's own configuration placeholder: nothing reads a `.cordon`, so a missing one is not created. */
function isCordonPlaceholder(rule: { path: string; source: { kind: string } }): boolean {
  return rule.source.kind === 'protected' && /\/\.cordon$/i.test(rule.path);
}

function windowsDir(host: HostInfo): string {
  return host.systemRoots.find((r) => /^[A-Z]:\/Windows$/i.test(r)) ?? 'C:/Windows';
}

function cmdPath(host: HostInfo): string {
  return toNativePath(`${windowsDir(host)}/System32/cmd.exe`);
}

/**
 * Windows programs need SystemRoot (Winsock and the CRT read it; --clear-env drops it): when
 * the environment lacks it, it is set to the Windows directory. Not a secret, not a relaxation.
 */
function withSystemRoot(env: Readonly<Record<string, string>>, host: HostInfo): Record<string, string> {
  if (Object.keys(env).some((k) => k.toUpperCase() === 'SYSTEMROOT')) return { ...env };
  return { ...env, SystemRoot: toNativePath(windowsDir(host)) };
}

/** The ways out of a refusal that apply to these gaps; --best-effort always does. */
function refusalFixes(gaps: readonly NotEnforced[]): string {
  const fixes: string[] = [];
  if (gaps.some((g) => g.path === '(network)')) fixes.push('allow the network with --net');
  if (gaps.some((g) => g.access === 'none'))
    fixes.push('drop the denied or restricted reads from the policy');
  const structural = gaps.some((g) => !['(network)'].includes(g.path) && g.access === 'read');
  fixes.push(
    structural
      ? 'add --best-effort to run with these gaps listed in the result (deletes and renames are never blocked by this backend, so every Windows run needs it)'
      : 'add --best-effort to run with these gaps listed in the result',
  );
  return fixes.length === 1 ? fixes[0]! : `${fixes.slice(0, -1).join(', ')}, or ${fixes.at(-1)}`;
}

export function buildWindowsPlan(input: WindowsBuildInput): WindowsPlan {
  const { policy, command, host } = input;
  if (command.length === 0)
    throw new CordonError('missing-command', 'no command given — put it after --, e.g. cordon -- npm test');
  const drive = /^([A-Za-z]):/.exec(policy.cwd)?.[1]?.toUpperCase() ?? 'C';
  const rules = canonicalRules(policy.rules, drive);
  const gaps: NotEnforced[] = [];
  const skipped: NotEnforced[] = [];
  const aces: WindowsAce[] = [];
  const placeholders: WindowsPlaceholder[] = [];

  // 1. read restriction and network
  const rootAccess = findGoverningRule(rules, '/')?.access ?? 'none';
  if (rootAccess === 'write')
    throw new CordonError(
      'policy-unenforceable',
      "the policy makes every path writable ('/' write); a restricted token can only grant writes per directory — name the directories to write, or use --backend none",
    );
  if (rootAccess === 'none')
    gaps.push({
      path: '/',
      access: 'none',
      reason:
        'a restricted token reads everything the user can read; limiting reads to listed roots needs a separate sandbox user (not implemented)',
    });
  if (policy.network === 'off')
    gaps.push({
      path: '(network)',
      access: 'off',
      reason:
        'a restricted token cannot block the network (that needs an AppContainer or firewall rules for a separate sandbox user)',
    });

  // 2. ACEs per rule
  for (const rule of rules) {
    if (rule.path === '/') continue;
    if (findGoverningRule(rules, rule.path) !== rule) continue;
    const parent = parentAccess(rules, rule.path, aces);
    const canonical = canonicalWindowsPath(rule.path);
    const isUnc = canonical.ok && canonical.value.kind === 'unc';
    const kind = host.kind(rule.path);
    const exists = kind !== 'missing';
    if (!exists && hasShortNameComponent(rule.path) && rule.access !== parent) {
      throw new CordonError(
        'bad-path',
        `'${rule.path}' looks like an 8.3 short name that does not exist here — write the long name (cordon resolves existing paths to their long form)`,
      );
    }
    const needsAce =
      (rule.access === 'write' && parent !== 'write') || (rule.access !== 'write' && parent === 'write');
    if (needsAce && isUnc) {
      gaps.push({
        path: rule.path,
        access: rule.access,
        reason:
          'an ACL on a network share is checked by the server against the user, not against the local restricted token',
      });
      continue;
    }
    if (rule.access === 'none' && exists)
      gaps.push({
        path: rule.path,
        access: 'none',
        reason: `a restricted token reads as the user, so this path stays readable${parent === 'write' ? ' (writes to it are denied)' : ''}`,
      });
    if (rule.access === 'write' && parent !== 'write') {
      if (!exists) {
        skipped.push({ path: rule.path, access: 'write', reason: 'does not exist on this machine; skipped' });
        continue;
      }
      aces.push(makeAce(rule.path, 'allow', kind === 'dir', exists, `writable root (${describe(rule)})`));
    } else if (rule.access !== 'write' && parent === 'write') {
      if (!exists && isCordonPlaceholder(rule)) continue;
      if (!exists) {
        if (host.kind(parentOf(rule.path)) !== 'dir') {
          gaps.push({
            path: rule.path,
            access: rule.access,
            reason: 'missing, and so is its parent directory: there is nothing to put a deny ACE on',
          });
          continue;
        }
        placeholders.push({ path: rule.path, nativePath: toNativePath(rule.path), kind: 'file' });
      }
      aces.push(
        makeAce(
          rule.path,
          'deny',
          kind === 'dir',
          exists,
          `${rule.access === 'none' ? 'denied' : 'read-only'} inside a writable root (${describe(rule)})`,
        ),
      );
    }
  }

  gaps.push(...structuralGaps(aces));
  const job = decideJob(host);
  if (job.gap) skipped.push(job.gap);

  if (gaps.length > 0 && !input.bestEffort) {
    const list = gaps.map((g) => `${g.access} ${g.path}: ${g.reason}`).join('; ');
    throw new CordonError(
      'policy-unenforceable',
      `the Windows restricted-token sandbox cannot enforce ${gaps.length === 1 ? 'this rule' : 'these rules'} — ${list} — ${refusalFixes(gaps)}`,
    );
  }

  // 3. token
  const restrictingSids: RestrictingSid[] = [
    ...aces
      .filter((a) => a.type === 'allow')
      .map((a) => ({ sid: a.sid, role: 'write-root' as const, path: a.path })),
    ...aces
      .filter((a) => a.type === 'deny')
      .map((a) => ({ sid: a.sid, role: 'carve-out' as const, path: a.path })),
    { sid: WORLD_WRITABLE_SID, role: 'carve-out', path: '(world-writable objects found at launch)' },
    { sid: '{run}', role: 'run', path: '(this run: its processes, pipes, window station and desktop)' },
    { sid: EVERYONE_SID, role: 'everyone' },
    { sid: RESTRICTED_CODE_SID, role: 'restricted' },
  ];
  const privateTmp = policy.privateTmp
    ? { parent: host.tmpdir, prefix: PRIVATE_TMP_PREFIX, env: ['TEMP', 'TMP'] as const }
    : undefined;
  if (privateTmp)
    restrictingSids.splice(aces.filter((a) => a.type === 'allow').length, 0, {
      sid: '{private-tmp}',
      role: 'write-root',
      path: `${host.tmpdir}/${PRIVATE_TMP_PREFIX}*`,
    });

  // 4. command line
  const program = command[0]!;
  const batch = isBatchFile(program);
  const comspec = cmdPath(host);
  const commandLine = batch
    ? buildBatchCommandLine(comspec, program.replace(/\//g, '\\'), command.slice(1))
    : buildCommandLine(command);
  const env = buildWindowsEnv(withSystemRoot(input.env, host), privateTmp ? ['TEMP', 'TMP', 'TMPDIR'] : []);

  const spec: WindowsSpec = {
    token: {
      source: 'OpenProcessToken(current process)',
      flags: namedMask(TOKEN_FLAGS, ['DISABLE_MAX_PRIVILEGE', 'LUA_TOKEN', 'WRITE_RESTRICTED']),
      denyOnlySids: [ADMINISTRATORS_SID],
      restrictingSids,
      defaultDacl: PRIVATE_OBJECT_DACL,
      privileges: 'all removed but SeChangeNotifyPrivilege (DISABLE_MAX_PRIVILEGE)',
      integrityLevel: 'unchanged (medium): a lower level would also forbid writes to the writable roots',
    },
    acl: { persistence: 'persistent', aces, placeholders },
    audit: {
      sid: WORLD_WRITABLE_SID,
      scope:
        'the system drive root and its subdirectories, every PATH directory, PUBLIC, ProgramData, and the files directly inside any hit — outside the writable roots, not following links',
      maxEntries: AUDIT_MAX_ENTRIES,
    },
    desktop: { windowStation: 'private', name: 'cordon-<128 random bits, hex>', dacl: PRIVATE_OBJECT_DACL },
    job: {
      placement: job.placement,
      limits: namedMask(JOB_LIMITS, [
        'JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE',
        'JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION',
      ]),
      uiRestrictions: namedMask(
        JOB_UI_LIMITS,
        job.uiLimits ? (Object.keys(JOB_UI_LIMITS) as (keyof typeof JOB_UI_LIMITS)[]) : [],
      ),
      onTimeout: 'TerminateJobObject',
    },
    process: {
      program,
      commandLine,
      quoting: batch ? 'cmd' : 'msvcrt',
      creationFlags: namedMask(CREATION_FLAGS, [
        'CREATE_SUSPENDED',
        'CREATE_UNICODE_ENVIRONMENT',
        'EXTENDED_STARTUPINFO_PRESENT',
        ...(job.breakaway ? (['CREATE_BREAKAWAY_FROM_JOB'] as const) : []),
        'CREATE_NO_WINDOW',
      ]),
      stdin: 'NUL',
      stdout: 'pipe',
      stderr: 'pipe',
      inheritedHandles: 'stdin, stdout, stderr only (PROC_THREAD_ATTRIBUTE_HANDLE_LIST)',
      cwd: toNativePath(canonicalCwd(policy.cwd)),
    },
    ...(privateTmp ? { privateTmp } : {}),
  };
  return {
    backend: 'windows',
    executable: batch ? comspec : program,
    args: command.slice(1),
    env,
    cwd: canonicalCwd(policy.cwd),
    notEnforced: [...skipped, ...gaps],
    commandLine,
    spec,
  };
}
