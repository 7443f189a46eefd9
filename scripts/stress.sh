#!/usr/bin/env bash
# make test-stress: N runs (default 5) of the Rust, Python and Node suites, one after the other,
# with one busy process per core beside them at the suites' own priority, so that a test that
# depends on timing fails here rather than one CI run in ten. Nothing is rebuilt: the Makefile
# builds the suites once before (a run that compiles anything is reported). The Python
# packaging tests (tests/python/test_packaging.py) are left out: each builds wheels, which is
# what they test; make test runs them.
#
# Every run's output goes to target/stress/run-<i>/<suite>.log; a suite's log is kept only when
# it failed, with its failing tests listed in target/stress/failures.txt. Ends with the count of
# runs and failures; exits 1 when any test failed.
#
# Environment: N, CARGO, PY (the venv's python), NODE.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${N:-5}
cargo=${CARGO:-cargo}
py=${PY:-.venv/bin/python}
node=${NODE:-node}
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
  [rust]="$cargo test --workspace --all-targets --no-fail-fast --color never"
  [python]="$py -m pytest tests/python --ignore=tests/python/test_packaging.py -p no:cacheprovider -q -rf"
  [node]="$node --test --test-reporter=spec tests/node/*.test.mjs"
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
for run in $(seq "$runs"); do
  mkdir -p "$out/run-$run"
  for suite in rust python node; do
    log=$out/run-$run/$suite.log
    begin=$(date +%s)
    timeout 1800 bash -c "${command[$suite]}" >"$log" 2>&1
    code=$?
    took=$(($(date +%s) - begin))
    if grep -qE '^\s+Compiling ' "$log"; then
      echo "run $run: $suite compiled something (the suites are built once, before): see $log" | tee -a "$out/failures.txt"
    fi
    if [ $code = 0 ]; then
      echo "run $run/$runs: $suite passed (${took}s)"
      rm -f "$log"
    else
      names=$(failed_tests "$suite" "$log")
      echo "run $run/$runs: $suite FAILED (exit $code, ${took}s): ${names:-see the log}" | tee -a "$out/failures.txt"
      failures=$((failures + 1))
    fi
  done
done
echo "test-stress: $runs runs of 3 suites in $(($(date +%s) - started))s with $(nproc) busy processes beside them; $failures failed"
[ $failures = 0 ] || {
  echo "failing suites' logs: $out/run-*/; the list: $out/failures.txt" >&2
  exit 1
}
