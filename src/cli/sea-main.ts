// Entry of the single executable (Node SEA). Built with a V8 startup snapshot, the bundle's
// top level runs at build time and only the function below runs at start-up; without one
// (cross-built targets) it runs at once. process.argv is [exe, exe, ...args] in a SEA.
import { startupSnapshot } from 'node:v8';
import { cliMain } from './main.ts';

const start = (): void => {
  void cliMain(process.argv.slice(2));
};

if (startupSnapshot?.isBuildingSnapshot()) startupSnapshot.setDeserializeMainFunction(start);
else start();
