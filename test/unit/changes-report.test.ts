import { describe, expect, it } from 'vitest';
import {
  buildChangeReport,
  escapePath,
  type RawComparison,
  renderChangeLines,
} from '../../src/changes/report.ts';
import { changeRoots } from '../../src/changes/roots.ts';
import { syntheticHost } from '../../src/host/synthetic.ts';
import { resolvePolicy } from '../../src/policy/resolve.ts';
import { loadProfile } from '../../src/profile/load.ts';

const key = (p: string | Buffer) => (typeof p === 'string' ? Buffer.from(p) : p).toString('latin1');

describe('buildChangeReport', () => {
  it('counts every change, lists up to maxFiles sorted, and says what was cut and why', () => {
    const changes: RawComparison['changes'][number][] = Array.from({ length: 5 }, (_, i) => ({
      change: 'created' as const,
      key: key(`/w/f${i}`),
      type: 'file' as const,
    }));
    changes.push({ change: 'deleted', key: key('/w/a'), type: 'file' });
    const skipped = new Map<string, 'depth' | 'time' | 'unreadable'>([
      [key('/w/deep/x'), 'depth'],
      [key('/w/locked'), 'unreadable'],
    ]);
    expect(buildChangeReport(['/w'], { changes, skipped }, 2, { before: 1.4, after: 2.6 })).toEqual({
      roots: ['/w'],
      created: 5,
      modified: 0,
      deleted: 1,
      entries: [
        { change: 'deleted', path: '/w/a', type: 'file' },
        { change: 'created', path: '/w/f0', type: 'file' },
      ],
      truncation: {
        code: 'changes_truncated',
        reasons: { depth: 1, unreadable: 1, max_files: 4 },
        skipped: ['/w/deep/x', '/w/locked', '/w/f1', '/w/f2', '/w/f3', '/w/f4'],
        skipped_count: 6,
      },
      scanMs: { before: 1, after: 3 },
    });
  });

  it('keeps the exact bytes of a name that is not UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('/w/bad'), Buffer.from([0xff]), Buffer.from('\nx')]);
    const report = buildChangeReport(
      ['/w'],
      { changes: [{ change: 'created', key: key(bytes), type: 'file' }], skipped: new Map() },
      20,
      {
        before: 0,
        after: 0,
      },
    );
    expect(report.entries).toEqual([
      { change: 'created', path: '/w/bad\uFFFD\nx', pathBase64: bytes.toString('base64'), type: 'file' },
    ]);
    expect(renderChangeLines(report, '/w')).toEqual([
      'changes: 1 created, 0 modified, 0 deleted',
      '  + bad\\xff\\nx',
    ]);
  });
});

describe('renderChangeLines', () => {
  it('renders the summary, the paths relative to cwd, and the truncation lines', () => {
    const report = buildChangeReport(
      ['/w'],
      {
        changes: [
          { change: 'modified', key: key('/w/a.txt'), type: 'file' },
          { change: 'created', key: key('/w/dir'), type: 'dir' },
          { change: 'created', key: key('/w/dir/b'), type: 'file' },
          { change: 'deleted', key: key('/elsewhere/c'), type: 'file' },
        ],
        skipped: new Map([[key('/w/big'), 'time' as const]]),
      },
      3,
      { before: 0, after: 0 },
    );
    expect(renderChangeLines(report, '/w')).toEqual([
      'changes: 2 created, 1 modified, 1 deleted',
      '  - /elsewhere/c',
      '  ~ a.txt',
      '  + dir/',
      '  1 more changed file not listed (max_files)',
      '  1 directory not compared: over the scan-time budget (time); changes there are not listed',
    ]);
    expect(
      renderChangeLines(
        { ...report, created: 0, modified: 0, deleted: 0, entries: [], truncation: undefined },
        '/w',
      ),
    ).toEqual(['changes: none']);
  });

  it('escapes backslashes, control characters and invalid bytes', () => {
    expect(escapePath('a\\b\tc\u0001d é')).toBe('a\\\\b\\tc\\x01d é');
    expect(escapePath('', Buffer.from([0x61, 0xc3, 0x28]).toString('base64'))).toBe('a\\xc3(');
  });
});

describe('changeRoots', () => {
  it('takes the writable roots, folds nested ones, and leaves out closed paths inside them', () => {
    const host = syntheticHost('linux', { files: { '/home/user/project/.git': 'dir' } });
    const cwd = '/home/user/project';
    const policy = resolvePolicy(
      loadProfile('workspace', cwd),
      {
        read: [],
        write: ['/home/user/project/out', '/home/user/project/secret/gen', '/opt'],
        deny: ['/home/user/project/secret'],
      },
      host,
      cwd,
    );
    expect(changeRoots(policy, cwd)).toEqual([
      { path: '/opt', excluded: [] },
      {
        path: '/home/user/project',
        excluded: ['/home/user/project/.git', '/home/user/project/secret'],
      },
      { path: '/home/user/project/secret/gen', excluded: [] },
    ]);
    expect(changeRoots(undefined, cwd)).toEqual([{ path: cwd, excluded: [] }]);
  });
});
