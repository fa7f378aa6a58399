// The CLI as bin/cordon runs it, bundled by scripts/wine-smoke.sh for node.exe under Wine.
import { cliMain } from '../../src/cli/main.ts';

await cliMain(process.argv.slice(2));
