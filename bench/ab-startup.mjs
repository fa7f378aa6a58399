// A/B start-up in CPU time (prints figures, asserts nothing): the same commands through two
// checkouts' bin/cordon, interleaved in rounds, CPU time of the whole process tree (user+sys of
// the children, from bash's `times`) — robust to a busy machine, unlike wall clock.
//   node bench/ab-startup.mjs A_DIR B_DIR [--rounds 6] [--per 10]
// Each checkout must be built (npm run build). Commands: --version, --backend none -- true,
// and -- true (bwrap, when it can run here).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '6' }, per: { type: 'string', default: '10' } },
});
if (positionals.length !== 2) {
  console.error('usage: node bench/ab-startup.mjs A_DIR B_DIR [--rounds 6] [--per 10]');
  process.exit(2);
}
const node = process.execPath;
const rounds = Number(values.rounds);
const per = Number(values.per);
const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
const cases = [
  ['node -e 0', () => [node, '-e', '0']],
  ['--version', (dir) => [node, join(dir, 'bin/cordon'), '--version']],
  ['--backend none -- true', (dir) => [node, join(dir, 'bin/cordon'), '--backend', 'none', '--', 'true']],
  ['-- true (bwrap)', (dir) => [node, join(dir, 'bin/cordon'), '--backend', 'bwrap', '--', 'true']],
];

/** CPU seconds (user+sys) of `per` runs of argv, from bash's `times` (children line). */
function cpuOf(argv) {
  const script = `for i in $(seq ${per}); do ${argv.map(quote).join(' ')} >/dev/null 2>&1; done; times`;
  const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' }).stdout.trim().split('\n');
  const secs = (t) => {
    const m = /(\d+)m([\d.]+)s/.exec(t);
    return m ? Number(m[1]) * 60 + Number(m[2]) : Number.NaN;
  };
  const [u, s] = out[out.length - 1].split(/\s+/);
  return (secs(u) + secs(s)) / per;
}

const totals = new Map();
for (let r = 0; r < rounds; r++) {
  for (const [name, make] of cases) {
    for (const [label, dir] of [
      ['A', positionals[0]],
      ['B', positionals[1]],
    ]) {
      if (name === 'node -e 0' && label === 'B') continue;
      const key = `${name} ${name === 'node -e 0' ? '' : label}`.trim();
      const list = totals.get(key) ?? [];
      list.push(cpuOf(make(dir)));
      totals.set(key, list);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(totals.get('node -e 0'));
console.log(
  `A = ${positionals[0]}\nB = ${positionals[1]}\n${rounds} rounds × ${per} runs, CPU ms per run (median of rounds)`,
);
for (const [key, list] of totals)
  console.log(
    `${key.padEnd(32)} ${(median(list) * 1000).toFixed(1).padStart(7)} ms  ${(median(list) / base).toFixed(2)}× node -e 0`,
  );
for (const [name] of cases.slice(1)) {
  const a = median(totals.get(`${name} A`));
  const b = median(totals.get(`${name} B`));
  console.log(`${name.padEnd(32)} B/A = ${(b / a).toFixed(3)}`);
}
