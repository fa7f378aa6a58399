// Startup cost of the Landlock backend against bubblewrap and a bare Node start, in one
// hyperfine run (run by hand: `npm run build && node bench/landlock-startup.mjs`).
//   node -e 0                                   the floor: one Node start
//   cordon --backend none -- true               cordon's own cost, no sandbox
//   cordon --backend bwrap -- true              bubblewrap backend
//   cordon --backend landlock -- true           Landlock, CLI confines its own main thread
//   cordon --backend landlock --report F -- true  Landlock through the helper process (the
//                                               library's path; --report selects it in the CLI)
// The policy is one both enforce exactly (/ readable, a private temp dir, network off).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const cordon = join(root, 'bin/cordon');
// Not under /tmp: bwrap's private /tmp would hide the working directory.
const dir = mkdtempSync('/var/tmp/cordon-bench-ll-');
const profile = join(dir, 'bench.yaml');
writeFileSync(profile, 'network: off\nprivateTmp: true\nfilesystem:\n  - { path: /, access: read }\n');
const node = process.execPath;
const base = `${node} ${cordon} --profile ${profile} -q`;
const commands = {
  node: `${node} -e 0`,
  none: `${node} ${cordon} -q --backend none -- true`,
  bwrap: `${base} --backend bwrap -- true`,
  landlock: `${base} --backend landlock -- true`,
  'landlock-helper': `${base} --backend landlock --report ${join(dir, 'r.json')} -- true`,
};
const out = join(dir, 'hyperfine.json');
const runs = process.env.RUNS ?? '30';
execFileSync(
  'hyperfine',
  [
    '-N',
    '--warmup',
    '3',
    '--runs',
    runs,
    '--export-json',
    out,
    ...Object.entries(commands).flatMap(([name, cmd]) => ['-n', name, cmd]),
  ],
  { stdio: ['ignore', 'inherit', 'inherit'], cwd: dir },
);
const results = JSON.parse(readFileSync(out, 'utf8')).results;
const mean = Object.fromEntries(results.map((r) => [r.command, r.mean * 1000]));
const median = Object.fromEntries(results.map((r) => [r.command, r.median * 1000]));
// CPU time (user + system) is far less sensitive to a loaded machine than wall time.
const cpu = Object.fromEntries(results.map((r) => [r.command, (r.user + r.system) * 1000]));
const fmt = (x) => x.toFixed(1);
console.log(`\nnode ${process.version}, ${runs} runs each (wall mean / wall median / cpu mean, ms):`);
for (const name of Object.keys(commands))
  console.log(`  ${name.padEnd(16)} ${fmt(mean[name])} / ${fmt(median[name])} / ${fmt(cpu[name])}`);
const ratio = (a, b) => `wall ${(median[a] / median[b]).toFixed(2)}, cpu ${(cpu[a] / cpu[b]).toFixed(2)}`;
console.log(`landlock / node         ${ratio('landlock', 'node')}  (goal <= 1.4)`);
console.log(`landlock / bwrap        ${ratio('landlock', 'bwrap')}  (goal <= 1.1)`);
console.log(`landlock / none         ${ratio('landlock', 'none')}  (what Landlock adds to cordon)`);
console.log(`landlock-helper / none  ${ratio('landlock-helper', 'none')}`);
console.log(`bwrap / none            ${ratio('bwrap', 'none')}`);
console.log(`none / node             ${ratio('none', 'node')}  (cordon itself)`);
rmSync(dir, { recursive: true, force: true });
