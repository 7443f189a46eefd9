#!/usr/bin/env bash
# make test-stress: N runs (default 5) of the Rust, Python and Node suites, one run after the
# other, the three suites of a run side by side, with one busy process per core beside them at
# the suites' own priority: a test that depends on timing fails here rather than one CI run in
# ten. (Side by side, a run takes about as long as its slowest suite, so that N=5 stays under an
# hour.) Nothing is rebuilt: the Makefile builds the suites once before (a run that compiles
# anything is reported). The Python packaging tests are left out: each builds wheels, which is
# what they test; make test runs them.
#
# Every run's output goes to target/stress/run-<i>/<suite>.log; a suite's log is kept only when
# it failed, with its failing tests listed in target/stress/failures.txt. Ends with the count of
# runs and failures; exits 1 when any test failed.
#
# Environment: N; RUST_SUITE, PY_SUITE and NODE_SUITE, the suites' commands as make test runs
# them (the Makefile gives them).
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${N:-5}
out=target/stress
rm -rf "$out"
mkdir -p "$out"
: >"$out/failures.txt"

load=()
for _ in $(seq "$(nproc)"); do
  yes >/dev/null &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT

# The command of each suite, and how its failing tests are named in its output.
declare -A command=(
  [rust]="${RUST_SUITE:?from the Makefile}"
  [python]="${PY_SUITE:?from the Makefile} -p no:cacheprovider -q -rf"
  [node]="${NODE_SUITE:?from the Makefile}"
)
failed_tests() {
  case $1 in
  rust) grep -E '^test .* \.\.\. FAILED$' "$2" | sed -E 's/^test (.*) \.\.\. FAILED$/\1/' ;;
  python) grep -E '^FAILED ' "$2" | sed -E 's/^FAILED ([^ ]*).*/\1/' ;;
  node) grep -E '^\s*✖ ' "$2" | sed -E 's/^\s*✖ (.*) \([0-9.]+m?s\)$/\1/' | sort -u ;;
  esac
}

failures=0
started=$(date +%s)
# One suite of run $1: its log, then a line "suite code seconds" in the run's results.
suite_run() {
  local run=$1 suite=$2 log=$out/run-$1/$2.log begin
  begin=$(date +%s)
  timeout 1800 bash -c "${command[$suite]}" >"$log" 2>&1
  echo "$suite $? $(($(date +%s) - begin))" >>"$out/run-$run/results"
}

for run in $(seq "$runs"); do
  mkdir -p "$out/run-$run"
  suites=()
  for suite in rust python node; do
    suite_run "$run" "$suite" &
    suites+=($!)
  done
  # These three: a bare `wait` would wait for the load too, which never ends.
  wait "${suites[@]}"
  while read -r suite code took; do
    log=$out/run-$run/$suite.log
    if grep -qE '^\s+Compiling ' "$log"; then
      echo "run $run: $suite compiled something (the suites are built once, before): see $log" | tee -a "$out/failures.txt"
    fi
    if [ "$code" = 0 ]; then
      echo "run $run/$runs: $suite passed (${took}s)"
      rm -f "$log"
    else
      names=$(failed_tests "$suite" "$log")
      echo "run $run/$runs: $suite FAILED (exit $code, ${took}s): ${names:-see the log}" | tee -a "$out/failures.txt"
      failures=$((failures + 1))
    fi
  done <"$out/run-$run/results"
done
echo "test-stress: $runs runs of 3 suites side by side in $(($(date +%s) - started))s with $(nproc) busy processes beside them; $failures failed"
[ $failures = 0 ] || {
  echo "failing suites' logs: $out/run-*/; the list: $out/failures.txt" >&2
  exit 1
}
