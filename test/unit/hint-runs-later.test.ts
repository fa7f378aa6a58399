// A hint built from the command's text never makes writable what runs outside the sandbox
// later: cordon's state and code, its Node, a PATH directory (the review's E5).
import { describe, expect, it } from 'vitest';
import { findSafeFix } from '../../src/denials/fix.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { preparePlan } from '../../src/prepare.ts';

const host = syntheticHost('linux');
const { policy } = preparePlan(
  ['true'],
  { env: { PATH: '/usr/bin' } },
  { probe: () => host, platform: 'linux', cwdOverride: host.cwd },
);
const kindOf = (p: string) => host.kind(p);
const runsLater = ['/home/user/.cache/cordon', '/opt/node/bin/node', '/opt/node/bin', '/srv/cordon/dist'];

describe('hints and what runs later', () => {
  it.each(['/home/user/.cache/cordon/compile-cache/x', '/opt/node/bin/x', '/srv/cordon/dist/cli.cjs'])(
    '%s: no write suggested',
    (path) => {
      const fix = findSafeFix(policy!, host.home, path, 'write', kindOf, runsLater);
      expect(fix.target).toBeUndefined();
      expect(fix.refused).toMatch(/holds what runs outside the sandbox later/);
    },
  );
});
