// Host probes against fake bwrap scripts: the probe must report a blocked user namespace in
// one sentence with the fix, and a missing bwrap as missing; the chooser then explains itself.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap, probeBwrapAt } from '../../src/host/probe.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { chooseBackend, judgeBackends } from '../../src/plan/choose.ts';
import { makeTempDir } from '../helpers/cli.ts';

function fakeBwrap(script: string): string {
  const dir = join(makeTempDir('cordon-fakebwrap-'), 'bin');
  mkdirSync(dir);
  writeFileSync(join(dir, 'bwrap'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(dir, 'bwrap'), 0o755);
  return dir;
}

describe.runIf(process.platform === 'linux')('probeBwrap', () => {
  it('reports a usable bwrap with its version and features', () => {
    const dir = fakeBwrap('[ "$1" = --version ] && { echo "bubblewrap 0.11.0"; exit 0; }; exit 0');
    const info = probeBwrapAt(join(dir, 'bwrap'));
    expect(info).toEqual({
      path: join(dir, 'bwrap'),
      version: '0.11.0',
      usable: true,
      supportsDisableUserns: true,
      supportsOverlay: true,
    });
  });

  it('names the Ubuntu AppArmor restriction and the fix when user namespaces are blocked', () => {
    const dir = fakeBwrap(
      '[ "$1" = --version ] && { echo "bubblewrap 0.9.0"; exit 0; }; echo "bwrap: setting up uid map: Permission denied" >&2; exit 1',
    );
    const info = probeBwrapAt(join(dir, 'bwrap'));
    expect(info?.usable).toBe(false);
    expect(info?.unusableReason).toBe(
      `bubblewrap cannot create user namespaces here (bwrap: setting up uid map: Permission denied): on Ubuntu 24.04 allow it with an AppArmor profile for ${join(dir, 'bwrap')} (see README), elsewhere enable unprivileged user namespaces`,
    );
  });

  it('never takes a bwrap from a PATH directory that is not root-owned all the way up', () => {
    const dir = fakeBwrap('exit 0');
    const info = probeBwrap({ PATH: dir });
    // The system one when installed; never the fake one.
    expect(info?.path).not.toBe(join(dir, 'bwrap'));
  });
});

describe('chooseBackend', () => {
  it('auto picks bwrap when usable', () => {
    const host = syntheticHost('linux');
    expect(
      chooseBackend(
        'auto',
        judgeBackends(host, undefined, () => undefined),
        host,
      ).backend,
    ).toBe('bwrap');
  });

  it('refuses with one sentence per reason when nothing can enforce the policy', () => {
    const host = syntheticHost('linux', {
      bwrap: {
        path: '/usr/bin/bwrap',
        version: '0.9.0',
        usable: false,
        unusableReason: 'bubblewrap cannot create user namespaces here',
        supportsDisableUserns: true,
        supportsOverlay: false,
      },
      landlockAbi: 0,
    });
    expect(() =>
      chooseBackend(
        'auto',
        judgeBackends(host, undefined, () => undefined),
        host,
      ),
    ).toThrow(
      'no sandbox backend can enforce this policy here — bwrap: bubblewrap cannot create user namespaces here. landlock: the kernel has no Landlock (5.13+ with lsm=landlock). (nothing was run; --backend none runs without a sandbox)',
    );
  });

  it('never picks none automatically, and a forced unusable backend says why', () => {
    const host = syntheticHost('linux', { bwrap: null });
    expect(() =>
      chooseBackend(
        'bwrap',
        judgeBackends(host, undefined, () => undefined),
        host,
      ),
    ).toThrow("backend 'bwrap' cannot run here: bubblewrap is not installed (apt-get install bubblewrap)");
  });
});
