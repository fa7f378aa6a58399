// `cordon explain --platform win32` from this (non-Windows) machine: the real CLI prints the
// Windows plan; a policy the restricted token cannot enforce is shown with its refusal, exit 125.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('cordon explain --platform win32', () => {
  it('prints the plan and the refusal for the default profile (network off), exit 125', async () => {
    const r = await runCli(['explain', '--platform', 'win32', '--', 'git', 'status']);
    expect(r.code).toBe(125);
    expect(r.stdout).toContain('backend: windows');
    expect(r.stdout).toContain('"commandLine": "git status"');
    expect(r.stdout).toContain('"WRITE_RESTRICTED"');
    expect(r.stdout).toMatch(/not enforced:\n {2}off \(network\)/);
    expect(r.stdout).toMatch(/refused: cordon run exits 125 on this policy without --best-effort/);
  });

  it('with --net the plan is enforceable: exit 0, JSON has the spec', async () => {
    const r = await runCli(['explain', '--platform', 'win32', '--net', '--json', '--', 'node', 'a b.js']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect({
      backend: out.backend,
      commandLine: out.plan.commandLine,
      aces: out.plan.spec.acl.aces.map((a: { type: string; path: string }) => `${a.type} ${a.path}`),
      refusal: out.refusal,
    }).toEqual({
      backend: 'windows',
      commandLine: 'node "a b.js"',
      aces: ['allow C:/Users/user/project'],
      refusal: undefined,
    });
  });
});
