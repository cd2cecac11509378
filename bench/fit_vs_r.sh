#!/bin/sh
# fit_vs_r.sh times pollfit's whole fit of 10,000,000 settle times
# (BenchmarkEstimate10M: log-domain KDE, ISJ bandwidth, atom test,
# resolution check) next to R's density() alone on the same distribution
# (lognormal, meanlog 3, sdlog 1; R's defaults: bw.nrd0, n = 512).
# Both hold the values in memory; data generation is not timed.
# Prints the median of RUNS runs of each. bench/fit_matrix.sh compares
# every domain and bandwidth rule with its R peer at 1k to 100M values.
# Run from the repository root:
#
#   sh bench/fit_vs_r.sh            # RUNS=5 by default
set -eu
RUNS=${RUNS:-5}
command -v Rscript >/dev/null || { echo "fit_vs_r.sh: Rscript not found (apt-get install r-base-core)" >&2; exit 1; }

r=$(Rscript -e "
set.seed(1); x <- rlnorm(1e7, 3, 1)
t <- replicate($RUNS, system.time(density(x))[['elapsed']])
cat(sprintf('%.3f', median(t)))")

go_out=$(go test ./fit -run '^$' -bench '^BenchmarkEstimate10M$' -benchtime 1x -count "$RUNS")
g=$(echo "$go_out" | awk '/^BenchmarkEstimate10M/ {print $3/1e9}' | sort -n | awk '{a[NR]=$1} END {printf "%.3f", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')

echo "median of $RUNS runs, 10,000,000 values, $(nproc) cores"
echo "R density():           ${r} s"
echo "pollfit fit.Estimate:  ${g} s"
