#!/usr/bin/env bash
# Builds the macOS single executable on a Mac (x64 or arm64, whichever this Mac is):
# `node scripts/dist.mjs --targets darwin-<arch>` uses THIS Node as the base binary, removes its
# signature, injects the SEA blob (Mach-O segment NODE_SEA) and signs the result ad hoc with
# `codesign --sign -` (Apple silicon refuses to run unsigned arm64 code).
# Needs: the official Node 24 build from nodejs.org (or actions/setup-node) — not Homebrew's,
# which links against Homebrew's own libraries and would not run on other Macs — Xcode command
# line tools (codesign), and `npm ci` done. Output: .dist-sea/out/cordon-darwin-<arch>.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(uname -s)" = Darwin ] || { echo "dist-macos.sh: run this on macOS" >&2; exit 1; }
case "$(uname -m)" in
  arm64) target=darwin-arm64 ;;
  x86_64) target=darwin-x64 ;;
  *) echo "dist-macos.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
command -v codesign >/dev/null || { echo "dist-macos.sh: codesign missing: xcode-select --install" >&2; exit 1; }
node_bin=$(node -p process.execPath)
if otool -L "$node_bin" | grep -q -e /opt/homebrew -e /usr/local/opt -e /usr/local/Cellar; then
  echo "dist-macos.sh: $node_bin links Homebrew libraries; use the nodejs.org build (e.g. actions/setup-node)" >&2
  exit 1
fi
npm run build
node scripts/dist.mjs --targets "$target"
exe=".dist-sea/out/cordon-$target"
codesign --verify --verbose "$exe"
"$exe" --version
"$exe" --backend none -- /bin/echo "cordon-$target runs"
