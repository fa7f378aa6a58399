// Bundles the CLI (dist/cli.js) and the library (dist/index.js) with esbuild, with the
// built-in profiles embedded (src/profile/builtin-data.ts is regenerated first), and emits
// type declarations for the library.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
execFileSync(process.execPath, [`${root}scripts/gen-builtin-profiles.mjs`], { stdio: 'inherit' });
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  define: { __CORDON_VERSION__: JSON.stringify(pkg.version) },
  external: ['koffi'],
  banner: {
    js: "import { createRequire as __cordonCreateRequire } from 'node:module'; const require = __cordonCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  absWorkingDir: root,
};
await build({
  ...common,
  entryPoints: {
    cli: 'src/cli/main.ts',
    index: 'src/index.ts',
    'landlock-exec': 'src/backends/landlock/exec-entry.ts',
  },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
execFileSync(
  process.execPath,
  [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`],
  { stdio: 'inherit' },
);
