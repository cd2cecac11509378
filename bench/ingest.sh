#!/bin/sh
# bench/ingest.sh — time reading settle times end to end.
#
#   bench/ingest.sh [ROWS [RUNS]]      (defaults: 10000000 rows, 5 runs)
#
# Generates ROWS rows of the payments schema (payment_id, method,
# created_at, settled_at, status, settle_s) as CSV and Parquet with
# fixtures/gen (cached in $BENCH_DIR, default /tmp/pollfit-ingest), then
# times, RUNS times each, with peak memory from /usr/bin/time:
#   - `pollfit fit --input F --column settle_s` on the CSV and the Parquet
#     file, and again with --status status --pending pending (censoring)
#     (or bench/ingestread, ingest.Read only, when pollfit does not build
#     or has no fit command);
#   - ingest.Read alone (bench/ingestread) on both;
#   - pandas.read_csv(F, usecols=['settle_s']) on the CSV.
# Prints one line per case: median wall seconds and rows/s, median CPU
# seconds (user + system) and rows per CPU-second, median peak RSS. On a
# machine shared with other jobs the CPU figures are the stable ones: on
# two idle cores, wall time is about CPU time / 2 for the parallel parts.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
ROWS=${1:-10000000}
RUNS=${2:-5}
DIR=${BENCH_DIR:-/tmp/pollfit-ingest}
mkdir -p "$DIR"
CSV=$DIR/payments-$ROWS.csv
PQ=$DIR/payments-$ROWS.parquet

go build -o "$DIR/gen" ./fixtures/gen
[ -s "$CSV" ] || "$DIR/gen" -n "$ROWS" -o "$CSV"
[ -s "$PQ" ] || "$DIR/gen" -n "$ROWS" -o "$PQ"
go build -o "$DIR/ingestread" ./bench/ingestread
HAVE_CLI=0
if go build -o "$DIR/pollfit" . 2>/dev/null && "$DIR/pollfit" fit --help >/dev/null 2>&1; then
	HAVE_CLI=1
fi

# run NAME CMD...: RUNS timed runs, then the medians.
run() {
	timed_runs "$@" || return 1
	echo "$1 $(medians)" | awk -v rows="$ROWS" '{printf "%-24s wall %6.2f s  %5.1f M rows/s  cpu %6.2f s  %5.1f M rows/cpu-s  %5.0f MB peak\n", $1, $2, rows/$2/1e6, $4, rows/$4/1e6, $3/1024}'
}

echo "rows $ROWS, runs $RUNS (medians), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$HAVE_CLI" = 1 ]; then
	run "pollfit-fit-csv" "$DIR/pollfit" fit --input "$CSV" --column settle_s --quiet
	run "pollfit-fit-parquet" "$DIR/pollfit" fit --input "$PQ" --column settle_s --quiet
	# With outcomes: pending rows right-censored, Kaplan–Meier weights.
	run "fit-csv-censored" "$DIR/pollfit" fit --input "$CSV" --column settle_s --status status --pending pending --quiet
	run "fit-parquet-censored" "$DIR/pollfit" fit --input "$PQ" --column settle_s --status status --pending pending --quiet
else
	echo "(pollfit fit not available: timing ingest.Read + fit.Estimate)"
	run "read+estimate-csv" "$DIR/ingestread" -estimate "$CSV"
	run "read+estimate-parquet" "$DIR/ingestread" -estimate "$PQ"
fi
run "ingest.Read-csv" "$DIR/ingestread" "$CSV"
run "ingest.Read-parquet" "$DIR/ingestread" "$PQ"
PY=
for py in python3 /usr/bin/python3; do # pyenv's python3 may lack the Debian package
	if "$py" -c 'import pandas' 2>/dev/null; then
		PY=$py
		break
	fi
done
if [ -n "$PY" ]; then
	run "pandas.read_csv" "$PY" -c "import pandas; pandas.read_csv('$CSV', usecols=['settle_s'])"
else
	echo "pandas missing: apt-get install -y python3-pandas"
fi
