#!/usr/bin/env bash
# bench/fuzz.sh — fuzz every Fuzz target of the module in turn.
#
#   bench/fuzz.sh [MINUTES [PATTERN]]   (defaults: 10 minutes, every target)
#
# MINUTES is the whole run, divided evenly among the targets whose name
# matches the regexp PATTERN (at least 20 s each). Each target runs with
# -fuzzminimizetime 10x, at most 10 executions to minimise a new input:
# minimising, 60 s by default and done for every input that finds new
# code, ate whole runs of the targets whose executions take milliseconds
# (FuzzEstimate made 20 executions in 20 s, 265 with 10x).
# A failing input is written to the package's testdata/fuzz/FuzzX/ (commit
# it: it becomes a seed that go test runs); the script goes on with the
# other targets and exits 1 at the end if any failed, naming them.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
pattern=${2:-.}

targets=()
for pkg in $(go list ./...); do
	for name in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' | grep -E "$pattern" || true); do
		targets+=("$pkg $name")
	done
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "no fuzz target matches $pattern" >&2
	exit 2
fi
each=$(( minutes * 60 / ${#targets[@]} ))
each=$(( each < 20 ? 20 : each ))
echo "fuzzing ${#targets[@]} targets, ${each}s each"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=()
for t in "${targets[@]}"; do
	read -r pkg name <<<"$t"
	echo "== $name ($pkg)"
	status=0
	go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${each}s" -fuzzminimizetime 10x >"$log" 2>&1 || status=$?
	if [ "$status" -ne 0 ]; then
		failed+=("$name")
		grep -v 'elapsed:' "$log" | tail -n 30
	else
		grep 'elapsed:' "$log" | tail -n 1
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED: ${failed[*]}" >&2
	exit 1
fi
echo "all ${#targets[@]} targets ran ${each}s without a failure"
