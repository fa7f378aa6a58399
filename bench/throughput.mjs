#!/usr/bin/env node
// Throughput and memory of the output engine: cordon (backend none, 1 MiB budget) reading N
// bytes of output against a plain shell pipe doing the same, in one run. Prints wall time,
// the ratio, and cordon's peak RSS (GNU time's %M, which counts the largest process: cordon
// itself here). Usage: node bench/throughput.mjs [sizes...]   (default: 100MiB 1GiB 4GiB)
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const sizes = process.argv.slice(2).length ? process.argv.slice(2) : ['100MiB', '1GiB', '4GiB'];
const toBytes = (s) => {
  const m = /^(\d+)(MiB|GiB)$/.exec(s);
  return Number(m[1]) * (m[2] === 'GiB' ? 1024 ** 3 : 1024 ** 2);
};

function timed(argv) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', ...argv], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stderr.trim().split('\n').at(-1);
  const [secs, kib] = line.split(' ').map(Number);
  return { secs, rssMiB: kib / 1024, status: r.status };
}

console.log('size      baseline_s  cordon_s  ratio  cordon_peak_rss_MiB');
for (const size of sizes) {
  const bytes = toBytes(size);
  const base = timed(['sh', '-c', `head -c ${bytes} /dev/zero | cat >/dev/null`]);
  const cord = timed([
    process.execPath,
    `${root}bin/cordon`,
    '-q',
    '--backend',
    'none',
    '--max-output',
    '1MiB',
    '--',
    'head',
    '-c',
    String(bytes),
    '/dev/zero',
  ]);
  console.log(
    `${size.padEnd(9)} ${base.secs.toFixed(2).padStart(10)}  ${cord.secs.toFixed(2).padStart(8)}  ${(cord.secs / base.secs).toFixed(2).padStart(5)}  ${cord.rssMiB.toFixed(1).padStart(8)}`,
  );
}
