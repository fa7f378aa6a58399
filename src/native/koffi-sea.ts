// Single-executable build only: replaces koffi.ts. `require` here is the bundle's own (CommonJS
// output): esbuild inlines koffi and evaluates it on the first call, not at start-up. The build
// maps koffi's platform package (@koromix/koffi-<os>-<arch>) to loadNativeAsset('koffi.node').
import type { Koffi } from './koffi.ts';

export type { Koffi };

export function loadKoffi(): Koffi {
  return require('koffi');
}
