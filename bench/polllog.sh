#!/usr/bin/env bash
# bench/polllog.sh — memory and time of reading a poll log (--id), against
# the same number of exact rows.
#
#   bench/polllog.sh [ITEMS]     (default 2191000: about 10M polls)
#
# Generates (once, cached in $BENCH_DIR, default /tmp/pollfit-polllog) the
# poll log of ITEMS payments polled with the brief's "before" schedule
# (4.56 polls an item) and the payments fixture of as many rows as the log
# has polls, both CSV, with fixtures/gen; builds pollfit; and runs, three
# times each and alternately, `pollfit fit` on the poll log (--id) and on
# the exact rows (--column settle_s), under /usr/bin/time: peak resident
# set size, that per poll row net of a 1,000-item run, wall and user CPU
# seconds, medians of the three. The bound: ingest.PollBytesPerRow, 24
# bytes a poll (docs/performance.md, Memory).
set -euo pipefail
cd "$(dirname "$0")/.."
items=${1:-2191000}
DIR=${BENCH_DIR:-/tmp/pollfit-polllog}
mkdir -p "$DIR"
go build -o "$DIR/pollfit" .
for n in "$items" 1000; do
	[ -f "$DIR/polls$n.csv" ] || go run ./fixtures/gen -n "$n" -poll-log before -o "$DIR/polls$n.csv"
done
rows=$(($(wc -l <"$DIR/polls$items.csv") - 1))
for n in "$rows" 1000; do
	[ -f "$DIR/p$n.csv" ] || go run ./fixtures/gen -n "$n" -o "$DIR/p$n.csv"
done
run() { # file args…: peak KiB, wall s, user s
	local f=$1
	shift
	/usr/bin/time -f "%M %e %U" -o "$DIR/time.txt" "$DIR/pollfit" fit -i "$f" "$@" -o /dev/null -q >/dev/null 2>"$DIR/err.txt" || {
		cat "$DIR/err.txt" >&2
		exit 1
	}
	cat "$DIR/time.txt"
}
polls() { run "$1" --id payment_id --column age_s --status status --pending pending; }
exact() { run "$1" --column settle_s --status status --pending pending; }
read -r base _ < <(polls "$DIR/polls1000.csv")
read -r ebase _ < <(exact "$DIR/p1000.csv")
: >"$DIR/runs.txt"
for _ in 1 2 3; do
	echo "polls $(polls "$DIR/polls$items.csv")" >>"$DIR/runs.txt"
	echo "exact $(exact "$DIR/p$rows.csv")" >>"$DIR/runs.txt"
done
echo "$rows poll rows of $items items; as many exact rows (payments); medians of 3"
printf '%-6s %10s %12s %8s %8s\n' input "peak MiB" "net B/row" wall user
med() { sort -n | sed -n 2p; } # the median of 3
for k in polls exact; do
	b=$base
	[ "$k" = exact ] && b=$ebase
	kb=$(grep "^$k " "$DIR/runs.txt" | cut -d' ' -f2 | med)
	s=$(grep "^$k " "$DIR/runs.txt" | cut -d' ' -f3 | med)
	u=$(grep "^$k " "$DIR/runs.txt" | cut -d' ' -f4 | med)
	awk -v k="$k" -v n="$rows" -v base="$b" -v kb="$kb" -v s="$s" -v u="$u" \
		'BEGIN { printf "%-6s %10.0f %12.1f %7.1fs %7.1fs\n", k, kb/1024, (kb-base)*1024/n, s, u }'
done
