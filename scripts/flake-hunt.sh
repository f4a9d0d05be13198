#!/usr/bin/env bash
# Runs test files again and again beside CPU hogs, as a busy CI machine would, and reports every
# failure: a test that passes only on a quiet machine is a bug (issue 35). Exits 1 if any run failed.
#   scripts/flake-hunt.sh test/hostile-peers test/cli/agent.test.ts
#   FLAKE_RUNS=10 FLAKE_HOGS=2 scripts/flake-hunt.sh <files…>     (the defaults)
# Extra arguments go to vitest (`-t "name"` for some tests of a file). The whole output of each
# failed run is kept in FLAKE_LOGS (a new folder under /tmp by default), to read the assertion.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  echo "usage: scripts/flake-hunt.sh <test files or folders…>  (FLAKE_RUNS=10, FLAKE_HOGS=2, FLAKE_LOGS=dir)" >&2
  exit 2
fi
runs="${FLAKE_RUNS:-10}"
hogs="${FLAKE_HOGS:-2}"
logs="${FLAKE_LOGS:-$(mktemp -d /tmp/flake-hunt.XXXXXX)}"
mkdir -p "$logs"
pids=()
for _ in $(seq "$hogs"); do
  yes > /dev/null &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed_runs=0
for run in $(seq "$runs"); do
  # The failed tests of this run, by file and name (vitest marks them ×), colours stripped.
  out=$(DRIVERBOX_TEST_SLOWEST=0 npx vitest run "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
  failures=$(printf '%s\n' "$out" | grep -E '^ *× |^ FAIL ' | sort -u)
  summary=$(printf '%s\n' "$out" | grep -E '^ +Tests +' | tail -1 | sed 's/^ *//')
  if [ -n "$failures" ]; then
    failed_runs=$((failed_runs + 1))
    printf '%s\n' "$out" > "$logs/run-$run.log"
    echo "run $run/$runs: FAILED ($summary), output in $logs/run-$run.log"
    printf '%s\n' "$failures" | sed 's/^/  /'
  else
    echo "run $run/$runs: passed ($summary)"
  fi
done
echo "flake-hunt: $failed_runs of $runs run(s) failed, $hogs CPU hog(s) beside them: $*"
[ "$failed_runs" -eq 0 ]
