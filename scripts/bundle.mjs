// esbuild settings shared by `npm run build` (dist/cli.js, dist/index.js: ESM, koffi external,
// loaded from node_modules) and `npm run dist` (one CommonJS file per single executable: koffi
// bundled, its native part taken from a SEA asset). Each output is ONE file: start-up reads and
// compiles one script; lazily needed code (doctor, explain, ora, chalk) sits in lazy wrappers
// inside it instead of in chunks that cost a file read each.
import { readFileSync } from 'node:fs';
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

/** dist/cli.js and dist/index.js for the npm package (and bin/cordon in the repository). */
export async function bundleNpm() {
  const esm = {
    ...common(),
    format: 'esm',
    external: ['koffi'],
    // Bundled CommonJS dependencies call require(); give the ESM output a real one.
    banner: {
      js: "import { createRequire as __cordonCreateRequire } from 'node:module'; const require = __cordonCreateRequire(import.meta.url);",
    },
  };
  await build({ ...esm, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist' });
  await build({ ...esm, entryPoints: { index: 'src/index.ts' }, outdir: 'dist' });
}

/**
 * One CommonJS script for a single executable. `koffiPackage` is the platform package whose
 * koffi.node the executable carries as the asset 'koffi.node' (e.g. @koromix/koffi-linux-x64);
 * every other @koromix/koffi-* package becomes an empty module.
 */
export async function bundleSea({ outfile, koffiPackage }) {
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
  await build({
    ...common(),
    format: 'cjs',
    entryPoints: ['src/cli/sea-main.ts'],
    outfile,
    plugins: [seaKoffi],
    // koffi's loader and our sources read import.meta.url only on paths a SEA never takes.
    define: { ...common().define, 'import.meta.url': '__cordonMetaUrl' },
    banner: { js: "var __cordonMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
}
