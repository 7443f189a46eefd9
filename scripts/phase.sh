#!/usr/bin/env bash
# One phase of `make test`, timed: runs the command, then appends its name, wall seconds and CPU
# seconds (user + system of everything it ran) to $PHASES (default target/phases.txt). A phase
# that fails prints the table so far before make stops, so a failed run shows its times too.
#
#   scripts/phase.sh NAME COMMAND...    run one phase
#   scripts/phase.sh --report           print the table of $PHASES and its total
set -uo pipefail
phases=${PHASES:-target/phases.txt}

report() {
  awk -v status="${1:-}" '
    BEGIN { printf "%-10s %8s %8s\n", "phase", "wall s", "cpu s" }
    { printf "%-10s %8.0f %8.0f%s\n", $1, $2, $3, ($4 == "failed" ? "  FAILED" : ""); wall += $2; cpu += $3 }
    END { printf "%-10s %8.0f %8.0f%s\n", "total", wall, cpu, status }
  ' "$phases"
}

if [ "${1:-}" = --report ]; then
  report
  exit 0
fi
name=$1
shift
mkdir -p "$(dirname "$phases")"
start=$(date +%s.%N)
"$@"
code=$?
end=$(date +%s.%N)
# `times`: this shell's own CPU time, then its children's (every process the command ran and
# waited for): "0m1.500s 0m0.250s".
# A builtin's output in $(...) would be a subshell's, whose children are none: through a file.
usage=$(mktemp)
times >"$usage"
cpu=$(awk 'NR == 2 { split($1 " " $2, t, "[ ms]+"); print t[1] * 60 + t[2] + t[3] * 60 + t[4] }' "$usage")
rm -f "$usage"
echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }') $cpu $([ $code = 0 ] && echo ok || echo failed)" >>"$phases"
if [ $code != 0 ]; then
  echo "make test: phase $name failed (exit $code)" >&2
  report "  (stopped at $name)" >&2
fi
exit $code
