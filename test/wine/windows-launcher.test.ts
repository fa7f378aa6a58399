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

  it('applies the ACE calls without error; no .cordon placeholder; .git placeholder removed (host side)', () => {
    expect(r.exitAndStreams.acl.map((a: { path: string }) => a.path)).toContain('C:\\cordon-smoke');
    expect(existsSync(join(dir, 'prefix/drive_c/cordon-smoke/.git'))).toBe(false);
    expect(existsSync(join(dir, 'prefix/drive_c/cordon-smoke/.cordon'))).toBe(false);
    // Wine accepts SetNamedSecurityInfoW but keeps no DACL on Unix files: the ACE is not read back.
    expect(r.aclOnRoot.hasAllow).toBe(false);
  });

  it('refuses to start anything with a token IsTokenRestricted does not confirm', () => {
    expect(r.refusesUnrestrictedToken.code).toBe('backend-unavailable');
    expect(r.refusesUnrestrictedToken.message).toMatch(/IsTokenRestricted/);
  });

  it('walks a binary ACL: types, flags, generic rights mapped, SIDs; a NULL DACL reads as null and writable', () => {
    expect(r.aclWalk.aces).toEqual([
      { type: 1, flags: 0, mask: 0xd0156, sid: 'S-1-1-0' },
      { type: 0, flags: 0x3, mask: 0x1f01ff, sid: 'S-1-9-1-1-2-3-4' },
      { type: 0, flags: 0xb, mask: 0x120089, sid: 'S-1-5-18' },
    ]);
    expect([r.aclWalk.recognised, r.aclWalk.nullDacl, r.aclWalk.nullDaclWritable]).toEqual([
      true,
      null,
      true,
    ]);
  });

  it('default DACL (read back from the token) and the window station/desktop descriptor: SYSTEM, the user, the per-run SID', () => {
    const t = r.tokenAndDesktop;
    const want = ['S-1-5-18', t.userSid, t.runSid];
    expect(t.runSid).toMatch(/^S-1-9-3-\d+-\d+-\d+-\d+$/);
    expect(t.desktopName).toMatch(/^cordon-[0-9a-f]{32}$/);
    expect({ token: t.defaultDacl, given: t.givenDacl, created: t.created }).toEqual({
      token: want,
      given: want,
      created: { winsta: true, desktop: true },
    });
    // Wine keeps no security on USER objects: the DACL read back from them is NULL (not proof either way).
    expect([t.winstaDacl, t.desktopDacl]).toEqual([null, null]);
  });

  it('struct sizes: JOBOBJECT_EXTENDED_LIMIT_INFORMATION is 144 bytes', () => {
    expect(r.structSizes).toEqual({ jobExtendedLimit: 144, shortBufferFails: true });
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
    expect(byName['job']).toBeDefined();
  });

  it('world-writable audit walks its candidates (Wine grants Everyone no write: no hits)', () => {
    expect(r.audit.candidates).toBeGreaterThan(3);
    expect(r.audit.checked).toBeGreaterThan(3);
    expect(r.audit.hits).toBe(0);
  });

  it('world-writable audit past its count refuses (125) instead of stopping silently', () => {
    expect([r.auditBudget.refused, r.auditBudget.code]).toEqual([true, 'policy-unenforceable']);
    expect(r.auditBudget.message).toMatch(/reached its limit of 2 objects/);
  });

  const cli = (name: string) => ({
    code: Number(readFileSync(join(dir, `cli-${name}.code`), 'utf8').trim()),
    out: readFileSync(join(dir, `cli-${name}.out`), 'utf8'),
  });

  it('CLI end to end: the default profile is refused with 125 (network off cannot be enforced)', () => {
    const { code, out } = cli('default');
    expect([code, JSON.parse(out).error.code]).toEqual([125, 'policy-unenforceable']);
  });

  it('CLI end to end: --net --best-effort is refused with 125, since Wine does not honour the restricted token', () => {
    const { code, out } = cli('net');
    const result = JSON.parse(out);
    expect([code, result.error.code]).toEqual([125, 'backend-unavailable']);
    expect(result.error.message).toMatch(/IsTokenRestricted/);
  });

  it('CLI end to end: explain on Windows itself prints the plan', () => {
    const { code, out } = cli('explain');
    expect(code).toBe(0);
    expect(out).toContain('backend: windows');
    expect(out).toContain('"WRITE_RESTRICTED"');
  });
});
