// `npm run build`: regenerates the embedded built-in profiles, bundles dist/cli.cjs (the CLI,
// one file) and dist/index.js (the library, one file) with esbuild, and emits the library's
// type declarations (dist/types) with tsc -p tsconfig.build.json.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { bundleNpm, root } from './bundle.mjs';

execFileSync(process.execPath, [`${root}scripts/gen-builtin-profiles.mjs`], { stdio: 'inherit' });
rmSync(`${root}dist`, { recursive: true, force: true });
await bundleNpm();
execFileSync(
  process.execPath,
  [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`],
  { stdio: 'inherit' },
);
