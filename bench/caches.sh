#!/usr/bin/env bash
# Sandbox cache figures (docs/caches.md), run by hand: bash bench/caches.sh
# Prints wall times (median of RUNS) for tool commands bare and under cordon's default profile.
#   npm install (lockfile, ~100 packages, offline from cache): bare vs 2nd+ sandboxed run (warm sandbox cache)
#   npm pack: bare vs sandboxed
#   go build (GOCACHE): bare warm vs sandboxed warm          (skipped without go)
#   jest (29, 40 test files): cold cache dir (what a private /tmp gives every run) vs warm
# The sandbox cache root is pointed at a scratch dir (XDG_CACHE_HOME) so nothing of the user's
# own sandbox cache is touched. Needs network for the first sandboxed npm run and for setup.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORDON="node $ROOT/bin/cordon"
RUNS=${RUNS:-5}
WORK=${WORK:-/var/tmp/cordon-bench-caches}
mkdir -p "$WORK"
export XDG_CACHE_HOME="$WORK/xdg"

ms() { date +%s%3N; }
# median of $RUNS timings of a command (after `prep`, not timed)
median() {
  local prep=$1; shift
  local times=()
  for _ in $(seq "$RUNS"); do
    eval "$prep"
    local t0; t0=$(ms)
    "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; "$@" >&2 || true; exit 1; }
    times+=($(( $(ms) - t0 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# --- npm install from cache -------------------------------------------------------------------
NPMP="$WORK/npm"
mkdir -p "$NPMP" && cd "$NPMP"
cat > package.json <<'EOF'
{ "name": "bench-npm", "version": "1.0.0", "private": true,
  "dependencies": { "execa": "^10.2.1", "ora": "^9.4.1", "yaml": "^2.9.1", "commander": "^15.1.0",
                    "chalk": "^6.0.1", "vitest": "^5.1.2" } }
EOF
[ -f package-lock.json ] || npm install --prefer-offline --ignore-scripts --no-audit --no-fund >/dev/null 2>&1
pkgs=$(node -e 'console.log(Object.keys(require("./package-lock.json").packages).length - 1)')
bare=$(median 'rm -rf node_modules' npm install --offline --no-save --ignore-scripts --no-audit --no-fund)
rm -rf "$XDG_CACHE_HOME" node_modules
t0=$(ms)
$CORDON -q --net -- npm install --prefer-offline --no-save --ignore-scripts --no-audit --no-fund >/dev/null 2>&1
first=$(( $(ms) - t0 ))
warm=$(median 'rm -rf node_modules' $CORDON -q -- npm install --offline --no-save --ignore-scripts --no-audit --no-fund)
echo "npm install ($pkgs packages): bare ${bare} ms | sandboxed 1st run (--net, cold sandbox cache) ${first} ms | sandboxed warm ${warm} ms | ratio warm/bare $(ratio "$warm" "$bare")"

bare=$(median 'rm -f ./*.tgz' npm pack)
sbx=$(median 'rm -f ./*.tgz' $CORDON -q -- npm pack)
echo "npm pack: bare ${bare} ms | sandboxed ${sbx} ms | ratio $(ratio "$sbx" "$bare")"

# --- go build cache ------------------------------------------------------------------------
if command -v go >/dev/null; then
  GOP="$WORK/go"
  mkdir -p "$GOP" && cd "$GOP"
  printf 'module example.com/bench\n\ngo 1.19\n' > go.mod
  printf 'package main\n\nimport (\n\t"encoding/json"\n\t"fmt"\n\t"net/http"\n)\n\nfunc main() { b, _ := json.Marshal(1); fmt.Println(string(b), http.StatusOK) }\n' > main.go
  export GOFLAGS=-buildvcs=false
  GOCACHE="$WORK/gocache-bare" go build -o /dev/null . # warm the bare cache
  bare=$(median 'true' env GOCACHE="$WORK/gocache-bare" go build -o /dev/null .)
  cold=$(median "rm -rf '$WORK/gocache-cold'" env GOCACHE="$WORK/gocache-cold" go build -o /dev/null .)
  $CORDON -q -- go build -o /dev/null . >/dev/null 2>&1 # warm the sandbox cache
  sbx=$(median 'true' $CORDON -q -- go build -o /dev/null .)
  echo "go build (net/http): bare warm ${bare} ms | bare cold ${cold} ms | sandboxed warm ${sbx} ms | ratio warm $(ratio "$sbx" "$bare")"
  unset GOFLAGS
fi

# --- jest: what a persistent /tmp would give -----------------------------------------------
JP="$WORK/jest"
mkdir -p "$JP" && cd "$JP"
[ -d node_modules/jest ] || {
  echo '{"name":"bench-jest","version":"1.0.0","private":true}' > package.json
  npm install --ignore-scripts --no-audit --no-fund jest@29 >/dev/null 2>&1
}
mkdir -p src
for i in $(seq 1 40); do
  printf 'const add = (a, b) => a + b;\nclass Box { #v; constructor(v) { this.#v = v; } get v() { return this.#v ?? 0; } }\nmodule.exports = { add, Box, n: %d };\n' "$i" > "src/m$i.js"
  printf 'const { add, Box, n } = require("./m%d.js");\ntest("m%d", () => { expect(add(n, 1)).toBe(%d); expect(new Box(n).v).toBe(n); });\n' "$i" "$i" "$((i + 1))" > "src/m$i.test.js"
done
# default cacheDirectory is $TMPDIR/jest_<uid>: inside the sandbox a fresh private /tmp each run
cold=$(median 'true' $CORDON -q -- npx jest --ci src)
$CORDON -q -- npx jest --ci --cacheDirectory "$JP/.jest-cache" src >/dev/null 2>&1
warm=$(median 'true' $CORDON -q -- npx jest --ci --cacheDirectory "$JP/.jest-cache" src)
bare=$(median 'true' npx jest --ci --cacheDirectory "$JP/.jest-cache-bare" src)
echo "jest (40 files): sandboxed cold cache (private /tmp) ${cold} ms | sandboxed warm cache (in the workspace) ${warm} ms | bare warm ${bare} ms | cold/warm $(ratio "$cold" "$warm")"
