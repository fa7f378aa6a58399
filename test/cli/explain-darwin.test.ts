// `cordon explain --platform darwin -- CMD` prints the whole Seatbelt plan from any machine:
// the executable, every -D parameter and the complete profile. Runs the built bin/cordon.
import { describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../helpers/cli.ts';

describe('explain --platform darwin', () => {
  it('prints sandbox-exec, the parameters and the full profile', async () => {
    const r = await runCli(['explain', '--platform', 'darwin', '--', 'echo', 'hi'], { cwd: makeTempDir() });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toContain('backend: seatbelt');
    expect(r.stdout).toContain('  executable: /usr/bin/sandbox-exec');
    expect(r.stdout).toContain('"-DPRIVATE_TMP=/private/var/folders/zz/T/cordon-XXXXXX"');
    expect(r.stdout).toContain('"-DPATH_1=/"');
    const profile = r.stdout.slice(r.stdout.indexOf('  profile:\n'));
    expect(profile).toContain('    (deny default (with message "cordon-seatbelt"))');
    expect(profile).toContain(
      '    (deny file-ioctl (ioctl-command 2147578994) (with message "cordon-seatbelt"))',
    );
  });

  it('--json carries the plan with profile and params', async () => {
    const r = await runCli(['explain', '--json', '--platform', 'darwin', '--net', '--', 'true'], {
      cwd: makeTempDir(),
    });
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.plan.backend).toBe('seatbelt');
    expect(data.plan.args.at(-1)).toBe('true');
    expect(data.plan.params.PRIVATE_TMP).toBe('/private/var/folders/zz/T/cordon-XXXXXX');
    expect(data.plan.profile).toContain('(allow network-outbound (remote ip "*:*"))');
  });
});
