// The descriptor-relative file module against real races: another process swaps directories
// for symlinks while cordon walks them. The victim directory outside must never lose a file.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  FsAtError,
  listDir,
  mkdirAt,
  openAt,
  openDirPath,
  removeTreeAt,
  renameAt,
  statAt,
  statFd,
  unlinkAt,
} from '../../src/native/fsat.ts';
import { isLinux, makeTempDir } from '../helpers/cli.ts';

describe.runIf(isLinux)('fsat: descriptor-relative operations', () => {
  let base: string;
  beforeEach(() => {
    base = makeTempDir('cordon-fsat-');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('openDirPath refuses a symlink anywhere on the way, and pins what it opened', () => {
    mkdirSync(join(base, 'real/sub'), { recursive: true });
    symlinkSync(join(base, 'real'), join(base, 'link'));
    expect(() => openDirPath(join(base, 'link/sub'))).toThrow(FsAtError);
    let code = '';
    try {
      openDirPath(join(base, 'link'));
    } catch (e) {
      code = (e as FsAtError).code;
    }
    expect(code).toMatch(/ELOOP|ENOTDIR/);
    const fd = openDirPath(join(base, 'real'));
    // The path is re-pointed after pinning: the descriptor still names the original directory.
    rmSync(join(base, 'real'), { recursive: true });
    mkdirSync(join(base, 'real'));
    writeFileSync(join(base, 'real/new'), 'x');
    expect(listDir(fd)).toEqual([]);
    closeSync(fd);
  });

  it('statAt does not follow; mkdirAt, openAt O_EXCL, renameAt and unlinkAt stay in the directory', () => {
    const fd = openDirPath(base);
    symlinkSync('/etc', join(base, 'l'));
    expect(statAt(fd, 'l')?.kind).toBe('symlink');
    expect(statAt(fd, 'missing')).toBeUndefined();
    mkdirAt(fd, 'd', 0o700);
    expect(statAt(fd, 'd')?.kind).toBe('dir');
    const f = openAt(fd, 'f', 0o1 | 0o100 | 0o200, 0o600);
    expect(statFd(f).kind).toBe('file');
    closeSync(f);
    expect(() => openAt(fd, 'f', 0o1 | 0o100 | 0o200, 0o600)).toThrow(/EEXIST/);
    // O_CREAT through a symlink is refused (O_NOFOLLOW), nothing created at the target.
    symlinkSync(join(base, 'elsewhere'), join(base, 'dangling'));
    expect(() => openAt(fd, 'dangling', 0o1 | 0o100, 0o600)).toThrow(/ELOOP/);
    expect(existsSync(join(base, 'elsewhere'))).toBe(false);
    renameAt(fd, 'f', fd, 'g');
    expect(readdirSync(base).sort()).toEqual(['d', 'dangling', 'g', 'l']);
    unlinkAt(fd, 'g');
    unlinkAt(fd, 'd', { dir: true });
    expect(() => openAt(fd, '../x', 0)).toThrow(/EINVAL/);
    closeSync(fd);
  });

  it('removeTreeAt removes a tree but never walks through a symlink in it', () => {
    const victim = join(base, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'keep'), 'k');
    mkdirSync(join(base, 'tree/a/b'), { recursive: true });
    writeFileSync(join(base, 'tree/a/b/f'), 'f');
    symlinkSync(victim, join(base, 'tree/a/link'));
    const fd = openDirPath(base);
    expect(removeTreeAt(fd, 'tree')).toEqual([]);
    closeSync(fd);
    expect(existsSync(join(base, 'tree'))).toBe(false);
    expect(readFileSync(join(victim, 'keep'), 'utf8')).toBe('k');
  });

  it('removeTreeAt under a live swapper: a directory becomes a symlink to the victim mid-walk', async () => {
    const victim = join(base, 'victim');
    mkdirSync(victim);
    for (let i = 0; i < 50; i++) writeFileSync(join(victim, `v${i}`), 'v');
    const rounds = 40;
    for (let round = 0; round < rounds; round++) {
      const tree = join(base, `t${round}`);
      mkdirSync(join(tree, 'd'), { recursive: true });
      for (let i = 0; i < 50; i++) writeFileSync(join(tree, 'd', `f${i}`), 'f');
      // Keeps swapping t/d for a symlink to the victim and back, as fast as it can.
      const swapper = spawn(
        'sh',
        [
          '-c',
          'while :; do mv "$1/d" "$1/x" 2>/dev/null; ln -s "$2" "$1/d" 2>/dev/null; rm -f "$1/d"; mv "$1/x" "$1/d" 2>/dev/null; done',
          'swap',
          tree,
          victim,
        ],
        { stdio: 'ignore' },
      );
      const fd = openDirPath(base);
      for (let tries = 0; tries < 20 && existsSync(tree); tries++) removeTreeAt(fd, `t${round}`);
      closeSync(fd);
      swapper.kill('SIGKILL');
      await new Promise((r) => swapper.once('exit', r));
      rmSync(tree, { recursive: true, force: true });
    }
    expect(readdirSync(victim).length).toBe(50);
  });
});
