// First step of `npm test` and `npm install` (prepare): stop at once, with one line naming the
// Node.js version cordon needs and how to get it, instead of failing later inside vitest or
// the build on an old Node. Plain JavaScript that any Node can run.
import { createRequire } from 'node:module';

const { nodeVersionProblem } = createRequire(import.meta.url)('../bin/node-check.cjs');
const what = process.argv[2] || 'cordon';
const problem = nodeVersionProblem(process.version, process.execPath, process.platform, process.arch);
if (problem) {
  process.stderr.write(`${what}: ${problem}\n`);
  process.exit(1);
}
