#!/usr/bin/env bash
# bench/plan_vs_fit.sh — CPU time (user + system) of plan, sweep and
# report against fit on the same payments rows and flags, this tree's
# build beside another's, runs interleaved.
#
#   bench/plan_vs_fit.sh [SIZES]        (default "1000 100000 1000000")
#
# Environment:
#   RUNS       runs of each command and build (default 3); medians and
#              ranges are printed
#   BASE       a git revision built beside this tree (default main; "" for
#              none), from `git archive`, so that the two run side by side
#   CMDS       the commands (default "fit plan"; also sweep, report)
#   BENCH_DIR  where the builds and inputs go (default /tmp/pollfit-planfit)
#
# The inputs are fixtures/gen's payments rows (CSV), made once. Every
# command reads them with --status status --pending pending -c settle_s
# --horizon 15m; plan adds --budget 152 (the brief's "now"), sweep 10
# budgets around it (--budgets 40..400:10), report --budget 152 (its
# sweep: 9 budgets from a quarter to four times it). CPU time is bash's
# `time` (getrusage of the child, to the millisecond). Issue goals: plan
# at most 3× fit; sweep at most 3× plan; report at most 2× plan.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-1000 100000 1000000}
RUNS=${RUNS:-3}
BASE=${BASE-main}
CMDS=${CMDS:-fit plan}
DIR=${BENCH_DIR:-/tmp/pollfit-planfit}
mkdir -p "$DIR"

builds=new
go build -o "$DIR/pollfit-new" .
if [ -n "$BASE" ]; then
	rm -rf "$DIR/base-src"
	mkdir -p "$DIR/base-src"
	git archive "$BASE" | tar -x -C "$DIR/base-src"
	(cd "$DIR/base-src" && go build -o "$DIR/pollfit-base" .)
	builds="base new"
fi
for n in $sizes; do
	[ -f "$DIR/p$n.csv" ] || go run ./fixtures/gen -n "$n" -o "$DIR/p$n.csv"
done

args() { # command file
	local c="-i $2 --status status --pending pending -c settle_s --horizon 15m --quiet"
	case $1 in
	fit) echo "fit $c" ;;
	plan) echo "plan $c --budget 152" ;;
	sweep) echo "sweep $c --budgets 40..400:10" ;;
	report) echo "report $c --budget 152 -o $DIR/report.html" ;;
	*) echo "unknown command $1" >&2; exit 2 ;;
	esac
}

cpu() { # build command file: prints user+system seconds
	local TIMEFORMAT='%3U %3S'
	# shellcheck disable=SC2046
	{ time "$DIR/pollfit-$1" $(args "$2" "$3") >/dev/null 2>"$DIR/err.txt"; } 2>"$DIR/time.txt" || {
		echo "pollfit-$1 $2 on $3 failed:" >&2
		cat "$DIR/err.txt" >&2
		exit 1
	}
	awk '{ printf "%.3f\n", $1 + $2 }' "$DIR/time.txt"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; RUNS=$RUNS${BASE:+; base $BASE ($(git rev-parse --short "$BASE"))}; new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo '+changes')"
rm -f "$DIR"/cpu.*
for n in $sizes; do
	for r in $(seq "$RUNS"); do
		for c in $CMDS; do
			for b in $builds; do
				cpu "$b" "$c" "$DIR/p$n.csv" >>"$DIR/cpu.$n.$c.$b"
			done
		done
	done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
range() { sort -n "$1" | awk 'NR==1 {lo=$1} {hi=$1} END {printf "%.3f–%.3f", lo, hi}'; }
printf '%-9s %-7s %-5s %9s %13s %s\n' rows command build "CPU s" range "ratio (medians)"
for n in $sizes; do
	for c in $CMDS; do
		for b in $builds; do
			f="$DIR/cpu.$n.$c.$b"
			m=$(median "$f")
			ratio=""
			case $c in
			plan) [ -f "$DIR/cpu.$n.fit.$b" ] && ratio=$(awk -v a="$m" -v b="$(median "$DIR/cpu.$n.fit.$b")" 'BEGIN {printf "%.1f× fit", a/b}') ;;
			sweep | report) [ -f "$DIR/cpu.$n.plan.$b" ] && ratio=$(awk -v a="$m" -v b="$(median "$DIR/cpu.$n.plan.$b")" 'BEGIN {printf "%.1f× plan", a/b}') ;;
			esac
			printf '%-9s %-7s %-5s %9.3f %13s %s\n' "$n" "$c" "$b" "$m" "$(range "$f")" "$ratio"
		done
	done
done
