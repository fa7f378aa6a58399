// Fixtures for real-sandbox escape tests: a workspace and an "outside" directory on the host,
// owned by the user the test runs cordon as, plus a host-side snapshot to prove nothing
// changed where the policy said it must not.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from './cli.ts';

export interface Fixture {
  base: string;
  ws: string;
  outside: string;
  home: string;
  victim: string;
}

export function makeFixture(uid: number | undefined): Fixture {
  // Not under /tmp: the sandbox gets a private /tmp, which would hide "outside" instead of
  // testing that it is read-only.
  const base = makeTempDir('cordon-sbx-', '/var/tmp');
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  const home = join(base, 'home');
  for (const d of [
    ws,
    outside,
    home,
    join(ws, '.git/hooks'),
    join(ws, 'secret'),
    join(ws, 'a/b'),
    join(home, '.ssh'),
  ])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, '.git/config'), '[core]\n');
  writeFileSync(join(ws, '.git/HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, 'secret/key'), 'TOPSECRET\n');
  writeFileSync(join(ws, 'a/hidden.txt'), 'hidden\n');
  writeFileSync(join(home, '.ssh/id_ed25519'), 'PRIVATE KEY\n');
  const victim = join(outside, 'victim.txt');
  writeFileSync(victim, 'original\n');
  chmodSync(victim, 0o666);
  chmodSync(outside, 0o777);
  if (uid !== undefined) spawnSync('chown', ['-R', `${uid}:${uid}`, ws, home]);
  return { base, ws, outside, home, victim };
}

/** path → kind:size:content-hash of a tree, for before/after comparisons. */
export function snapshotTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      if (st.isDirectory()) {
        out[p] = `dir:${(st.mode & 0o7777).toString(8)}`;
        walk(p);
      } else if (st.isSymbolicLink()) {
        out[p] = 'link';
      } else {
        out[p] = `file:${(st.mode & 0o7777).toString(8)}:${readFileSync(p).toString('base64')}`;
      }
    }
  };
  walk(root);
  return out;
}

export function chownTo(uid: number | undefined, ...paths: string[]): void {
  if (uid === undefined) return;
  for (const p of paths) chownSync(p, uid, uid);
}
