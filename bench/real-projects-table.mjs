// Summarizes bench/real-projects.sh logs: per project and mode, the exit statuses, the
// pass/fail counts the suite printed, and the median wall and CPU time, with the ratio to bare.
// CPU: bare = the outer /usr/bin/time (it waits for the whole tree); under cordon the outer
// time sees only cordon's own process (the sandboxed tree is reaped inside bubblewrap's pid
// namespace), so CPU = outer + the inner /usr/bin/time around the command.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '/var/tmp/real-projects-logs';
const runs = new Map();

function counts(text) {
  const num = (re) => {
    const all = [...text.matchAll(re)];
    return all.length === 0 ? 0 : Number(all[all.length - 1][1]);
  };
  if (/\d+ passing \(/.test(text)) {
    return `${num(/(\d+) passing/g)} pass, ${num(/(\d+) failing/g)} fail, ${num(/(\d+) pending/g)} pending`;
  }
  if (/ℹ pass \d+/.test(text)) {
    return `${num(/ℹ pass (\d+)/g)} pass, ${num(/ℹ fail (\d+)/g)} fail, ${num(/ℹ skipped (\d+)/g)} skip`;
  }
  const py = [...text.matchAll(/^.*\d+ (?:passed|failed).* in [\d.]+s.*$/gm)].pop()?.[0];
  if (py) {
    const get = (re) => py.match(re)?.[1] ?? 0;
    return `${get(/(\d+) passed/)} pass, ${get(/(\d+) failed/)} fail, ${get(/(\d+) skipped/)} skip, ${get(/(\d+) errors?/)} error`;
  }
  if (/^=== RUN/m.test(text)) {
    const c = (re) => (text.match(re) ?? []).length;
    return `${c(/^\s*--- PASS/gm)} pass, ${c(/^\s*--- FAIL/gm)} fail, ${c(/^\s*--- SKIP/gm)} skip`;
  }
  return 'no summary';
}

for (const name of readdirSync(dir)) {
  const m = name.match(/^(.+)\.([\w-]+)\.\d+\.log$/);
  if (!m) continue;
  const text = readFileSync(join(dir, name), 'utf8');
  const outer = text.match(/^OUTER (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$/m);
  const inner = [...text.matchAll(/^INNER (\d+) ([\d.]+) ([\d.]+) ([\d.]+)$/gm)].pop();
  if (!outer) continue;
  const bare = m[2].startsWith('bare');
  const cpu =
    Number(outer[3]) + Number(outer[4]) + (bare || !inner ? 0 : Number(inner[3]) + Number(inner[4]));
  const key = `${m[1]}|${m[2]}`;
  if (!runs.has(key)) runs.set(key, []);
  runs.get(key).push({ exit: Number(outer[1]), wall: Number(outer[2]), cpu, counts: counts(text) });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rows = [
  '| project | mode | runs | exit | counts | median wall s | median CPU s | wall ratio | CPU ratio |',
];
rows.push('|---|---|---|---|---|---|---|---|---|');
for (const key of [...runs.keys()].sort()) {
  const [project, mode] = key.split('|');
  const r = runs.get(key);
  const base = runs.get(`${project}|${mode.endsWith('-65534') ? 'bare-65534' : 'bare'}`);
  const wall = median(r.map((x) => x.wall));
  const cpu = median(r.map((x) => x.cpu));
  const ratio = (v, f) => (base && !mode.startsWith('bare') ? (v / median(base.map(f))).toFixed(2) : '');
  rows.push(
    `| ${project} | ${mode} | ${r.length} | ${[...new Set(r.map((x) => x.exit))].join('/')} | ${[...new Set(r.map((x) => x.counts))].join(' / ')} | ${wall.toFixed(2)} | ${cpu.toFixed(2)} | ${ratio(wall, (x) => x.wall)} | ${ratio(cpu, (x) => x.cpu)} |`,
  );
}
console.log(rows.join('\n'));
