// Error messages: one line with the value and the fix. A profile that does not parse names the
// line and column (YAML and JSON alike) and ends in the fix, not in a dangling "column 1:";
// Landlock's refusal is a short sentence and then one line per rule it cannot enforce.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCordonError } from '../../src/errors.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { preparePlan } from '../../src/prepare.ts';
import { loadProfile } from '../../src/profile/load.ts';
import { lineColumnOf } from '../../src/profile/syntax-error.ts';

const dir = mkdtempSync(join(tmpdir(), 'cordon-errors-'));

function messageOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    if (isCordonError(error)) return error.message;
    throw error;
  }
  throw new Error('no error');
}

describe('profile syntax errors', () => {
  it('malformed YAML: line and column, the reason, the fix; nothing dangling', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'network: off\nfilesystem:\n  - { path: /, access: read }\n  - path: [\n');
    const message = messageOf(() => loadProfile(file, dir));
    expect(message).toBe(
      `invalid profile ${file}: not valid YAML at line 5, column 1: Flow sequence in block collection must be sufficiently indented and end with a ] — fix the syntax there`,
    );
    expect(message).not.toContain('\n');
  });

  it.each([
    [
      '{"network": "off",\n "filesystem": [\n  {"path": "/", }\n]}\n',
      'at line 3, column 17: Expected double-quoted property name',
    ],
    ['{"network": "off",\n', 'at line 2, column 1:'],
  ])('malformed JSON %j names a line too', (text, part) => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, text);
    const message = messageOf(() => loadProfile(file, dir));
    expect(message).toContain(`not valid JSON ${part}`);
    expect(message).toMatch(/ — fix the syntax there$/);
    expect(message).not.toContain('position');
  });

  it('lineColumnOf counts from 1', () => {
    expect(lineColumnOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});

describe('the Landlock refusal', () => {
  it('is a short sentence with the ways out, then one line per rule', () => {
    const host = syntheticHost('linux', { bwrap: null, landlockAbi: 7 });
    const message = messageOf(() =>
      preparePlan(['true'], { backend: 'landlock' }, { probe: () => host, cwdOverride: host.cwd }),
    );
    const [first, ...rules] = message.split('\n');
    expect(first).toBe(
      `backend 'landlock' cannot run here: Landlock ABI 7 cannot enforce ${rules.length} rules exactly — install or enable bubblewrap (see cordon doctor), change the rules, or pass --best-effort to run with them not enforced:`,
    );
    // (.cordon is no longer protected; the kernel gaps every Landlock run has are listed.)
    expect(rules.length).toBeGreaterThanOrEqual(2);
    for (const line of rules) expect(line).toMatch(/^ {2}\S+ \S.*: \S/);
    expect(rules.some((l) => l.includes('(file metadata)'))).toBe(true);
  });
});
