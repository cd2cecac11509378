#!/bin/sh
# bench/compressed.sh — `pollfit fit` on plain, gzip and Zstandard CSV
# (docs/performance.md, Against fread, and compressed CSV).
#
#   bench/compressed.sh [RUNS [ROWS...]]   (defaults: 5 runs; 2000000 and 10000000 rows)
#
# For each ROWS, makes the payments schema as F.csv with fixtures/gen
# (cached in $BENCH_DIR, default /tmp/pollfit-ingest), compresses it with
# `gzip -6` (gzip's default level) into F.csv.gz and `zstd -3` (zstd's
# default) into F.csv.zst, checks that both decompress to F.csv, then
# runs `pollfit fit --input FILE --column settle_s --quiet` on the three
# in turn, RUNS rounds. Prints the median wall and CPU (user + system)
# seconds of each, and each compressed file's medians over the plain
# file's. The load average before and after is printed: on a shared
# 2-core machine wall times follow it, CPU seconds much less.
#
# Then the floor: each decompressor alone (bench/inflate: klauspost's
# gzip and zstd readers, which pollfit uses, and compress/gzip; beside them
# GNU gzip -dc, zstd -dc and, when installed, libdeflate-gunzip, the
# fastest gzip decoder in C), RUNS runs each, median CPU seconds, and the
# bound that follows: a compressed read costs at least its decompression's
# CPU plus the plain file's CPU, spread at best over the cores, and one
# stream is decompressed on one core (a deflate block starts where the one
# before it ends), so its wall time is at least max(decompress CPU,
# (decompress + plain CPU) / cores). Printed beside 1.5x the plain file's
# wall time (the goal for .csv.gz): on a loaded machine the plain
# wall time waits for a core, so compare on a quiet one.
set -eu
cd "$(dirname "$0")/.."
. bench/lib.sh
RUNS=${1:-5}
[ $# -gt 0 ] && shift
SIZES=${*:-2000000 10000000}
DIR=${BENCH_DIR:-/tmp/pollfit-ingest}
mkdir -p "$DIR"
for tool in gzip zstd; do
	command -v "$tool" >/dev/null || { echo "compressed.sh: $tool not found (apt-get install $tool)" >&2; exit 1; }
done
go build -o "$DIR/gen" ./fixtures/gen
go build -o "$DIR/pollfit" .
go build -o "$DIR/inflate" ./bench/inflate


echo "runs $RUNS (medians), $(nproc) cores, load before $(cut -d' ' -f1-3 /proc/loadavg), $(gzip --version | head -1), $(zstd --version)"
for rows in $SIZES; do
	csv=$DIR/payments-$rows.csv
	[ -s "$csv" ] || "$DIR/gen" -n "$rows" -o "$csv"
	[ -s "$csv.gz" ] || gzip -6 -c "$csv" >"$csv.gz"
	[ -s "$csv.zst" ] || zstd -q -3 -c "$csv" >"$csv.zst"
	gzip -dc "$csv.gz" | cmp -s - "$csv" || { echo "compressed.sh: $csv.gz is not $csv" >&2; exit 1; }
	zstd -dc "$csv.zst" | cmp -s - "$csv" || { echo "compressed.sh: $csv.zst is not $csv" >&2; exit 1; }
	for f in "$csv" "$csv.gz" "$csv.zst"; do : >"$f.times"; done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		for f in "$csv" "$csv.gz" "$csv.zst"; do
			/usr/bin/time -f '%e %U %S' -o "$DIR/time1" "$DIR/pollfit" fit --input "$f" --column settle_s --quiet >/dev/null 2>"$DIR/stderr" || {
				cat "$DIR/stderr" >&2
				exit 1
			}
			awk '{print $1, $2 + $3}' "$DIR/time1" >>"$f.times"
		done
		i=$((i + 1))
	done
	pw=$(awk '{print $1}' "$csv.times" | med)
	pc=$(awk '{print $2}' "$csv.times" | med)
	for f in "$csv" "$csv.gz" "$csv.zst"; do
		w=$(awk '{print $1}' "$f.times" | med)
		c=$(awk '{print $2}' "$f.times" | med)
		printf '%-32s %5.0f MB  wall %6.2f s (%.2fx plain)  cpu %6.2f s (%.2fx plain)\n' "$(basename "$f")" \
			"$(wc -c <"$f" | awk '{print $1/1e6}')" "$w" "$(echo "$w $pw" | awk '{print $1/$2}')" "$c" "$(echo "$c $pc" | awk '{print $1/$2}')"
	done
	echo "decompression alone, $rows rows (medians of $RUNS, CPU seconds; floor = max(CPU, (CPU + plain's CPU) / $(nproc) cores), against 1.5x plain wall = $(echo "$pw" | awk '{printf "%.2f", 1.5*$1}') s):"
	floor() { # name: reads one CPU figure a line of $DIR/dc
		c=$(med <"$DIR/dc")
		printf '  %-26s cpu %6.2f s  %5.0f MB/s  floor %5.2f s\n' "$1" "$c" "$(wc -c <"$csv" | awk -v c="$c" '{print $1/1e6/c}')" "$(echo "$c $pc" | awk -v n="$(nproc)" '{f = ($1+$2)/n; if ($1 > f) f = $1; print f}')"
	}
	for codec in gzip stdgzip zstd; do
		f=$csv.gz
		[ "$codec" = zstd ] && f=$csv.zst
		: >"$DIR/dc"
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			"$DIR/inflate" -codec "$codec" "$f" | awk '{print $8}' >>"$DIR/dc"
			i=$((i + 1))
		done
		case $codec in
		gzip) floor "klauspost gzip (pollfit)" ;;
		stdgzip) floor "compress/gzip" ;;
		zstd) floor "klauspost zstd (pollfit)" ;;
		esac
	done
	for tool in "gzip -dc" "libdeflate-gunzip -c" "zstd -dc"; do
		command -v "${tool%% *}" >/dev/null || continue
		f=$csv.gz
		[ "$tool" = "zstd -dc" ] && f=$csv.zst
		: >"$DIR/dc"
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			# shellcheck disable=SC2086
			/usr/bin/time -f '%U' -o "$DIR/time1" $tool "$f" >/dev/null
			cat "$DIR/time1" >>"$DIR/dc"
			i=$((i + 1))
		done
		floor "$tool (user CPU)"
	done
done
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
