// Wine lane (CORDON_WINE=1 only; not part of npm test): runs scripts/wine-smoke.sh, which drives
// the real Windows launcher with node.exe 22 + koffi under Wine, and checks its results file and
// the host side of the Wine prefix. Plumbing only — Wine enforces no restricting SID, ACL or job
// UI limit, so nothing here is evidence of isolation (docs/windows.md "What is verified where").
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const enabled = process.env['CORDON_WINE'] === '1';
const dir = process.env['CORDON_WINE_DIR'] ?? '/tmp/cordon-wine';

describe.runIf(enabled)('Windows launcher under Wine (plumbing only)', () => {
  // biome-ignore lint/suspicious/noExplicitAny: JSON written by the smoke entry
  let r: any;
  it('runs the smoke entry under node.exe 22', () => {
    const root = new URL('../..', import.meta.url).pathname;
    execFileSync(join(root, 'scripts/wine-smoke.sh'), { stdio: 'ignore', timeout: 600_000 });
    r = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect({ node: r.node.startsWith('v22.'), platform: r.platform, koffi: r.koffi, done: r.done }).toEqual({
      node: true,
      platform: 'win32',
      koffi: { loaded: true },
      done: true,
    });
  }, 600_000);

  it('returns the exit code and keeps stdout and stderr apart', () => {
    expect([r.exitAndStreams.exitCode, r.exitAndStreams.stdout, r.exitAndStreams.stderr]).toEqual([
      3,
      'to-out',
      'to-err',
    ]);
  });

  it('gives the command stdin at EOF (NUL)', () => {
    expect(r.stdinAtEof.stdout).toBe('eof 0');
  });

  it('points TEMP and TMP at a private dir and removes it afterwards (host side)', () => {
    const [temp, tmp] = r.privateTemp.stdout.split('|');
    expect(temp).toMatch(/\\cordon-[^\\]+$/);
    expect(tmp).toBe(temp);
    const tempDir = join(
      dir,
      'prefix/drive_c/users',
      readdirSync(join(dir, 'prefix/drive_c/users')).find((u) => u !== 'Public')!,
      'Temp',
    );
    expect(readdirSync(tempDir).filter((n) => n.startsWith('cordon-'))).toEqual([]);
  });

  it('timeout terminates the job, grandchild included; the control grandchild does run', () => {
    expect([r.timeoutKillsGrandchild.timedOut, r.timeoutKillsGrandchild.grandchildWroteMarker]).toEqual([
      true,
      false,
    ]);
    expect(existsSync(join(dir, 'prefix/drive_c/cordon-smoke/grandchild-survived.txt'))).toBe(false);
    expect([r.grandchildControl.exitCode, r.grandchildControl.grandchildWroteMarker]).toEqual([0, true]);
  });

  it('cancel terminates the job', () => {
    expect([r.cancel.cancelled, r.cancel.timedOut]).toEqual([true, false]);
  });

  it('runs .cmd files through cmd.exe with their arguments', () => {
    expect(r.batchFile.stdout).toBe('batch arg one\r\n');
  });

  it('reports a missing program as not-found before creating anything', () => {
    expect([r.notFound.started, r.notFound.failure]).toEqual([false, 'not-found']);
  });

  it('applies the ACE calls without error and removes the .git placeholder (host side)', () => {
    expect(r.exitAndStreams.acl.map((a: { path: string }) => a.path)).toContain('C:\\cordon-smoke');
    expect(existsSync(join(dir, 'prefix/drive_c/cordon-smoke/.git'))).toBe(false);
    // Wine accepts SetNamedSecurityInfoW but keeps no DACL on Unix files: the ACE is not read back.
    expect(r.aclOnRoot.hasAllow).toBe(false);
  });

  it('doctor: restricted token is created, but Wine does not honour restricting SIDs', () => {
    const byName = Object.fromEntries(r.doctor.map((c: { name: string; ok: boolean }) => [c.name, c.ok]));
    expect({ token: byName['restricted token'], profile: byName['default profile'] }).toEqual({
      token: false,
      profile: false,
    });
    expect(r.doctor.find((c: { name: string }) => c.name === 'restricted token').detail).toMatch(
      /IsTokenRestricted says no/,
    );
  });

  it('world-writable audit walks its candidates (Wine grants Everyone no write: no hits)', () => {
    expect(r.audit.candidates).toBeGreaterThan(3);
    expect(r.audit.hits).toBe(0);
  });

  const cli = (name: string) => ({
    code: Number(readFileSync(join(dir, `cli-${name}.code`), 'utf8').trim()),
    out: readFileSync(join(dir, `cli-${name}.out`), 'utf8'),
  });

  it('CLI end to end: the default profile is refused with 125 (network off cannot be enforced)', () => {
    const { code, out } = cli('default');
    expect([code, JSON.parse(out).error.code]).toEqual([125, 'policy-unenforceable']);
  });

  it('CLI end to end: --net runs through the launcher, separate streams, exit code kept', () => {
    const { code, out } = cli('net');
    const result = JSON.parse(out);
    expect([
      code,
      result.backend,
      result.status,
      result.exitStatus,
      result.stdout.text,
      result.stderr.text,
    ]).toEqual([7, 'windows', 'exited', 7, 'hi\r\n', 'oops \r\n']);
  });

  it('CLI end to end: -t 1s ends the tree with exit 124', () => {
    const { code, out } = cli('timeout');
    expect([code, JSON.parse(out).status]).toEqual([124, 'timed-out']);
  });

  it('CLI end to end: explain on Windows itself prints the plan', () => {
    const { code, out } = cli('explain');
    expect(code).toBe(0);
    expect(out).toContain('backend: windows');
    expect(out).toContain('"WRITE_RESTRICTED"');
  });
});
