// CPU cost of warming a sandbox cache from a host npm cache (src/cache/seed.ts): a first copy
// into an empty destination, then a second pass with nothing missing. Run by hand:
//   node bench/cache-seed.ts <host npm cache dir, e.g. ~/.npm> [<scratch dir>]
// Prints CPU time (user+system, process.cpuUsage), not wall time: the machine may be loaded.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { seedFromHost } from '../src/cache/seed.ts';

const source = process.argv[2];
if (!source) throw new Error('usage: node bench/cache-seed.ts <host npm cache dir> [<scratch dir>]');
const scratch = mkdtempSync(join(process.argv[3] ?? '/var/tmp', 'cordon-seed-bench-'));
const tools = join(scratch, 'tools');
mkdirSync(tools, { mode: 0o700 });
const seed = {
  tool: 'npm',
  source: join(source, '_cacache'),
  target: join(tools, 'npm/_cacache'),
  targetBelowTools: ['npm', '_cacache'],
  parts: ['content-v2', 'index-v5'],
  state: join(scratch, 'seed-npm.json'),
};
const uid = process.getuid?.() ?? -1;
for (const label of ['first run (empty)', 'second run (warm)', 'third run (warm)']) {
  const before = process.cpuUsage();
  const r = seedFromHost(seed, tools, uid);
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  console.log(
    `${label}: ${r.files} files, ${(r.bytes / 1048576).toFixed(1)} MiB copied, cpu ${ms.toFixed(1)} ms (user ${(used.user / 1000).toFixed(1)}, sys ${(used.system / 1000).toFixed(1)})${r.error ? `, error ${r.error}` : ''}`,
  );
}
rmSync(scratch, { recursive: true, force: true });
