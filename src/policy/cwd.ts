// The working directory must be usable: a policy under which the command cannot even read the
// directory it starts in would fail inside the sandbox with the backend's raw message (bwrap's
// "Can't chdir") after cordon has said it started. Refuse it before anything runs. Pure.
import { CordonError } from '../errors.ts';
import { canRead, findGoverningRule } from './access.ts';
import { describeSource, type SandboxPolicy } from './types.ts';

export function checkCwdUsable(policy: SandboxPolicy): void {
  if (canRead(policy.rules, policy.cwd)) return;
  const rule = findGoverningRule(policy.rules, policy.cwd);
  const why = rule
    ? `the rule '${rule.access} ${rule.path}' (${describeSource(rule.source)}) governs it`
    : 'no rule grants it';
  throw new CordonError(
    'unusable-cwd',
    `the working directory '${policy.cwd}' is not readable under this policy: ${why} — add --read ${policy.cwd} (or --write), or run from a directory the profile grants`,
  );
}
