#!/usr/bin/env bash
# Start-up cost of a sandboxed no-op, in one run: `cordon -- true` (auto backend, bwrap here),
# `cordon --backend none -- true`, `node -e 0`, and raw bwrap with the namespaces cordon uses.
# Needs hyperfine (apt-get install hyperfine). Prints hyperfine's table; asserts nothing.
set -eu
cd "$(dirname "$0")/.."
NODE=${NODE:-node}
hyperfine -N --warmup 5 --runs ${RUNS:-30} \
  "$NODE -e 0" \
  "$NODE bin/cordon -q --backend none -- true" \
  "$NODE bin/cordon -q -- true" \
  "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent true"
