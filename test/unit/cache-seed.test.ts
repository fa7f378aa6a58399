// seedFromHost on the real file system: what the sandbox cache lacks is copied (new inodes,
// same bytes), only that; links the command could have planted in its cache, or that sit in
// the host cache, are never followed; the host tree is unchanged (content, mtime, inode).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CacheSeed } from '../../src/cache/layout.ts';
import { seedFromHost } from '../../src/cache/seed.ts';

const isLinux = process.platform === 'linux';
const isRoot = process.getuid?.() === 0;
const uid = process.getuid?.() ?? -1;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** path → sha256, mode, mtime and inode of everything under root (links: their target). */
function fingerprint(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    const st = lstatSync(path, { bigint: true });
    const meta = `${st.mode}:${st.mtimeNs}:${st.ino}:${st.nlink}`;
    if (st.isDirectory()) {
      out[path] = `dir:${meta}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name));
    } else if (st.isFile())
      out[path] = `file:${meta}:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
    else out[path] = `other:${meta}`;
  };
  walk(root);
  return out;
}

interface Fixture {
  root: string;
  host: string;
  tools: string;
  seed: CacheSeed;
}

function fixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), 'cordon-seed-'));
  dirs.push(root);
  const host = join(root, 'host/_cacache');
  const tools = join(root, 'entry/tools');
  mkdirSync(tools, { recursive: true, mode: 0o700 });
  const put = (rel: string, text: string) => {
    mkdirSync(join(host, rel, '..'), { recursive: true });
    writeFileSync(join(host, rel), text, { mode: 0o444 });
  };
  put('content-v2/sha512/ab/cd/ef01', 'tarball one');
  put('content-v2/sha512/12/34/5678', 'tarball two');
  put('index-v5/9a/bc/def0', 'index line\n');
  put('tmp/partial', 'not copied');
  const seed: CacheSeed = {
    tool: 'npm',
    source: host,
    target: join(tools, 'npm/_cacache'),
    targetBelowTools: ['npm', '_cacache'],
    parts: ['content-v2', 'index-v5'],
    state: join(root, 'entry/seed-npm.json'),
  };
  return { root, host, tools, seed };
}

describe.runIf(isLinux)('seedFromHost', () => {
  it('copies the missing entries as new files with the same bytes, and nothing else', () => {
    const f = fixture();
    const before = fingerprint(f.host);
    const r = seedFromHost(f.seed, f.tools, uid);
    expect(r).toEqual({ tool: 'npm', source: f.host, files: 3, bytes: 33, skipped: 0 });
    const copy = join(f.seed.target, 'content-v2/sha512/ab/cd/ef01');
    expect(readFileSync(copy, 'utf8')).toBe('tarball one');
    // Never a hard link: another inode, and the host file still has one link.
    expect(lstatSync(copy).ino).not.toBe(lstatSync(join(f.host, 'content-v2/sha512/ab/cd/ef01')).ino);
    expect(lstatSync(join(f.host, 'content-v2/sha512/ab/cd/ef01')).nlink).toBe(1);
    expect(readdirSync(f.seed.target).sort()).toEqual(['content-v2', 'index-v5']);
    expect(fingerprint(f.host)).toEqual(before);
  });

  it('copies only what is missing on later runs, and what the host gained since', () => {
    const f = fixture();
    seedFromHost(f.seed, f.tools, uid);
    // The command rewrote its own copy: not put back (content-addressed; npm verifies on read).
    chmodSync(join(f.seed.target, 'index-v5/9a/bc/def0'), 0o644); // copies keep npm's read-only mode
    writeFileSync(join(f.seed.target, 'index-v5/9a/bc/def0'), 'changed by the command\n');
    expect(seedFromHost(f.seed, f.tools, uid).files).toBe(0);
    mkdirSync(join(f.host, 'content-v2/sha512/ab/ff'));
    writeFileSync(join(f.host, 'content-v2/sha512/ab/ff/0011'), 'tarball three');
    expect(seedFromHost(f.seed, f.tools, uid)).toMatchObject({ files: 1, bytes: 13 });
    expect(readFileSync(join(f.seed.target, 'index-v5/9a/bc/def0'), 'utf8')).toBe('changed by the command\n');
    // The command removed a whole part: the next run fills it again.
    rmSync(join(f.seed.target, 'content-v2'), { recursive: true });
    expect(seedFromHost(f.seed, f.tools, uid)).toMatchObject({ files: 3 });
  });

  it('never follows a link the command planted in its cache; the target stays unchanged', () => {
    const f = fixture();
    const victim = join(f.root, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'ef01'), 'keep');
    writeFileSync(join(victim, 'file'), 'keep');
    const beforeVictim = fingerprint(victim);
    // A directory link where cordon will descend, a file link where it will write, and a
    // link at the temporary name it will use.
    mkdirSync(join(f.seed.target, 'content-v2/sha512/ab'), { recursive: true });
    symlinkSync(victim, join(f.seed.target, 'content-v2/sha512/ab/cd'));
    mkdirSync(join(f.seed.target, 'content-v2/sha512/12/34'), { recursive: true });
    symlinkSync(join(victim, 'file'), join(f.seed.target, 'content-v2/sha512/12/34/5678'));
    mkdirSync(join(f.seed.target, 'index-v5/9a/bc'), { recursive: true });
    symlinkSync(join(victim, 'file'), join(f.seed.target, `index-v5/9a/bc/.cordon-seed-${process.pid}-0`));
    const r = seedFromHost(f.seed, f.tools, uid);
    expect(fingerprint(victim)).toEqual(beforeVictim);
    // The directory link and the occupied temporary name are skipped (the file link is an
    // entry already present: content-addressed, never rewritten).
    expect(r).toMatchObject({ files: 0, skipped: 2 });
    expect(lstatSync(join(f.seed.target, 'content-v2/sha512/ab/cd')).isSymbolicLink()).toBe(true);
    expect(() => lstatSync(join(f.seed.target, 'index-v5/9a/bc/def0'))).toThrow();
    // A run with a skip is not remembered: the next one walks again.
    expect(() => lstatSync(f.seed.state)).toThrow();
  });

  it('never copies through a link in the host cache (a file the command may not read)', () => {
    const f = fixture();
    const secret = join(f.root, 'secret');
    writeFileSync(secret, 'TOKEN');
    symlinkSync(secret, join(f.host, 'content-v2/sha512/ab/cd/link'));
    symlinkSync(join(f.root), join(f.host, 'index-v5/linkdir'));
    seedFromHost(f.seed, f.tools, uid);
    expect(() => lstatSync(join(f.seed.target, 'content-v2/sha512/ab/cd/link'))).toThrow();
    expect(() => lstatSync(join(f.seed.target, 'index-v5/linkdir'))).toThrow();
  });

  it('a concurrent attacker swapping the destination for links while the copy runs reaches nothing', async () => {
    const f = fixture();
    for (let i = 0; i < 40; i++) {
      const dir = join(f.host, `content-v2/sha512/${(16 + i).toString(16)}/aa`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'bb'), `tarball ${i}`);
    }
    const victim = join(f.root, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'keep'), 'keep');
    const beforeVictim = fingerprint(victim);
    const beforeHost = fingerprint(f.host);
    // The attacker: over and over, every directory and file it finds in the destination is
    // renamed away and replaced by a link to the victim; temporary names are pre-empted too.
    const attacker = `
      const fs = require('node:fs'), path = require('node:path');
      const [target, victim] = process.argv.slice(1);
      const swap = (p) => { try { fs.renameSync(p, p + '-' + Math.random()); fs.symlinkSync(victim, p); } catch {} };
      const walk = (d, depth) => {
        let names = []; try { names = fs.readdirSync(d); } catch { return; }
        for (const n of names) {
          const p = path.join(d, n);
          if (n.includes('-0.')) continue;
          let st; try { st = fs.lstatSync(p); } catch { continue; }
          if (st.isDirectory() && depth < 6) { walk(p, depth + 1); swap(p); }
          else if (st.isFile()) swap(p);
          for (let k = 0; k < 3; k++) try { fs.symlinkSync(path.join(victim, 'keep'), path.join(d, '.cordon-seed-' + process.ppid + '-' + k)); } catch {}
        }
      };
      for (;;) walk(target, 0);
    `;
    mkdirSync(f.seed.target, { recursive: true });
    const child = spawn(process.execPath, ['-e', attacker, f.seed.target, victim], { stdio: 'ignore' });
    try {
      for (let round = 0; round < 30; round++) {
        rmSync(f.seed.state, { force: true });
        seedFromHost(f.seed, f.tools, uid);
      }
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.on('close', resolve));
    }
    expect(fingerprint(victim)).toEqual(beforeVictim);
    expect(fingerprint(f.host)).toEqual(beforeHost);
    // The attack did run alongside: links were planted in the destination.
    const planted = Object.values(fingerprint(f.seed.target)).filter((v) => v.startsWith('other:'));
    expect(planted.length).toBeGreaterThan(0);
  });

  it.runIf(isRoot)('skips a destination directory another user owns', () => {
    const f = fixture();
    mkdirSync(join(f.seed.target, 'content-v2/sha512/ab'), { recursive: true });
    chownSync(join(f.seed.target, 'content-v2/sha512/ab'), 65534, 65534);
    const r = seedFromHost(f.seed, f.tools, 0);
    expect(r.skipped).toBe(1);
    expect(readdirSync(join(f.seed.target, 'content-v2/sha512/ab'))).toEqual([]);
  });

  it('reports a missing host cache as an error, copying nothing', () => {
    const f = fixture();
    const r = seedFromHost({ ...f.seed, source: join(f.root, 'nope') }, f.tools, uid);
    expect(r).toEqual({
      tool: 'npm',
      source: join(f.root, 'nope'),
      files: 0,
      bytes: 0,
      skipped: 0,
      error: `cannot open '${join(f.root, 'nope')}' as a directory`,
    });
  });
});
