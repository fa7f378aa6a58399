// ACE cost on a real Windows machine (run by hand: node bench/windows-acl.ts [files]; Node 24
// strips the types). Builds a tree of N files in %TEMP%, then times, for a fresh capability SID:
//   first  — ensureAce on the root: SetNamedSecurityInfoW propagates the inheritable ACE to
//            every file (what the first cordon run on a tree pays)
//   repeat — ensureAce again: one DACL read, nothing written (what every later run pays)
// and, for comparison, what a re-apply-every-run design would pay (remove + apply again).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureAce } from '../src/backends/windows/acl.ts';
import { loadWin32 } from '../src/native/win32.ts';
import { deriveCordonSid } from '../src/plan/windows/sid.ts';
import { ALLOW_WRITE_RIGHTS, INHERIT_CONTAINERS_AND_OBJECTS, rightsMask } from '../src/plan/windows/spec.ts';

if (process.platform !== 'win32') {
  console.log('windows-acl bench: Windows only (Wine keeps no ACLs, so its figures would mean nothing)');
  process.exit(0);
}
const files = Number(process.argv[2] ?? 20000);
const root = mkdtempSync(join(tmpdir(), 'cordon-acl-bench-'));
const perDir = 200;
for (let i = 0; i < files; i++) {
  const dir = join(root, `d${Math.floor(i / perDir)}`);
  if (i % perDir === 0) mkdirSync(dir);
  writeFileSync(join(dir, `f${i}.txt`), 'x');
}
const w = loadWin32();
const ace = {
  nativePath: root,
  type: 'allow' as const,
  sid: deriveCordonSid('write-root', `${root}-${Date.now()}`),
  rights: rightsMask(ALLOW_WRITE_RIGHTS),
  inheritance: INHERIT_CONTAINERS_AND_OBJECTS,
};
const now = () => performance.now();
const first = ensureAce(w, ace, now);
const repeat = ensureAce(w, ace, now);
const other = ensureAce(
  w,
  { ...ace, sid: deriveCordonSid('write-root', `${root}-other-${Date.now()}`) },
  now,
);
console.log(
  JSON.stringify({
    files,
    firstApplyMs: Math.round(first.ms),
    repeatRunMs: Math.round(repeat.ms * 10) / 10,
    repeatApplied: repeat.applied,
    reapplyEveryRunMs: Math.round(other.ms),
  }),
);
rmSync(root, { recursive: true, force: true });
