// `cordon explain`: the pipeline stopped after plan. Prints the resolved rules (with where
// each came from), the backend chosen and why the others were not, and the full plan, never
// truncated. --json gives the same as data. --platform builds another OS's plan from a
// synthetic HostInfo (see host/synthetic.ts for its documented defaults).

import { allowedSeeds } from '../cache/layout.ts';
import { prepareSandboxCache } from '../cache/prepare.ts';
import { isCordonError } from '../errors.ts';
import { probeCgroup } from '../host/cgroup-probe.ts';
import { probeHost } from '../host/probe.ts';
import { syntheticHost } from '../host/synthetic.ts';
import { describeLimits } from '../limits/describe.ts';
import { JOIN_SHELL } from '../limits/wrap.ts';
import { describeNetwork } from '../net/describe.ts';
import { describeLandlockFallback } from '../plan/linux/fallback.ts';
import { describeBwrapUnix } from '../plan/linux/unix-sockets.ts';
import type { Platform } from '../policy/types.ts';
import { describeSource } from '../policy/types.ts';
import { type PrepareSeams, preparePlan } from '../prepare.ts';
import { type ExplainJson, stamp } from '../result/json.ts';
import type { Setting } from './config.ts';
import type { CliRunOptions } from './flags.ts';

export function runExplain(
  command: readonly string[],
  options: CliRunOptions,
  platform: string | undefined,
  write: (fd: number, text: string) => void,
  settings: readonly Setting[] = [],
): number {
  const target = (platform ?? process.platform) as Platform;
  const synthetic = target !== process.platform;
  const deps: PrepareSeams = synthetic
    ? {
        probe: () => syntheticHost(target),
        platform: target,
        cwdOverride: syntheticHost(target).cwd,
      }
    : {
        probe: (needs) => probeHost({ ...needs, detailed: true }),
        prepareCache: prepareSandboxCache,
        probeCgroup,
      };
  // A policy the backend cannot enforce: show the plan --best-effort would run, say that a
  // real run refuses, and exit 125 like the run would.
  let refusal: string | undefined;
  let prepared: ReturnType<typeof preparePlan>;
  try {
    prepared = preparePlan(command, options.run, deps);
  } catch (error) {
    if (
      !isCordonError(error) ||
      (error.code !== 'policy-unenforceable' && error.code !== 'limit-unenforceable') ||
      options.run.bestEffort
    )
      throw error;
    refusal = error.message;
    prepared = preparePlan(command, { ...options.run, bestEffort: true }, deps);
  }
  const { policy, choice, plan } = prepared;
  const fallback = describeLandlockFallback(options.run.backend ?? 'auto', choice);
  if (options.json) {
    write(
      1,
      `${JSON.stringify(
        stamp({
          platform: target,
          synthetic,
          profile: policy?.profile ?? null,
          network: policy?.network ?? null,
          allowNet: policy?.allowNet ?? [],
          privateTmp: policy?.privateTmp ?? null,
          rules:
            policy?.rules.map((r) => ({
              path: r.path,
              access: r.access,
              source: describeSource(r.source),
            })) ?? [],
          backend: choice.backend,
          verdicts: choice.verdicts,
          ...(fallback ? { fallback } : {}),
          droppedEnv: prepared.env.dropped,
          cache: prepared.cache
            ? {
                mode: prepared.cache.mode,
                dir: prepared.cache.entry,
                redirects: prepared.cache.redirects,
                sanitized: prepared.cache.copies,
                seeds: prepared.policy ? allowedSeeds(prepared.cache, prepared.policy.rules) : [],
              }
            : null,
          limits: plan.limits?.limits ?? [],
          settings,
          plan,
          ...(refusal ? { refusal } : {}),
        }) satisfies ExplainJson,
      )}\n`,
    );
    return refusal ? 125 : 0;
  }
  const lines: string[] = [];
  lines.push(`platform: ${target}${synthetic ? ' (synthetic host, see README)' : ''}`);
  if (settings.length > 0) {
    lines.push('settings (a flag, then CORDON_* variables, then the config file, then the default):');
    for (const s of settings) lines.push(`  ${s.name.padEnd(10)} ${s.value ?? '-'}    ← ${s.source}`);
  }
  if (policy) {
    lines.push(
      `profile: ${policy.profile}`,
      describeNetwork(policy, plan),
      `private temp dir: ${policy.privateTmp ? 'yes' : 'no'}`,
    );
    const cache = prepared.cache;
    lines.push(
      cache
        ? `sandbox cache: ${cache.mode} → ${cache.entry}`
        : `sandbox cache: ${prepared.cacheWarning ?? 'off'}`,
    );
    if (cache) {
      lines.push('  environment redirections:');
      for (const r of cache.redirects) lines.push(`    ${r.name}=${r.value}    ← ${r.tool}`);
      for (const c of cache.copies) lines.push(`  sanitized copy: ${c.source} → ${c.target}`);
      for (const seed of allowedSeeds(cache, policy.rules))
        lines.push(
          `  warm from the host: ${seed.tool} ${seed.source} → ${seed.target} (${seed.parts.join(', ')}: missing entries copied before each run, never linked)`,
        );
    }
    lines.push('rules (deepest path wins; on a tie none > write > read):');
    for (const r of policy.rules)
      lines.push(`  ${r.access.padEnd(5)} ${r.path}    ← ${describeSource(r.source)}`);
  } else {
    lines.push('no policy: --backend none runs the command without a sandbox');
  }
  lines.push(`backend: ${choice.backend}`);
  if (fallback) lines.push(`  ${fallback}`);
  for (const v of choice.verdicts)
    lines.push(
      `  ${v.backend.padEnd(8)} ${v.usable ? 'usable' : 'not usable'}: ${v.reason.replaceAll('\n', '\n    ')}`,
    );
  if (prepared.env.dropped.length > 0) lines.push(`environment dropped: ${prepared.env.dropped.join(', ')}`);
  lines.push(...describeLimits(plan.limits));
  if (plan.notEnforced.length > 0) {
    lines.push('not enforced:');
    for (const n of plan.notEnforced) lines.push(`  ${n.access} ${n.path}: ${n.reason}`);
  }
  lines.push('plan:');
  if (plan.limits?.cgroup || plan.limits?.fileSizeBlocks !== undefined)
    lines.push(
      `  join step: ${JOIN_SHELL} (${[plan.limits.cgroup ? "joins the run's cgroup" : '', plan.limits.fileSizeBlocks !== undefined ? `ulimit -f ${plan.limits.fileSizeBlocks}` : ''].filter(Boolean).join(', ')}), then execs:`,
    );
  lines.push(`  executable: ${plan.executable}`, '  args:');
  for (const a of plan.args) lines.push(`    ${JSON.stringify(a)}`);
  if (plan.backend === 'bwrap') lines.push(`  unix sockets: ${describeBwrapUnix(plan)}`);
  if (plan.backend === 'seatbelt')
    lines.push('  profile:', ...plan.profile.split('\n').map((l) => `    ${l}`));
  if (plan.backend === 'landlock') {
    lines.push(
      `  landlock: ABI ${plan.abi}, handled fs 0x${plan.handledFs.toString(16)}, net 0x${plan.handledNet.toString(16)}, scoped 0x${plan.scoped.toString(16)}`,
      `  seccomp: ${plan.seccomp ? `baseline (${plan.seccomp.arch}), IP ${plan.seccomp.ip === 'allow' ? 'allowed' : 'refused'}${plan.seccomp.unixNetworkOff ? `, unix: stream only${plan.seccomp.unixNetworkOff.refuseConnect ? ', connect() refused' : ''}` : ''}` : 'none'}`,
      `  private temp dir: ${plan.privateTmp ? `${plan.privateTmp.parent}/${plan.privateTmp.prefix}XXXXXX` : 'no'}`,
      '  landlock rules:',
      ...plan.rules.map(
        (r) =>
          `    ${r.access} ${r.kind === 'file' ? 'file ' : ''}${r.path}${r.origin === 'implicit' ? ' (implicit)' : ''}`,
      ),
    );
  }
  if (plan.backend === 'windows') lines.push(`  spec: ${JSON.stringify(plan.spec, null, 2)}`);
  if (refusal) lines.push(`refused: cordon run exits 125 on this policy without --best-effort — ${refusal}`);
  write(1, `${lines.join('\n')}\n`);
  return refusal ? 125 : 0;
}
