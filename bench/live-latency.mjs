#!/usr/bin/env node
// Live output latency: the command (node) writes a line holding its CLOCK_MONOTONIC time
// (process.hrtime) every 20 ms; this script reads cordon's stdout on a pipe and takes the same
// clock when each line arrives. Prints the median and p99 of arrival - write, and cordon's
// CPU time (user+sys, from /proc via GNU time) for the run. Low volume: safe on a shared box.
// Usage: node bench/live-latency.mjs [samples=300] [cordon flags... | --bare]
// (--bare: the same writer without cordon, the baseline for the same moment on the machine)
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const samples = Number(process.argv[2] ?? 300);
const flags = process.argv.slice(3);
const writer = `let n=0;const t=setInterval(()=>{process.stdout.write(process.hrtime.bigint()+'\\n');if(++n>=${samples})clearInterval(t)},20)`;
const bare = flags[0] === '--bare';
const argv = bare
  ? [process.execPath, '-e', writer]
  : [process.execPath, `${root}bin/cordon`, ...flags, '--', process.execPath, '-e', writer];
const child = spawn('/usr/bin/time', ['-f', 'cpu %U user %S sys', ...argv], {
  stdio: ['ignore', 'pipe', 'pipe'],
});
const lat = [];
let buf = '';
child.stdout.on('data', (chunk) => {
  const now = process.hrtime.bigint();
  buf += chunk.toString();
  const lines = buf.split('\n');
  buf = lines.pop();
  for (const l of lines) if (/^\d+$/.test(l)) lat.push(Number(now - BigInt(l)) / 1e6);
});
let err = '';
child.stderr.on('data', (c) => (err += c));
child.on('close', () => {
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(2);
  console.log(
    `samples ${lat.length}  median ${q(0.5)} ms  p99 ${q(0.99)} ms  max ${lat.at(-1).toFixed(2)} ms`,
  );
  console.log(err.trim().split('\n').slice(-2).join('\n'));
});
