// `cordon doctor` against fake Linux hosts: each missing piece is named with the exact command
// that fixes it. The AppArmor fix is a profile for the bwrap binary, never the sysctl; the
// profile command is also run through a real shell (printf, no sudo) to check what it writes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOsRelease } from '../../src/doctor/facts.ts';
import { apparmorProfileCommand, type LinuxFacts, linuxDoctorChecks } from '../../src/doctor/linux.ts';
import type { BwrapInfo } from '../../src/host/types.ts';

const bwrap = (usable: boolean, reason?: string): BwrapInfo => ({
  path: '/usr/bin/bwrap',
  version: '0.9.0',
  usable,
  supportsDisableUserns: true,
  supportsOverlay: false,
  ...(reason ? { unusableReason: reason } : {}),
});

const ubuntu = parseOsRelease('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n');
const debian = parseOsRelease('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n');
const fedora = parseOsRelease('ID=fedora\nVERSION_ID=40\n');

const healthy: LinuxFacts = {
  uid: 1000,
  os: debian,
  bwrap: bwrap(true),
  maxUserNamespaces: '63000',
  landlock: { abi: 4 },
  lsm: 'lockdown,capability,landlock,yama,apparmor',
  kernel: '6.1.0-27-amd64',
  seccompActions: 'kill_process kill_thread trap errno user_notif trace log allow',
};

const byName = (facts: LinuxFacts) => Object.fromEntries(linuxDoctorChecks(facts).map((c) => [c.name, c]));

describe('doctor on fake Linux hosts', () => {
  it('a healthy Debian 12: everything ok, no fix lines', () => {
    const checks = linuxDoctorChecks(healthy);
    expect(checks.every((c) => c.ok)).toBe(true);
    expect(checks.filter((c) => c.fix)).toEqual([]);
  });

  it.each([
    [debian, 1000, 'sudo apt-get install -y bubblewrap'],
    [ubuntu, 1000, 'sudo apt-get install -y bubblewrap'],
    [debian, 0, 'apt-get install -y bubblewrap'],
    [fedora, 1000, 'sudo dnf install -y bubblewrap'],
    [parseOsRelease('ID=arch\n'), 1000, 'sudo pacman -S --needed bubblewrap'],
    [parseOsRelease('ID=alpine\n'), 1000, 'sudo apk add bubblewrap'],
    [
      parseOsRelease('ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n'),
      1000,
      'sudo zypper install -y bubblewrap',
    ],
  ])('bubblewrap missing on %j (uid %i): %s', (os, uid, fix) => {
    const c = byName({ ...healthy, os, uid, bwrap: undefined })['bwrap'];
    expect(c).toMatchObject({ ok: false, fix });
  });

  it('Ubuntu 24.04, AppArmor blocks user namespaces: the fix is a profile for bwrap, not the sysctl', () => {
    const facts: LinuxFacts = {
      ...healthy,
      os: ubuntu,
      bwrap: bwrap(false, 'setting up uid map: Permission denied'),
      apparmorRestrictUserns: '1',
      kernel: '6.8.0-45-generic',
    };
    const c = byName(facts)['user namespaces']!;
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('blocked by AppArmor');
    expect(c.fix).toMatch(
      /^printf '%s\\n' .* \| sudo tee \/etc\/apparmor\.d\/cordon-bwrap >\/dev\/null && sudo apparmor_parser -r \/etc\/apparmor\.d\/cordon-bwrap /,
    );
    expect(c.fix).toContain('/usr/bin/bwrap flags=(unconfined)');
    expect(c.fix).not.toMatch(/sysctl -w kernel\.apparmor_restrict_unprivileged_userns/);
    expect(byName(facts)['bwrap']!.ok).toBe(false);
  });

  it('Ubuntu 24.04 as root: bwrap works, and the note says other users need the profile', () => {
    const c = byName({ ...healthy, os: ubuntu, uid: 0, apparmorRestrictUserns: '1' })[
      'apparmor userns restriction'
    ]!;
    expect(c.ok).toBe(true);
    expect(c.detail).toContain('root is not affected');
    expect(c.fix).toContain('apparmor_parser -r /etc/apparmor.d/cordon-bwrap');
  });

  it('the AppArmor command writes a valid profile for the bwrap binary it names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-aa-'));
    try {
      const file = join(dir, 'profile');
      const cmd = apparmorProfileCommand("/opt/my tools/it's/bwrap", '')
        .replace(/\/etc\/apparmor\.d\/cordon-bwrap/, file)
        .replace(/ && apparmor_parser.*$/, '');
      expect(spawnSync('/bin/sh', ['-c', cmd]).status).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(
        [
          'abi <abi/4.0>,',
          'include <tunables/global>',
          `profile cordon-bwrap "/opt/my tools/it's/bwrap" flags=(unconfined) {`,
          '  userns,',
          '  include if exists <local/cordon-bwrap>',
          '}',
          '',
        ].join('\n'),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      { unprivilegedUsernsClone: '0' },
      'sudo sysctl -w kernel.unprivileged_userns_clone=1 && echo kernel.unprivileged_userns_clone=1 | sudo tee /etc/sysctl.d/90-cordon-userns.conf >/dev/null',
    ],
    [
      { maxUserNamespaces: '0' },
      'sudo sysctl -w user.max_user_namespaces=15000 && echo user.max_user_namespaces=15000 | sudo tee /etc/sysctl.d/90-cordon-userns.conf >/dev/null',
    ],
  ])('user namespaces switched off (%j): the sysctl that switches them on, persisted', (extra, fix) => {
    const c = byName({ ...healthy, bwrap: bwrap(false, 'No permissions to create new namespace'), ...extra })[
      'user namespaces'
    ];
    expect(c).toMatchObject({ ok: false, fix });
  });

  it('bwrap fails for another reason (a container): says so and names a way out', () => {
    const c = byName({
      ...healthy,
      bwrap: bwrap(false, 'Creating new namespace failed: Operation not permitted'),
    })['user namespaces']!;
    expect(c.ok).toBe(false);
    expect(c.detail).toContain('Creating new namespace failed');
    expect(c.fix).toContain('docker run --security-opt');
  });

  it.each([
    [
      { kernel: '5.10.0-30-amd64', landlock: { abi: 0, reason: 'ENOSYS' } },
      /kernel 5\.10\.0-30-amd64 predates Landlock/,
      'upgrade to a kernel 5.13 or newer (6.7+ for network rules)',
    ],
    [
      {
        kernel: '6.1.0-27-amd64',
        lsm: 'lockdown,capability,yama,apparmor',
        landlock: { abi: 0, reason: 'EOPNOTSUPP' },
      },
      /switched off at boot/,
      `sudo sed -i 's/^GRUB_CMDLINE_LINUX="/&lsm=lockdown,capability,yama,apparmor,landlock /' /etc/default/grub && sudo update-grub && sudo reboot`,
    ],
  ])('Landlock missing (%j)', (extra, detail, fix) => {
    const c = byName({ ...healthy, ...extra })['landlock']!;
    expect(c.ok).toBe(false);
    expect(c.detail).toMatch(detail);
    expect(c.fix).toBe(fix);
  });

  it('an old Landlock ABI is usable, and says what it lacks', () => {
    const c = byName({ ...healthy, landlock: { abi: 3 } })['landlock']!;
    expect(c.ok).toBe(true);
    expect(c.detail).toContain('network rules need ABI 4');
  });
});
