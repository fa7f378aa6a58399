// Start-up cost of resource limits in CPU time (prints figures, asserts nothing): the same
// command through one checkout's bin/cordon with and without limits, interleaved in rounds,
// user+sys of the whole process tree from bash's `times` (robust to a busy machine).
//   node bench/limits-startup.mjs [DIR] [--rounds 4] [--per 8]
// Limits with a cgroup need root on a host where cordon can create one (cordon explain says).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '4' }, per: { type: 'string', default: '8' } },
});
const dir = positionals[0] ?? new URL('..', import.meta.url).pathname;
const cordon = [process.execPath, join(dir, 'bin/cordon')];
const rounds = Number(values.rounds);
const per = Number(values.per);
const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
const ALL = ['--pids', '1024', '--memory', '4G', '--cpu-time', '10m'];
const cases = [];
for (const backend of ['bwrap', 'landlock', 'none']) {
  const b = ['--backend', backend, ...(backend === 'landlock' ? ['--best-effort'] : [])];
  cases.push([`${backend}: no limits`, [...cordon, ...b, '--', 'true']]);
  cases.push([`${backend}: --file-size 1G`, [...cordon, ...b, '--file-size', '1G', '--', 'true']]);
  cases.push([`${backend}: --pids --memory --cpu-time`, [...cordon, ...b, ...ALL, '--', 'true']]);
}

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
for (let r = 0; r < rounds; r++)
  for (const [name, argv] of cases) totals.set(name, [...(totals.get(name) ?? []), cpuOf(argv)]);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${dir}\n${rounds} rounds × ${per} runs, CPU ms per run (median of rounds)`);
for (const [name] of cases)
  console.log(`  ${name.padEnd(40)} ${(median(totals.get(name)) * 1000).toFixed(1)}`);
