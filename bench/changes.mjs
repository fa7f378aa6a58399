// Benchmark for --changes (issue 8): `cordon --changes -- true` against `cordon -- true` in a
// workspace holding a 100,000-file node_modules. Run by hand after `npm run build`:
//   node bench/changes.mjs [runs=5] [backend=auto] [files=100000]
// Prints the median wall time of each, the ratio, and the scan times from the JSON result.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const runs = Number(process.argv[2] ?? 5);
const backend = process.argv[3] ?? 'auto';
const wanted = Number(process.argv[4] ?? 100_000);
const cordon = new URL('../bin/cordon', import.meta.url).pathname;
const root = mkdtempSync(join(tmpdir(), 'cordon-bench-changes-'));

function makeTree() {
  let files = 0;
  for (let p = 0; p < Math.ceil(wanted / 100); p++) {
    const pkg = join(root, 'node_modules', `pkg${p}`);
    mkdirSync(join(pkg, 'lib', 'sub'), { recursive: true });
    const dirs = [pkg, join(pkg, 'lib'), join(pkg, 'lib', 'sub')];
    for (let f = 0; f < Math.min(100, wanted - p * 100); f++) {
      writeFileSync(join(dirs[f % 3], `f${f}.js`), 'module.exports = 1;\n');
      files++;
    }
  }
  writeFileSync(join(root, 'package.json'), '{}\n');
  return files + 1;
}

function time(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cordon, '--backend', backend, ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`cordon ${args.join(' ')} failed: ${r.status} ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const t0 = performance.now();
  const files = makeTree();
  console.log(`tree: ${files} files in ${root} (${Math.round(performance.now() - t0)} ms to create)`);
  time(['--', 'true']); // warm the page cache and the binary
  const plain = [];
  const withChanges = [];
  const scans = [];
  for (let i = 0; i < runs; i++) {
    plain.push(time(['--quiet', '--', 'true']).ms);
    withChanges.push(time(['--quiet', '--changes', '--', 'true']).ms);
    const json = JSON.parse(time(['--json', '--changes', '--', 'true']).stdout);
    scans.push(json.changes.scanMs);
    if (json.changes.created + json.changes.modified + json.changes.deleted !== 0)
      console.log('unexpected changes:', JSON.stringify(json.changes.entries.slice(0, 5)));
  }
  const a = median(plain);
  const b = median(withChanges);
  console.log(
    `cordon -- true:           median ${a.toFixed(0)} ms  (${plain.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(
    `cordon --changes -- true: median ${b.toFixed(0)} ms  (${withChanges.map((x) => x.toFixed(0)).join(', ')})`,
  );
  console.log(`ratio: ${(b / a).toFixed(2)}x`);
  console.log(`scan ms (before/after): ${scans.map((s) => `${s.before}/${s.after}`).join(', ')}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
