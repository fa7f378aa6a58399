// The one Node.js version check, shared by bin/cordon and `npm test` / `npm install`
// (scripts/check-node.mjs). Written for any Node, even one far older than cordon supports,
// so an old Node gets one readable line instead of a crash deep inside a dependency.
// Keep MINIMUM equal to package.json "engines" (test/unit/node-check.test.ts checks it).
'use strict';

const MINIMUM = [22, 12, 0];

function tooOld(version) {
  const have = String(version).replace(/^v/, '').split('.').map(Number);
  for (let i = 0; i < MINIMUM.length; i++) {
    if ((have[i] || 0) !== MINIMUM[i]) return (have[i] || 0) < MINIMUM[i];
  }
  return false;
}

/** How to get a supported Node on this platform, in one clause. */
function howToGet(platform, arch) {
  if (platform === 'linux' && (arch === 'x64' || arch === 'arm64')) {
    return `npm install --prefix "$HOME/.local/node" node-linux-${arch}@24 && export PATH="$HOME/.local/node/node_modules/.bin:$PATH" (or nvm install 24, or your distribution's nodejs package)`;
  }
  return 'nvm install 24, or the installer from nodejs.org';
}

/** undefined when this Node is new enough; otherwise the one line to print. */
function nodeVersionProblem(version, execPath, platform, arch) {
  if (!tooOld(version)) return undefined;
  return `Node.js ${MINIMUM[0]}.${MINIMUM[1]} or newer is needed, this is ${version} (${execPath}); get Node 24: ${howToGet(platform, arch)}`;
}

module.exports = { MINIMUM, tooOld, nodeVersionProblem };
