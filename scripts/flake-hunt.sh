#!/usr/bin/env bash
# Runs test files again and again beside CPU hogs, as a busy CI machine would, and reports every
# failure: a test that passes only on a quiet machine is a bug (issue 35). Exits 1 if any run failed.
#   scripts/flake-hunt.sh test/hostile-peers test/cli-agent.test.ts
#   FLAKE_RUNS=10 FLAKE_HOGS=2 scripts/flake-hunt.sh <files…>     (the defaults)
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
  echo "usage: scripts/flake-hunt.sh <test files or folders…>  (FLAKE_RUNS=10, FLAKE_HOGS=2)" >&2
  exit 2
fi
runs="${FLAKE_RUNS:-10}"
hogs="${FLAKE_HOGS:-2}"
pids=()
for _ in $(seq "$hogs"); do
  yes > /dev/null &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
failed_runs=0
for run in $(seq "$runs"); do
  # The failed tests of this run, by file and name (vitest marks them ×), colours stripped.
  out=$(npx vitest run "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
  failures=$(printf '%s\n' "$out" | grep -E '^ *× |^ FAIL ' | sort -u)
  summary=$(printf '%s\n' "$out" | grep -E '^ +Tests +' | tail -1 | sed 's/^ *//')
  if [ -n "$failures" ]; then
    failed_runs=$((failed_runs + 1))
    echo "run $run/$runs: FAILED ($summary)"
    printf '%s\n' "$failures" | sed 's/^/  /'
  else
    echo "run $run/$runs: passed ($summary)"
  fi
done
echo "flake-hunt: $failed_runs of $runs run(s) failed, $hogs CPU hog(s) beside them: $*"
[ "$failed_runs" -eq 0 ]
