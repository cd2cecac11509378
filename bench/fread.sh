#!/bin/sh
# bench/fread.sh — `pollfit fit` on a CSV against R data.table's fread
# reading only the column, side by side (docs/performance.md, Against
# fread).
#
#   bench/fread.sh [ROWS [RUNS]]      (defaults: 10000000 rows, 5 runs)
#
# Makes ROWS rows of the payments schema as CSV with fixtures/gen (cached
# in $BENCH_DIR, default /tmp/pollfit-ingest), then RUNS rounds of, in
# turn:
#   - `pollfit fit --input F --column settle_s --quiet` (read, fit, JSON
#     out), timed by /usr/bin/time: the whole process;
#   - `fread(F, select = "settle_s")` with data.table's default threads
#     (getDTthreads(): half the cores, 1 of 2 here), with setDTthreads(1)
#     and with every core (setDTthreads(0)), each in its own Rscript, the
#     fread call alone timed by system.time (R's start-up and
#     library(data.table) not counted).
# Prints the median wall and CPU (user + system) seconds of each and the
# ratios of fread's medians to pollfit's. The machine is shared: the load
# average before and after is printed, and CPU seconds are the steadier
# figure when it is above the core count.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
ROWS=${1:-10000000}
RUNS=${2:-5}
DIR=${BENCH_DIR:-/tmp/pollfit-ingest}
mkdir -p "$DIR"
CSV=$DIR/payments-$ROWS.csv
command -v Rscript >/dev/null || { echo "fread.sh: Rscript not found (apt-get install r-base-core r-cran-data.table)" >&2; exit 1; }
Rscript -e 'suppressMessages(library(data.table))' 2>/dev/null || { echo "fread.sh: data.table missing (apt-get install r-cran-data.table)" >&2; exit 1; }

go build -o "$DIR/gen" ./fixtures/gen
[ -s "$CSV" ] || "$DIR/gen" -n "$ROWS" -o "$CSV"
go build -o "$DIR/pollfit" .

# fread_once THREADS: one fread in a fresh R, printing "wall cpu threads".
fread_once() {
	Rscript -e "suppressMessages(library(data.table)); if ('$1' != 'default') setDTthreads($1)
invisible(gc()); t <- system.time(x <- fread('$CSV', select = 'settle_s'))
stopifnot(nrow(x) == $ROWS)
cat(t[['elapsed']], t[['user.self']] + t[['sys.self']], getDTthreads(), '\n')"
}

echo "rows $ROWS, runs $RUNS (medians), $(nproc) cores, load before $(cut -d' ' -f1-3 /proc/loadavg), $(Rscript -e 'cat(R.version.string, "data.table", format(packageVersion("data.table")))')"
: >"$DIR/fr.pollfit"
: >"$DIR/fr.default"
: >"$DIR/fr.1"
: >"$DIR/fr.0"
i=0
while [ "$i" -lt "$RUNS" ]; do
	/usr/bin/time -f '%e %U %S' -o "$DIR/time1" "$DIR/pollfit" fit --input "$CSV" --column settle_s --quiet >/dev/null 2>"$DIR/stderr" || {
		cat "$DIR/stderr" >&2
		exit 1
	}
	awk '{print $1, $2 + $3}' "$DIR/time1" >>"$DIR/fr.pollfit"
	for th in default 1 0; do
		fread_once "$th" >>"$DIR/fr.$th"
	done
	i=$((i + 1))
done
pw=$(awk '{print $1}' "$DIR/fr.pollfit" | med)
pc=$(awk '{print $2}' "$DIR/fr.pollfit" | med)
printf '%-42s wall %6.2f s  cpu %6.2f s\n' "pollfit fit (read + fit + JSON)" "$pw" "$pc"
for th in default 1 0; do
	fw=$(awk '{print $1}' "$DIR/fr.$th" | med)
	fc=$(awk '{print $2}' "$DIR/fr.$th" | med)
	n=$(awk '{print $3}' "$DIR/fr.$th" | med)
	printf '%-42s wall %6.2f s  cpu %6.2f s  fread/pollfit: wall %.2fx, cpu %.2fx\n' \
		"fread select=settle_s, threads $th ($n)" "$fw" "$fc" "$(echo "$fw $pw" | awk '{print $1/$2}')" "$(echo "$fc $pc" | awk '{print $1/$2}')"
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
