// Single-executable build only: replaces koffi.ts. `require` here is the bundle's own (CommonJS
// output): esbuild inlines koffi and evaluates it on the first call, not at start-up. The build
// maps koffi's platform package (@koromix/koffi-<os>-<arch>) to loadNativeAsset('koffi.node').
// The asset is loaded here first, outside koffi's own try/catch, so a refusal (unsafe cache
// directory, hash mismatch) reaches the user as itself, not as "cannot find the module".
import type { Koffi } from './koffi.ts';
import { loadNativeAsset } from './native-asset.ts';

export type { Koffi };

export function loadKoffi(): Koffi {
  loadNativeAsset('koffi.node');
  return require('koffi');
}
