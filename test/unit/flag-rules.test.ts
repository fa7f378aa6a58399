// Command-line rules on exactly a path the profile names: the flag wins and explain says what
// it replaced; two flags that contradict each other on one path, and a --read/--write on a
// path that does not exist, are refused before anything runs.
import { describe, expect, it } from 'vitest';
import { isCordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { findGoverningRule, resolveAccess } from '../../src/policy/access.ts';
import { checkFlagPathsExist } from '../../src/policy/flag-rules.ts';
import { NO_POLICY_FLAGS, resolvePolicy } from '../../src/policy/resolve.ts';
import { describeSource } from '../../src/policy/types.ts';
import { loadProfile } from '../../src/profile/load.ts';

const CWD = '/home/user/project';
const host = syntheticHost('linux', { files: { '/home/user/.ssh': 'dir', [`${CWD}/sub`]: 'dir' } });
const workspace = loadProfile('workspace', CWD);
const flags = (f: Partial<typeof NO_POLICY_FLAGS>) => ({ ...NO_POLICY_FLAGS, ...f });

function refusal(f: () => unknown): { code: string; message: string } | undefined {
  try {
    f();
  } catch (error) {
    if (isCordonError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

describe('a flag on exactly a path the profile denies', () => {
  it('--read ~/.ssh wins over the profile deny, and the rule says what it overrides', () => {
    const without = resolvePolicy(workspace, NO_POLICY_FLAGS, host, CWD);
    expect(resolveAccess(without.rules, '/home/user/.ssh/id_ed25519')).toBe('none');
    const policy = resolvePolicy(workspace, flags({ read: ['~/.ssh'] }), host, CWD);
    expect(resolveAccess(policy.rules, '/home/user/.ssh/id_ed25519')).toBe('read');
    const rule = findGoverningRule(policy.rules, '/home/user/.ssh');
    expect(rule && describeSource(rule.source)).toBe(
      'flag --read (overrides profile workspace filesystem[2]: none)',
    );
    // Exactly one rule remains on the path: nothing the backends could pick the other way.
    expect(policy.rules.filter((r) => r.path === '/home/user/.ssh')).toHaveLength(1);
  });

  it('--deny on a path the profile makes writable wins too (no override note needed for a tie it won anyway)', () => {
    const policy = resolvePolicy(workspace, flags({ deny: ['sub'] }), host, CWD);
    expect(resolveAccess(policy.rules, `${CWD}/sub/x`)).toBe('none');
  });

  it('--write on the profile-writable cwd is the same rule: no note', () => {
    const policy = resolvePolicy(workspace, flags({ write: ['.'] }), host, CWD);
    const rule = findGoverningRule(policy.rules, CWD);
    expect(rule && describeSource(rule.source)).toBe('flag --write');
  });

  it.each([
    [
      { read: ['~/.ssh'], deny: ['~/.ssh'] },
      "--read and --deny both name '/home/user/.ssh' — keep one of them",
    ],
    [{ read: ['sub'], write: ['./sub/'] }, `--read and --write both name '${CWD}/sub' — keep one of them`],
  ])('contradicting flags %j are refused', (f, message) => {
    expect(refusal(() => resolvePolicy(workspace, flags(f), host, CWD))).toEqual({
      code: 'bad-flag',
      message,
    });
  });

  it('the same flag twice is fine', () => {
    expect(
      refusal(() => resolvePolicy(workspace, flags({ read: ['sub', './sub'] }), host, CWD)),
    ).toBeUndefined();
  });
});

describe('a --read/--write on a path that does not exist', () => {
  it.each([
    ['read', '--read'],
    ['write', '--write'],
  ] as const)('--%s ./missing is refused with the path and the fix', (access, flag) => {
    const policy = resolvePolicy(workspace, flags({ [access]: ['./missing'] }), host, CWD);
    expect(refusal(() => checkFlagPathsExist(policy.rules, host))).toEqual({
      code: 'bad-path',
      message: `${flag} '${CWD}/missing': no such file or directory — create it first (mkdir -p '${CWD}/missing'), or give ${flag} a directory that exists above it`,
    });
  });

  it('an existing path, a --deny of a missing path and a profile rule on a missing path are accepted', () => {
    const policy = resolvePolicy(workspace, flags({ read: ['sub'], deny: ['./not-yet'] }), host, CWD);
    expect(refusal(() => checkFlagPathsExist(policy.rules, host))).toBeUndefined();
  });
});
