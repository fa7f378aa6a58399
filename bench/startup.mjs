// Start-up benchmark (prints figures, asserts nothing). Compares `cordon --backend none -- true`
// as the npm shim (bin/cordon → dist/cli.cjs, compile cache on and off) and as the single
// executables in .dist-sea/ (if built) against `node -e 0`, with hyperfine, plus each
// executable's peak RSS (/usr/bin/time) and the share of koffi (the libc binding main.ts loads
// on Linux for FD_CLOEXEC and PR_SET_CHILD_SUBREAPER). Run: npm run bench:startup
//   node bench/startup.mjs [--runs 30] [--warmup 5] [--instructions]
// --instructions: instead of timing, counts the instructions each command's own process
// executes (valgrind --tool=callgrind; children such as `true` or bwrap are not traced). Slow,
// but independent of what else the machine is doing — use it on a busy machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    instructions: { type: 'boolean', default: false },
  },
});
const node = process.execPath;
const shim = join(root, 'bin/cordon');
// The floor for any Node program that runs a command: load child_process, spawn with pipes,
// wait for exit. cordon cannot start faster than this.
const floor =
  "require('node:child_process').spawn('true', { stdio: ['ignore', 'pipe', 'pipe'] }).on('exit', () => {})";
const candidates = [
  ['node -e 0', [node, '-e', '0']],
  ['node spawn-true floor', [node, '-e', floor]],
  ['npm shim --version', [node, shim, '--version']],
  ['npm shim -- true', [node, shim, '--backend', 'none', '--', 'true']],
  [
    'npm shim -- true, no compile cache',
    ['env', 'NODE_DISABLE_COMPILE_CACHE=1', node, shim, '--backend', 'none', '--', 'true'],
  ],
  ['npm shim bwrap -- true', [node, shim, '--backend', 'bwrap', '--', 'true']],
];
// CORDON_BENCH_BEFORE=<checkout with a built dist/> adds that tree's bin/cordon for a before/after.
const before = process.env['CORDON_BENCH_BEFORE'];
if (before)
  candidates.push([
    'before: npm shim -- true',
    [node, join(before, 'bin/cordon'), '--backend', 'none', '--', 'true'],
  ]);
const exes = [
  ['SEA snapshot', '.dist-sea/out/cordon-linux-x64'],
  ['SEA code cache', '.dist-sea/var-cc/cordon-linux-x64'],
  ['SEA plain', '.dist-sea/var-plain/cordon-linux-x64'],
];
for (const [label, rel] of exes) {
  const exe = join(root, rel);
  if (!existsSync(exe)) continue;
  candidates.push([`${label} --version`, [exe, '--version']]);
  candidates.push([`${label} -- true`, [exe, '--backend', 'none', '--', 'true']]);
}
if (!existsSync(join(root, 'dist/cli.cjs'))) {
  console.error('dist/cli.cjs is missing: run npm run build first');
  process.exit(1);
}

if (values.instructions) {
  console.log(`node ${process.version}; instructions of the command's own process (valgrind callgrind)`);
  let baseIr;
  for (const [label, argv] of candidates) {
    if (label.includes('no compile cache')) continue;
    spawnSync(argv[0], argv.slice(1), { stdio: 'ignore' }); // warm caches (compile cache, koffi dir)
    const out = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', ...argv], {
      encoding: 'utf8',
    });
    const ir = Number(/Collected : (\d+)/.exec(out.stderr)?.[1]);
    baseIr ??= ir;
    console.log(`${label.padEnd(40)} ${(ir / 1e6).toFixed(1).padStart(8)} M  ${(ir / baseIr).toFixed(2)}`);
  }
  process.exit(0);
}

const quote = (a) => (/^[\w./=:-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
const tmp = mkdtempSync(join(tmpdir(), 'cordon-bench-'));
const jsonFile = join(tmp, 'hyperfine.json');
console.log(
  `node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const args = [
  '-N',
  '--warmup',
  values.warmup,
  '-r',
  values.runs,
  '--export-json',
  jsonFile,
  '--style',
  'none',
];
for (const [label, argv] of candidates) args.push('-n', label, argv.map(quote).join(' '));
console.log(`hyperfine ${args.map(quote).join(' ')}`);
const hf = spawnSync('hyperfine', args, { stdio: ['ignore', 'ignore', 'inherit'] });
if (hf.error) {
  console.error('hyperfine is not installed: apt-get install hyperfine');
  process.exit(1);
}
const { results } = JSON.parse(readFileSync(jsonFile, 'utf8'));
rmSync(tmp, { recursive: true, force: true });
const base = results[0];
const ms = (s) => (s * 1000).toFixed(1).padStart(7);
console.log(
  `\n${'command'.padEnd(40)} ${'median'.padStart(7)} ${'mean'.padStart(7)} ${'min'.padStart(7)}  user+sys  ratio(median)  ratio(cpu)`,
);
for (const r of results) {
  const cpu = r.user + r.system;
  console.log(
    `${r.command.padEnd(40)} ${ms(r.median)} ${ms(r.mean)} ${ms(r.min)}  ${ms(cpu)}  ${(r.median / base.median).toFixed(2).padStart(12)}  ${(cpu / (base.user + base.system)).toFixed(2).padStart(10)}`,
  );
}

// Peak RSS of each executable and of the npm path (GNU time's %M, in KiB).
if (existsSync('/usr/bin/time')) {
  console.log('\npeak RSS (/usr/bin/time -f %M, median of 5):');
  for (const [label, argv] of candidates) {
    if (label.includes('no compile cache')) continue;
    const samples = [];
    for (let i = 0; i < 5; i++) {
      const out = spawnSync('/usr/bin/time', ['-f', '%M', ...argv], { encoding: 'utf8' });
      samples.push(Number(out.stderr.trim().split('\n').pop()));
    }
    samples.sort((a, b) => a - b);
    console.log(`  ${label.padEnd(38)} ${(samples[2] / 1024).toFixed(1)} MiB`);
  }
}

// koffi's share: the same work main.ts does on Linux, timed inside a fresh process.
if (process.platform === 'linux') {
  const probe = `
    const t0 = process.hrtime.bigint();
    const koffi = require(${JSON.stringify(join(root, 'node_modules/koffi'))});
    const t1 = process.hrtime.bigint();
    const libc = koffi.load('libc.so.6');
    const prctl = libc.func('int prctl(int, unsigned long, unsigned long, unsigned long, unsigned long)');
    libc.func('int fcntl(int fd, int cmd, int arg)');
    prctl(36, 1, 0, 0, 0);
    const t2 = process.hrtime.bigint();
    console.log(Number(t1 - t0) / 1e6, Number(t2 - t1) / 1e6);`;
  const loads = [];
  const calls = [];
  for (let i = 0; i < 15; i++) {
    const [a, b] = execFileSync(node, ['-e', probe], { encoding: 'utf8' }).trim().split(' ').map(Number);
    loads.push(a);
    calls.push(b);
  }
  const med = (xs) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)].toFixed(1);
  console.log(
    `\nkoffi in a fresh Node (median of 15): require('koffi') ${med(loads)} ms, load libc + declare + prctl ${med(calls)} ms`,
  );
}
