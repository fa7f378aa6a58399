// The yaml package (~260 KB), loaded on the first YAML profile file instead of at start-up.
// In the bundles `require` exists (the ESM banner's, or CommonJS's own) and esbuild turns
// require('yaml') into a lazily evaluated inlined module; running from source it does not,
// and the package is required from node_modules.
import { createRequire } from 'node:module';

type YamlModule = { parse(text: string, options: { uniqueKeys: boolean; strict: boolean }): unknown };

export function parseYamlText(text: string): unknown {
  const yaml: YamlModule =
    typeof require === 'function' ? require('yaml') : createRequire(import.meta.url)('yaml');
  return yaml.parse(text, { uniqueKeys: true, strict: true });
}
