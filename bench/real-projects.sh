#!/usr/bin/env bash
# Real clients, by hand (issue 16): run public projects' own test suites bare and under
# `cordon --` (default workspace profile, bubblewrap) and compare exit status, pass/fail
# counts, wall time and CPU time. See bench/real-projects.md for the set-up and the results.
#
#   bench/real-projects.sh setup                 clone + install the projects (needs the mirrors)
#   bench/real-projects.sh run MODE PROJECT N    N runs; MODE = bare | cordon
#   bench/real-projects.sh table                 summarize the logs
#
# Environment: CORDON (default: this checkout's bin/cordon), P (projects dir, default
# /var/tmp/projects — not under /tmp: the sandbox has a private /tmp), LOGS (default
# /var/tmp/real-projects-logs), CORDON_FLAGS (extra cordon flags, e.g. --backend landlock), AS_NOBODY=1 runs as uid/gid 65534 on a copy owned by 65534.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
CORDON=${CORDON:-$here/bin/cordon}
P=${P:-/var/tmp/projects}
LOGS=${LOGS:-/var/tmp/real-projects-logs}
AS_NOBODY=${AS_NOBODY:-0}
N24=/opt/cordon-ci/n24/node_modules/.bin
export PATH=$N24:$PATH
mkdir -p "$LOGS"

# project → "commit|command" (the command runs in $P/<project>)
declare -A COMMIT=(
  [express]=a3714473feb3d2908add734d340e7755fd85e0a3
  [ws]=a2f4e7c046c2112bbce6fef39a083dac77d6f0d2
  [commander.js]=ba6d13ddb4243e5913367734f8c159089ffe7834
  [click]=2c8cd3ac958a7eb316d67f2d316c27086c4c0369
  [mux]=db9d1d0073d27a0a2d9a8c1bc52aa0af4374d265
  [toml]=1e2c053f442c0ac99df1f5b56bae3feab98caa4f # v1.4.0: later ones need Go 1.21
)
declare -A MIRROR=(
  [express]=expressjs+express [ws]=websockets+ws [commander.js]=tj+commander.js
  [click]=pallets+click [mux]=gorilla+mux [toml]=BurntSushi+toml
)
cmd_of() {
  case $1 in
    express | commander.js) echo npm test ;;
    # the one test ws's own suite fails bare on Node 22 and 24 (431 !== 400) and then hangs
    ws) echo npx nyc ... mocha ... ;; # set in run(): it has a quoted argument
    click) echo env PYTHONPATH=src:$P/click-meta /usr/bin/python3 -m pytest -q -p no:cacheprovider ;;
    mux | toml) echo go test -count=1 -v ./... ;;
  esac
}

setup() {
  mkdir -p "$P"
  for n in "${!COMMIT[@]}"; do
    [ -d "$P/$n" ] || git clone -q "/work/.mirror/${MIRROR[$n]}/repo" "$P/$n"
    git -C "$P/$n" checkout -q "${COMMIT[$n]}"
  done
  for n in express ws commander.js; do (cd "$P/$n" && npm install --no-audit --no-fund >/dev/null); done
  # click's tests read its own version from package metadata; a minimal dist-info stands in
  # for an editable install (no PyPI here; Debian's flit is too old for its pyproject).
  v=$(grep -m1 '^version' "$P/click/pyproject.toml" | cut -d'"' -f2)
  mkdir -p "$P/click-meta/click-$v.dist-info"
  printf 'Metadata-Version: 2.1\nName: click\nVersion: %s\n' "$v" >"$P/click-meta/click-$v.dist-info/METADATA"
}

run() { # MODE PROJECT N
  local mode=$1 n=$2 count=$3 i log pre=()
  local tag=${TAG:-$mode}
  [ "$AS_NOBODY" = 1 ] && tag=$tag-65534 && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=/var/tmp/h16-home65534)
  read -r -a cmd <<<"$(cmd_of "$n")"
  [ "$n" = ws ] && cmd=(npx nyc --reporter=lcov --reporter=text mocha --throw-deprecation --invert --grep 'Upgrade header field value cannot be read' test/*.test.js)
  for i in $(seq 1 "$count"); do
    log=$LOGS/$n.$tag.$(date +%s%N).log
    local wrap=()
    [ "$mode" = cordon ] && wrap=(node "$CORDON" --max-output 0 ${CORDON_FLAGS:-} --)
    (cd "$P/$n" && /usr/bin/time -f 'OUTER %x %e %U %S' "${pre[@]}" "${wrap[@]}" /usr/bin/time -f 'INNER %x %e %U %S' "${cmd[@]}") >"$log" 2>&1
    echo "$log: $(grep -E '^OUTER' "$log")"
    git -c safe.directory="*" -C "$P/$n" status --porcelain --ignored=no >>"$log.git"
  done
}

case ${1:-} in
  setup) setup ;;
  run) run "$2" "$3" "${4:-3}" ;;
  table) node "$here/bench/real-projects-table.mjs" "$LOGS" ;;
  *) sed -n 2,12p "$0"; exit 2 ;;
esac
