#!/usr/bin/env bash
# Starts the win-x64 executable under Wine and runs one command (API plumbing only: Wine
# enforces none of Windows' isolation). Wine 8 cannot run Node 24, so build the Node 22 variant:
#   node scripts/dist.mjs --targets win-x64 --win-node 22 --out .dist-sea/wine
#   scripts/wine-smoke-exe.sh .dist-sea/wine/cordon-win-x64.exe
# Wine's console cannot write to Linux pipes reliably: results go to files.
set -euo pipefail
exe=$(realpath "${1:-.dist-sea/wine/cordon-win-x64.exe}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
cd "$work"
wine winecfg /v win10 >/dev/null 2>&1 # Node refuses the default Windows 7 version
wine "$exe" --version >version.txt 2>version.err
wine "$exe" --json --backend none -- cmd /c echo hello-from-wine >run.json 2>run.err
echo "version: $(tr -d '\r' <version.txt)"
grep -q '"status":"exited"' run.json && grep -q 'hello-from-wine' run.json && echo "run: ok" || {
  echo "run: FAILED"; cat run.json run.err; exit 1; }
