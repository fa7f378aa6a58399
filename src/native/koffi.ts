// The one place koffi is loaded (every backend goes through loadKoffi, never require('koffi')).
// npm and dev path: koffi stays an external of the bundle and is required from node_modules.
// The single-executable build swaps this module for koffi-sea.ts (scripts/bundle.mjs), which
// bundles koffi's JavaScript and takes its native part from an asset inside the executable.
import { createRequire } from 'node:module';

// biome-ignore lint/suspicious/noExplicitAny: koffi's own surface is untyped here
export type Koffi = any;

export function loadKoffi(): Koffi {
  return createRequire(import.meta.url)('koffi');
}
