// The doctor trial (host/seatbelt-probe.ts) must compile every section the Seatbelt builder
// can emit, including the two constructs no known-good profile proves (the numeric TIOCSTI
// ioctl and require-not around a unix-socket filter). Checked here on the plans it would run;
// running them takes a Mac (test/sandbox/seatbelt.test.ts).
import { describe, expect, it } from 'vitest';
import { probeDarwinUserDirs, trialPolicies } from '../../src/host/seatbelt-probe.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { buildSeatbeltPlan } from '../../src/plan/macos/seatbelt.ts';

describe('seatbelt doctor trial', () => {
  it('its two plans together contain every section the builder emits', () => {
    const host = syntheticHost('darwin');
    const dir = '/private/var/folders/zz/T/cordon-doctor-abc';
    const profiles = trialPolicies(dir).map(
      (policy) =>
        buildSeatbeltPlan({ policy, command: ['/usr/bin/true'], env: {}, host, privateTmpDir: `${dir}/tmp` })
          .profile,
    );
    const all = profiles.join('\n');
    const constructs = [
      '(deny file-ioctl (ioctl-command 2147578994)',
      '(allow file-read-metadata\n',
      '(allow file-read* file-map-executable',
      '(allow process-exec',
      '(allow file-write*',
      '(allow file-link',
      '(allow file-clone',
      '(deny file-clone (vnode-type DIRECTORY)',
      '(deny file-write-unlink',
      '(require-not (literal (param',
      '(require-not (regex (param "ALIASES_',
      '(require-not (local unix-socket (subpath (param',
      '(require-not (remote unix-socket (regex (param',
      '(deny network-outbound',
      '(deny network-bind',
      '(remote unix-socket (literal (param', // --allow-unix
      '(allow network-bind (local ip "*:*"))', // localBinding and network on
      '(allow network-inbound (local ip "localhost:*"))', // localBinding
      '(allow network-outbound (remote ip "localhost:*"))', // localBinding
      '(allow network-outbound (remote ip "*:*"))', // network on
      '(control-name "com.apple.netsrc")',
      '(preference-domain "kCFPreferencesAnyApplication")',
      '(ipc-posix-name-prefix "/mp-")',
      '(with no-log)',
    ];
    expect(constructs.filter((c) => !all.includes(c))).toEqual([]);
  });

  it('derives the user cache dir from a default TMPDIR without starting getconf', () => {
    expect(probeDarwinUserDirs('/var/folders/ab/xyz123/T', (p) => `/private${p}`)).toEqual({
      temp: '/private/var/folders/ab/xyz123/T',
      cache: '/private/var/folders/ab/xyz123/C',
    });
  });
});
