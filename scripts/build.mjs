// `npm run build`: regenerates the embedded built-in profiles, bundles dist/cli.cjs (the CLI,
// one file) and dist/index.js (the library, one file) with esbuild, and emits the library's
// type declarations (dist/types) with tsc -p tsconfig.build.json, then the man page (dist/man)
// and shell completions (dist/completions) from the flag table.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { bundleNpm, root } from './bundle.mjs';

execFileSync(process.execPath, [`${root}scripts/gen-builtin-profiles.mjs`], { stdio: 'inherit' });
rmSync(`${root}dist`, { recursive: true, force: true });
await bundleNpm();
execFileSync(
  process.execPath,
  [`${root}node_modules/typescript/bin/tsc`, '-p', `${root}tsconfig.build.json`],
  { stdio: 'inherit' },
);

// The man page and the shell completions, generated from the flag table by the CLI itself.
const cordon = (...args) =>
  execFileSync(process.execPath, [`${root}bin/cordon`, ...args], { encoding: 'utf8' });
mkdirSync(`${root}dist/man`, { recursive: true });
writeFileSync(`${root}dist/man/cordon.1`, cordon('man'));
mkdirSync(`${root}dist/completions`, { recursive: true });
writeFileSync(`${root}dist/completions/cordon.bash`, cordon('completion', 'bash'));
writeFileSync(`${root}dist/completions/_cordon`, cordon('completion', 'zsh'));
writeFileSync(`${root}dist/completions/cordon.fish`, cordon('completion', 'fish'));
