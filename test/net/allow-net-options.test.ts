// --allow-net as a flag, a library option and a profile key: merging, refusals (125 with the
// value and the fix), and the CLI's exit status before anything runs.
import { describe, expect, it } from 'vitest';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { withAllowNet } from '../../src/policy/allow-net.ts';
import type { SandboxPolicy } from '../../src/policy/types.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { runCli } from '../helpers/cli.ts';
import { parseProfileText } from '../helpers/profile.ts';

const host = syntheticHost('linux');
const policy: SandboxPolicy = {
  platform: 'linux',
  rules: [],
  network: 'on',
  privateTmp: true,
  cwd: host.cwd,
  profile: 'p',
};

describe('profile key allowNet', () => {
  it('parses, adds to the parent list, and narrows a profile network: on', () => {
    const parent = parseProfileText('allowNet: [registry.npmjs.org]\n', 'a.yaml', 'a');
    const child = parseProfileText(
      'extends: a\nallowNet: ["*.github.com", registry.npmjs.org]\n',
      'b.yaml',
      'b',
    );
    const merged = mergeProfiles([parent, child]);
    expect(merged.allowNet).toEqual(['registry.npmjs.org', '*.github.com']);
    const p = withAllowNet(policy, merged.allowNet, ['localhost:3000'], undefined);
    expect(p.network).toBe('off');
    expect(p.allowNet).toEqual(['registry.npmjs.org', '*.github.com', 'localhost:3000']);
  });
  it('refuses a bad entry naming the key path, and network: on with it', () => {
    expect(() => parseProfileText('allowNet: ["a.*.com"]\n', 'p.yaml', 'p')).toThrow(
      /invalid profile p\.yaml: allowNet\[0\]: 'a\.\*\.com': a wildcard is allowed only as a leading/,
    );
    expect(() => parseProfileText('allowNet: a.com\n', 'p.yaml', 'p')).toThrow(/allowNet: must be a list/);
    expect(() => parseProfileText('network: on\nallowNet: [a.com]\n', 'p.yaml', 'p')).toThrow(
      /network: on already allows every host/,
    );
  });
  it('no list leaves the policy alone; --net with a list is refused', () => {
    expect(withAllowNet(policy, [], [], true)).toBe(policy);
    expect(() => withAllowNet(policy, [], ['a.com'], true)).toThrow(/--net allows every host/);
  });
});

describe('cordon --allow-net (CLI)', () => {
  it.each([
    [['--allow-net', 'http://a.com', '--', 'true'], /--allow-net 'http:\/\/a\.com': a host, not a URL/],
    [['--net', '--allow-net', 'a.com', '--', 'true'], /--net allows every host/],
    [['--backend', 'none', '--allow-net', 'a.com', '--', 'true'], /--allow-net would not be enforced/],
  ])('%j exits 125 before running anything', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(message);
  });
  it('explain shows the allowlist', async () => {
    const r = await runCli([
      'explain',
      '--platform',
      'linux',
      '--allow-net',
      'registry.npmjs.org',
      '--',
      'npm',
      'i',
    ]);
    expect(r.stdout).toContain("network: allowlist through cordon's proxy — registry.npmjs.org");
  });
});

describe('denials recognized in the output under an allowlist', () => {
  it('suggest --allow-net HOST and the proxy variables, never --net', async () => {
    const { findDenials } = await import('../../src/denials/explain.ts');
    const ctx = {
      policy: { ...policy, network: 'off' as const, allowNet: ['registry.npmjs.org'] },
      home: host.home,
      networkFromFlag: false,
      privateDirs: [],
      kindOf: () => 'missing' as const,
    };
    const r = findDenials('curl: (6) Could not resolve host: api.example.com\n', ctx);
    expect(r.denials).toHaveLength(1);
    expect(r.denials[0]!.fix).toBe('--allow-net api.example.com');
    expect(r.denials[0]!.message).toContain('HTTPS_PROXY');
    expect(r.denials[0]!.message).not.toContain('--net ');
  });
});
