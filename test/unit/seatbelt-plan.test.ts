// Seatbelt builder behaviour beyond the goldens: refusals, the private temp dir substitution,
// parameter values that would be dangerous if spliced.
import { describe, expect, it } from 'vitest';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildSeatbeltPlan, withPrivateTmpDir } from '../../src/plan/macos/seatbelt.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';

const policy = (privateTmp: boolean): SandboxPolicy => ({
  platform: 'darwin',
  rules: [
    { path: '/', access: 'read', source: { kind: 'profile', profile: 'p', index: 0 } },
    { path: '/Users/user/project', access: 'write', source: { kind: 'profile', profile: 'p', index: 1 } },
  ],
  network: 'off',
  privateTmp,
  cwd: '/Users/user/project',
  profile: 'p',
});

describe('buildSeatbeltPlan', () => {
  it('refuses a non-darwin host with exit 125 and the fix', () => {
    expect(() =>
      buildSeatbeltPlan({ policy: policy(false), command: ['true'], env: {}, host: syntheticHost('linux') }),
    ).toThrow(
      expect.objectContaining({
        code: 'backend-unavailable',
        exitCode: 125,
        message:
          'the seatbelt backend runs only on macOS, not on linux — use --backend auto, or explain --platform darwin to see the profile',
      }),
    );
  });

  it('refuses an empty command', () => {
    expect(() =>
      buildSeatbeltPlan({ policy: policy(false), command: [], env: {}, host: syntheticHost('darwin') }),
    ).toThrow(expect.objectContaining({ code: 'missing-command', exitCode: 125 }));
  });

  it('plans a private temp dir from a template and substitutes the real one', () => {
    const plan = buildSeatbeltPlan({
      policy: policy(true),
      command: ['sh', '-c', 'echo $TMPDIR', '--', '-DPRIVATE_TMP=/private/var/folders/zz/T/cordon-XXXXXX'],
      env: { PATH: '/usr/bin' },
      host: syntheticHost('darwin'),
    });
    const template = '/private/var/folders/zz/T/cordon-XXXXXX';
    expect(plan.privateTmp).toEqual({ path: template, param: 'PRIVATE_TMP' });
    expect(plan.env).toEqual({ PATH: '/usr/bin', TMPDIR: template });
    const real = withPrivateTmpDir(plan, '/private/var/folders/zz/T/cordon-a1B2c3');
    expect(real.env).toEqual({ PATH: '/usr/bin', TMPDIR: '/private/var/folders/zz/T/cordon-a1B2c3' });
    expect(real.params['PRIVATE_TMP']).toBe('/private/var/folders/zz/T/cordon-a1B2c3');
    expect(real.args.filter((a) => a.startsWith('-DPRIVATE_TMP='))).toEqual([
      '-DPRIVATE_TMP=/private/var/folders/zz/T/cordon-a1B2c3',
      // the command's own argument is left alone
      `-DPRIVATE_TMP=${template}`,
    ]);
    expect(real.profile).toBe(plan.profile);
  });

  it('without a private temp dir leaves TMPDIR and plans no directory', () => {
    const plan = buildSeatbeltPlan({
      policy: policy(false),
      command: ['true'],
      env: { TMPDIR: '/private/var/folders/zz/T/' },
      host: syntheticHost('darwin'),
    });
    expect(plan.privateTmp).toBeUndefined();
    expect(plan.env).toEqual({ TMPDIR: '/private/var/folders/zz/T/' });
    expect(withPrivateTmpDir(plan, '/x')).toBe(plan);
  });

  it('canonicalizes rule paths through HostInfo (/tmp → /private/tmp)', () => {
    const p = policy(false);
    const plan = buildSeatbeltPlan({
      policy: {
        ...p,
        rules: [
          ...p.rules,
          { path: '/tmp/build', access: 'write', source: { kind: 'flag', flag: '--write' } },
        ],
      },
      command: ['true'],
      env: {},
      host: syntheticHost('darwin'),
    });
    expect(Object.values(plan.params)).toContain('/private/tmp/build');
    expect(Object.values(plan.params)).not.toContain('/tmp/build');
  });
});
