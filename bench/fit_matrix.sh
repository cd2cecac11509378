#!/bin/sh
# fit_matrix.sh times pollfit's whole fit (fit.Estimate: bandwidth, atom
# and spike tests, resolution check, KDE, KS distance) in every domain
# (log, linear, reflect) with every bandwidth rule (isj, sj, silverman,
# scott), and its Kaplan–Meier estimate, next to R's density() and
# survfit() on the same distribution (lognormal, meanlog 3, sdlog 1),
# size by size: BenchmarkEstimateMatrix and BenchmarkKaplanMeierMatrix
# (fit/bench_test.go) against bench/fit_matrix.R, each holding its values
# in memory, data generation not timed. Peers run back to back, cell by
# cell: for each size and case, R, then Go, each RUNS times (BIGRUNS at
# 10M and 100M, where a timing is one call: single calls of R varied by 2×
# in CPU between two runs), one process each. It prints one markdown row
# per cell: the medians of wall time and of CPU time (user + system, all cores:
# pollfit's parallel passes count twice on 2 cores), R/pollfit for each
# (above 1: pollfit faster) and the machine's 1-minute load average before
# each side ran; the load averages at the start and the end go above and
# below the table. On a machine shared with other jobs the wall times wait
# for a free core; the CPU times do not. An R cell that has not ended
# after LIMIT seconds is stopped and printed as "> LIMIT s (timed out)",
# which still bounds the ratio. Run from the repository root:
#
#   sh bench/fit_matrix.sh              # SIZES="1k 100k 1M 10M 100M", RUNS=3, BIGRUNS=3, LIMIT=600
#   SIZES="1k 1M" CASES="log/sj km" RUNS=5 sh bench/fit_matrix.sh
#
# Sizes: 1k 100k 1M 10M 100M. Cases: DOMAIN/RULE (log, linear, reflect ×
# isj, sj, silverman, scott) and km, the Kaplan–Meier estimate, which runs
# up to 10M (R's survfit takes a minute a call there). 100M needs about
# 6 GB (R holds its copies); the whole matrix took 45 minutes on 2 cores
# shared with other jobs (load average 6–13).
set -eu
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1k 100k 1M 10M 100M}
CASES=${CASES:-log/isj log/sj log/silverman log/scott linear/isj linear/sj linear/silverman linear/scott reflect/isj reflect/sj reflect/silverman reflect/scott km}
RUNS=${RUNS:-3}
BIGRUNS=${BIGRUNS:-3}
LIMIT=${LIMIT:-600}
command -v Rscript >/dev/null || { echo "fit_matrix.sh: Rscript not found (apt-get install r-base-core r-cran-survival)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/fit.test" ./fit

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
secs() { awk -v s="$1" 'BEGIN {if (s < 0.01) printf "%.3g ms", s*1e3; else printf "%.3g s", s}'; }
ratio() { awk -v r="$1" -v g="$2" 'BEGIN {printf "%.2g×", r/g}'; }

echo "pollfit fit.Estimate and Kaplan–Meier vs R $(Rscript -e 'cat(paste(R.version$major, R.version$minor, sep="."))'), $(nproc) cores, medians of $RUNS runs ($BIGRUNS at 10M and 100M), $(date -u '+%Y-%m-%d %H:%M UTC'), load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| n | case | R wall | pollfit wall | R / pollfit | R CPU | pollfit CPU | R / pollfit | load (R, Go) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for size in $SIZES; do
	case $size in
	1k) n=1e3 ;; 100k) n=1e5 ;; 1M) n=1e6 ;; 10M) n=1e7 ;; 100M) n=1e8 ;;
	*) echo "fit_matrix.sh: size $size: want 1k, 100k, 1M, 10M or 100M" >&2; exit 2 ;;
	esac
	runs=$RUNS
	case $size in 10M | 100M) runs=$BIGRUNS ;; esac
	for name in $CASES; do
		case $name in
		km)
			[ "$size" = 100M ] && continue
			bench="^BenchmarkKaplanMeierMatrix\$/^n=$size\$"
			pat="KaplanMeierMatrix/n=$size-"
			;;
		*/*)
			bench="^BenchmarkEstimateMatrix\$/^n=$size\$/^${name%/*}\$/^${name#*/}\$"
			pat="EstimateMatrix/n=$size/$name-"
			;;
		*) echo "fit_matrix.sh: case $name: want DOMAIN/RULE or km" >&2; exit 2 ;;
		esac
		lr=$(load)
		# R checks LIMIT between its C calls; the outer timeout catches a call that runs on.
		if ! timeout $((LIMIT + 300)) Rscript bench/fit_matrix.R "$n" "$runs" "$name" "$LIMIT" >"$dir/r.txt" 2>"$dir/r.err"; then
			grep -q . "$dir/r.txt" && { cat "$dir/r.err" >&2; exit 1; }
			echo "$name timeout timeout" >"$dir/r.txt"
		fi
		read -r _ rsec rcpu <"$dir/r.txt"
		lg=$(load)
		"$dir/fit.test" -test.run '^$' -test.bench "$bench" \
			-test.benchtime 0.3s -test.count "$runs" >"$dir/go.txt"
		g=$(awk -v p="$pat" 'index($1, p) {print $3/1e9}' "$dir/go.txt" | median)
		gcpu=$(awk -v p="$pat" 'index($1, p) {for (i = 4; i <= NF; i++) if ($i == "cpu-ms/op") print $(i-1)/1e3}' "$dir/go.txt" | median)
		[ -n "$g" ] && [ -n "$gcpu" ] || { echo "fit_matrix.sh: no Go result for $size $name" >&2; exit 1; }
		if [ "$rsec" = timeout ]; then
			echo "| $size | $name | > $LIMIT s (timed out) | $(secs "$g") | > $(ratio "$LIMIT" "$g") | | $(secs "$gcpu") | | $lr, $lg |"
		else
			echo "| $size | $name | $(secs "$rsec") | $(secs "$g") | $(ratio "$rsec" "$g") | $(secs "$rcpu") | $(secs "$gcpu") | $(ratio "$rcpu" "$gcpu") | $lr, $lg |"
		fi
	done
done
echo
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
