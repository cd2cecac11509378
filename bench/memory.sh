#!/usr/bin/env bash
# bench/memory.sh — peak memory per row of pollfit's paths on one input.
#
#   bench/memory.sh ROWS [PATHS]     (PATHS: default "plain censored segmented plan plan-seg")
#
# Generates (once, cached in $BENCH_DIR, default /tmp/pollfit-memory) the
# payments fixture of ROWS rows as Parquet with fixtures/gen, builds
# pollfit, and runs each path once under /usr/bin/time, printing its peak
# resident set size, that per row, the same net of a 1,000-row run of the
# path (the process's own ~35 MiB), and its wall and user CPU seconds.
# The bound: 16 bytes a row (docs/performance.md, Memory).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:?usage: bench/memory.sh ROWS [PATHS]}
paths=${2:-plain censored segmented plan plan-seg}
DIR=${BENCH_DIR:-/tmp/pollfit-memory}
mkdir -p "$DIR"
go build -o "$DIR/pollfit" .
for n in "$rows" 1000; do
	[ -f "$DIR/p$n.parquet" ] || go run ./fixtures/gen -n "$n" -o "$DIR/p$n.parquet"
done
args() { # path file
	local c="-i $2 -c settle_s" p="--status status --pending pending"
	case $1 in
	plain) echo "fit $c -o /dev/null" ;;
	censored) echo "fit $c $p -o /dev/null" ;;
	segmented) echo "fit $c $p --segment method -o /dev/null" ;;
	plan) echo "plan $c $p --budget 30" ;;
	plan-seg) echo "plan $c $p --budget 30 --segment method" ;;
	*) echo "unknown path $1" >&2; exit 2 ;;
	esac
}
peak() { # path file: peak RSS in KiB, wall and user CPU seconds
	# shellcheck disable=SC2046
	/usr/bin/time -f "%M %e %U" -o "$DIR/time.txt" "$DIR/pollfit" $(args "$1" "$2") -q >/dev/null 2>"$DIR/err.txt" || {
		cat "$DIR/err.txt" >&2
		exit 1
	}
	cat "$DIR/time.txt"
}
printf '%-10s %10s %9s %12s %8s %8s\n' path "peak MiB" "B/row" "net B/row" wall user
for p in $paths; do
	read -r kb s u < <(peak "$p" "$DIR/p$rows.parquet")
	read -r base _ < <(peak "$p" "$DIR/p1000.parquet")
	awk -v p="$p" -v kb="$kb" -v base="$base" -v n="$rows" -v s="$s" -v u="$u" \
		'BEGIN { printf "%-10s %10.0f %9.1f %12.1f %7.1fs %7.1fs\n", p, kb/1024, kb*1024/n, (kb-base)*1024/n, s, u }'
done
