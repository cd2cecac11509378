#!/bin/sh
# bench/duckdb.sh — docs/scale.md's DuckDB recipe end to end: DuckDB
# aggregates the raw rows into bins, pollfit plans on the bins.
#
#   bench/duckdb.sh [ROWS [RUNS]]      (defaults: 10000000 rows, 3 runs)
#
# Makes the payments table of scale/duckdb (Generate: three methods,
# lognormal settle times, instant settles, pending rows censored at their
# age) in a DuckDB file, and the same rows as Parquet, in $BENCH_DIR
# (default /tmp/pollfit-duckdb; 100M rows take about 3 GB there), then
# times, RUNS times each, with wall and CPU time and peak memory from
# /usr/bin/time:
#   - duckdb-bins: the log-spaced recipe, run as the doc writes it, into
#     bins.csv (the DuckDB file opened, the query, the CSV written);
#   - plan-binned: pollfit plan --binned --segment method on bins.csv;
#   - plan-raw: pollfit plan on the raw rows (Parquet, --start/--end,
#     --status, --in-sample), the same budget: what the bins replace.
# Then it pipes the recipe into pollfit plan --binned --input - once,
# checks that it plans what the bins file gave, and prints the schedules
# of the raw rows and of the bins side by side.
# Needs cgo and a C compiler (the DuckDB driver); the first build of
# scale/duckdb downloads the driver (32 MB) and links DuckDB (~30 s).
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
ROWS=${1:-10000000}
RUNS=${2:-3}
DIR=${BENCH_DIR:-/tmp/pollfit-duckdb}
BUDGET=60
mkdir -p "$DIR"
DB=$DIR/payments-$ROWS.duckdb
RAW=$DIR/payments-$ROWS.parquet
BINS=$DIR/bins-$ROWS.csv

(cd scale/duckdb && go build -o "$DIR/recipes" .)
go build -o "$DIR/pollfit" .

# run NAME CMD...: RUNS timed runs, then the medians.
run() {
	timed_runs "$@" || return 1
	echo "$1 $(medians)" | awk -v rows="$ROWS" '{printf "%-12s wall %7.2f s  %6.1f M rows/s  cpu %7.2f s  %6.0f MB peak\n", $1, $2, rows/$2/1e6, $4, $3/1024}'
}

echo "rows $ROWS, runs $RUNS (medians), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ ! -s "$DB" ] || [ ! -s "$RAW" ]; then
	rm -f "$DB" "$RAW"
	/usr/bin/time -f 'generate     wall %e s  cpu %U+%S s  %M KB peak' -o "$DIR/gen.time" "$DIR/recipes" gen -db "$DB" -rows "$ROWS" -parquet "$RAW"
	cat "$DIR/gen.time"
fi
ls -l "$DB" "$RAW" | awk '{printf "%s %.0f MB\n", $NF, $5/1e6}'
run duckdb-bins "$DIR/recipes" bins -db "$DB" -doc docs/scale.md -recipe log-spaced -o "$BINS"
echo "bins: $(($(wc -l <"$BINS") - 1)) rows"
run plan-binned "$DIR/pollfit" plan --input "$BINS" --binned --segment method --budget $BUDGET -q -o "$DIR/bins-file.json"
RAWARGS="--input $RAW --start created_at --end settled_at --status status --pending pending --exclude-status cancelled --observed-at 2025-03-02T01:00:00Z --segment method"
# shellcheck disable=SC2086 # RAWARGS is split on purpose
run plan-raw "$DIR/pollfit" plan $RAWARGS --in-sample --budget $BUDGET -q -o "$DIR/raw.json"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"

# The pipe, once: the same schedules as from the file.
"$DIR/recipes" bins -db "$DB" -doc docs/scale.md -recipe log-spaced |
	"$DIR/pollfit" plan --input - --binned --segment method --budget $BUDGET -q -o "$DIR/bins.json" >/dev/null
if cmp -s "$DIR/bins.json" "$DIR/bins-file.json"; then
	echo "recipe | pollfit plan --binned --input -: the same schedules as from bins.csv"
else
	echo "recipe | pollfit plan --binned --input -: other schedules than from bins.csv" >&2
	exit 1
fi
specs() { grep -o '"spec": *"[^"]*"' "$1" | sed 's/"spec": *//'; }
specs "$DIR/raw.json" >"$DIR/raw.specs"
specs "$DIR/bins.json" >"$DIR/bins.specs"
echo "schedules (all items, then card, momo, wallet): raw rows | bins"
paste -d'|' "$DIR/raw.specs" "$DIR/bins.specs" | awk -F'|' '{print ($1 == $2 ? "  same  " : "  differ") "  " $1 "  |  " $2}'
