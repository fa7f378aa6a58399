// esbuild settings shared by `npm run build` (dist/cli.cjs, dist/index.js; koffi external,
// loaded from node_modules) and `npm run dist` (one CommonJS file per single executable: koffi
// bundled, its native part taken from a SEA asset). Each output is ONE file: start-up reads and
// compiles one script; lazily needed code (doctor, explain, ora, chalk) sits in lazy wrappers
// inside it instead of in chunks that cost a file read each.
import { existsSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';

export const root = new URL('..', import.meta.url).pathname;

export function packageVersion() {
  return JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version;
}

const common = () => ({
  bundle: true,
  platform: 'node',
  target: 'node22',
  define: { __CORDON_VERSION__: JSON.stringify(packageVersion()) },
  logLevel: 'warning',
  absWorkingDir: root,
  legalComments: 'none',
});

// CommonJS output: every lazily needed module (doctor, explain, ora, chalk, yaml) and the
// built-ins only they use (tty, ...) are evaluated on first use. In ESM output esbuild would
// hoist those built-in imports to the top and load them at start-up.
const cjs = () => ({
  ...common(),
  format: 'cjs',
  // koffi.ts and yaml.ts read import.meta.url only on paths the CommonJS bundle never takes.
  define: { ...common().define, 'import.meta.url': '__cordonMetaUrl' },
  banner: { js: "var __cordonMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
});

const esm = () => ({
  ...common(),
  format: 'esm',
  external: ['koffi'],
  // Bundled CommonJS dependencies call require(); give the ESM output a real one.
  banner: {
    js: "import { createRequire as __cordonCreateRequire } from 'node:module'; const require = __cordonCreateRequire(import.meta.url);",
  },
});

/** dist/cli.cjs (the CLI, loaded by bin/cordon) and dist/index.js (the library, ESM). */
export async function bundleNpm() {
  await build({ ...cjs(), entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.cjs', external: ['koffi'] });
  // The Landlock helper (main branch: src/backends/landlock/exec-entry.ts), started as
  // `node dist/landlock-exec.js …` by the library and by the CLI with --report.
  if (existsSync(`${root}src/backends/landlock/exec-entry.ts`)) {
    await build({
      ...esm(),
      entryPoints: { 'landlock-exec': 'src/backends/landlock/exec-entry.ts' },
      outdir: 'dist',
    });
  }
  // The unix-socket supervisor (src/backends/bwrap/unix-entry.ts), started as
  // `node dist/unix-supervisor.js …` in place of bwrap; it is also its own worker thread.
  await build({
    ...esm(),
    entryPoints: { 'unix-supervisor': 'src/backends/bwrap/unix-entry.ts' },
    outdir: 'dist',
  });
  await build({ ...esm(), entryPoints: { index: 'src/index.ts' }, outdir: 'dist' });
}

/**
 * One CommonJS script for a single executable. `koffiPackage` is the platform package whose
 * koffi.node the executable carries as the asset 'koffi.node' (e.g. @koromix/koffi-linux-x64);
 * every other @koromix/koffi-* package becomes an empty module. `nativeHashes` maps asset names
 * to their SHA-256 (the file name in the user's cache directory), so start-up hashes nothing.
 */
export async function bundleSea({ outfile, koffiPackage, nativeHashes }) {
  const seaKoffi = {
    name: 'cordon-sea-koffi',
    setup(b) {
      // src/native/koffi.ts (createRequire from node_modules) → koffi-sea.ts (bundled koffi).
      b.onResolve({ filter: /\/koffi\.ts$/ }, (args) =>
        args.importer.includes('/src/native/') ? { path: `${root}src/native/koffi-sea.ts` } : undefined,
      );
      b.onResolve({ filter: /^@koromix\/koffi-/ }, (args) => ({
        path: args.path,
        namespace: args.path === koffiPackage ? 'cordon-koffi-asset' : 'cordon-empty',
      }));
      b.onLoad({ filter: /.*/, namespace: 'cordon-koffi-asset' }, () => ({
        contents: `module.exports = require(${JSON.stringify(`${root}src/native/native-asset.ts`)}).loadNativeAsset('koffi.node');`,
        loader: 'js',
        resolveDir: root,
      }));
      b.onLoad({ filter: /.*/, namespace: 'cordon-empty' }, () => ({
        contents: 'module.exports = null;',
        loader: 'js',
      }));
    },
  };
  const base = cjs();
  await build({
    ...base,
    entryPoints: ['src/cli/sea-main.ts'],
    outfile,
    plugins: [seaKoffi],
    define: { ...base.define, __CORDON_NATIVE_HASHES__: JSON.stringify(nativeHashes) },
  });
}
