#!/bin/sh
# fit_matrix.sh times pollfit's whole fit (fit.Estimate: bandwidth, atom
# and spike tests, resolution check, KDE, KS distance) in every domain
# (log, linear, reflect) with every bandwidth rule (isj, sj, silverman,
# scott), and its Kaplan–Meier estimate, next to R's density() and
# survfit() on the same distribution (lognormal, meanlog 3, sdlog 1),
# size by size: BenchmarkEstimateMatrix and BenchmarkKaplanMeierMatrix
# (fit/bench_test.go) against bench/fit_matrix.R, each holding its values
# in memory, data generation not timed. For each size it runs R, then
# Go, each RUNS times (BIGRUNS at 100M), and prints one markdown row per
# case: the medians of wall time and of CPU time (user + system, all
# cores: pollfit's parallel passes count twice on 2 cores), R/pollfit for
# each (above 1: pollfit faster) and the machine's 1-minute load average
# before each side ran. On a machine shared with other jobs the wall
# times wait for a free core; the CPU times do not. Run from the
# repository root:
#
#   sh bench/fit_matrix.sh                      # SIZES="1k 100k 1M 10M 100M", RUNS=5, BIGRUNS=2
#   SIZES="1k 1M" RUNS=3 sh bench/fit_matrix.sh
#
# Sizes: 1k 100k 1M 10M 100M. Kaplan–Meier runs up to 10M (R's survfit
# takes a minute a call there). 100M needs about 6 GB (R holds its
# copies) and takes about 10 minutes on 2 cores.
set -eu
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1k 100k 1M 10M 100M}
RUNS=${RUNS:-5}
BIGRUNS=${BIGRUNS:-2}
command -v Rscript >/dev/null || { echo "fit_matrix.sh: Rscript not found (apt-get install r-base-core r-cran-survival)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/fit.test" ./fit

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
secs() { awk -v s="$1" 'BEGIN {if (s < 0.01) printf "%.3g ms", s*1e3; else printf "%.3g s", s}'; }

echo "pollfit fit.Estimate and Kaplan–Meier vs R $(Rscript -e 'cat(paste(R.version$major, R.version$minor, sep="."))'), $(nproc) cores, medians ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo
echo "| n | case | R wall | pollfit wall | R / pollfit | R CPU | pollfit CPU | R / pollfit | load (R, Go) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for size in $SIZES; do
	case $size in
	1k) n=1e3 ;; 100k) n=1e5 ;; 1M) n=1e6 ;; 10M) n=1e7 ;; 100M) n=1e8 ;;
	*) echo "fit_matrix.sh: size $size: want 1k, 100k, 1M, 10M or 100M" >&2; exit 2 ;;
	esac
	runs=$RUNS
	[ "$size" = 100M ] && runs=$BIGRUNS
	lr=$(load)
	Rscript bench/fit_matrix.R "$n" "$runs" >"$dir/r.txt"
	lg=$(load)
	bench="^Benchmark(EstimateMatrix|KaplanMeierMatrix)/n=$size(/|\$)"
	grep -q '^km ' "$dir/r.txt" || bench="^BenchmarkEstimateMatrix/n=$size/"
	"$dir/fit.test" -test.run '^$' -test.bench "$bench" \
		-test.benchtime 0.3s -test.count "$runs" >"$dir/go.txt"
	while read -r name rsec rcpu; do
		case $name in
		km) pat="KaplanMeierMatrix/n=$size-" ;;
		*) pat="EstimateMatrix/n=$size/$name-" ;;
		esac
		g=$(awk -v p="$pat" 'index($1, p) {print $3/1e9}' "$dir/go.txt" | median)
		gcpu=$(awk -v p="$pat" 'index($1, p) {for (i = 4; i <= NF; i++) if ($i == "cpu-ms/op") print $(i-1)/1e3}' "$dir/go.txt" | median)
		[ -n "$g" ] && [ -n "$gcpu" ] || { echo "fit_matrix.sh: no Go result for $size $name" >&2; exit 1; }
		ratio=$(awk -v r="$rsec" -v g="$g" 'BEGIN {printf "%.2g×", r/g}')
		cratio=$(awk -v r="$rcpu" -v g="$gcpu" 'BEGIN {printf "%.2g×", r/g}')
		echo "| $size | $name | $(secs "$rsec") | $(secs "$g") | $ratio | $(secs "$rcpu") | $(secs "$gcpu") | $cratio | $lr, $lg |"
	done <"$dir/r.txt"
done
