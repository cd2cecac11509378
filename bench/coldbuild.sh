#!/bin/sh
# bench/coldbuild.sh — the binary's size and a fresh clone's cold build.
#
#   bench/coldbuild.sh [REF ...]      (default: HEAD)
#
# For each git REF of this repository, in the order given (give two refs
# twice, A B A B, to alternate them): clones the repository at REF into a
# temporary directory, prints the size of `go build -trimpath` and of
# `go build -trimpath -ldflags='-s -w'` (stripped), then times the main
# job, `go run . plan` (README "The two commands"), with empty module
# and build caches: every module downloaded from the proxy and every
# package compiled, as on a fresh machine. Prints wall time, CPU time
# and peak RSS from /usr/bin/time, and the load average before and after
# (2 cores here; other jobs on the machine slow the build).
set -eu
cd "$(dirname "$0")/.."
# The compiler writes to /dev/null: a run on a machine where something
# replaced it with a plain file fails part-way.
[ -c /dev/null ] || { echo "coldbuild: /dev/null is not the null device" >&2; exit 1; }
REPO=$(pwd)
[ $# -gt 0 ] || set -- HEAD
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
for ref in "$@"; do
	rev=$(git rev-parse --short "$ref")
	dir=$TMP/clone
	rm -rf "$dir"
	git clone -q "$REPO" "$dir"
	git -C "$dir" checkout -q "$rev"
	# Cold first: the sizes' builds would warm the caches.
	mod=$TMP/mod
	cache=$TMP/cache
	mkdir -p "$mod" "$cache"
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	(cd "$dir" && GOMODCACHE=$mod GOCACHE=$cache GOFLAGS=-modcacherw \
		/usr/bin/time -f '%e %U %S %M' -o "$TMP/time" go run . plan >/dev/null 2>"$TMP/stderr") || {
		echo "$ref: go run . plan failed:" >&2
		tail -5 "$TMP/stderr" >&2
	}
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	(cd "$dir" && GOMODCACHE=$mod GOCACHE=$cache GOFLAGS=-modcacherw go build -trimpath -o "$TMP/bin" . &&
		GOMODCACHE=$mod GOCACHE=$cache GOFLAGS=-modcacherw go build -trimpath -ldflags='-s -w' -o "$TMP/bin-s" .)
	size=$(wc -c <"$TMP/bin")
	ssize=$(wc -c <"$TMP/bin-s")
	mods=$(ls "$mod/cache/download" 2>/dev/null | wc -l)
	read -r wall user sys rss <"$TMP/time"
	echo "$ref ($rev): binary $(echo "$size" | awk '{printf "%.1f", $1/1e6}') MB ($(echo "$ssize" | awk '{printf "%.1f", $1/1e6}') MB stripped); cold go run . plan: wall ${wall} s, cpu $(echo "$user $sys" | awk '{printf "%.1f", $1+$2}') s, peak RSS $(echo "$rss" | awk '{printf "%.0f", $1/1024}') MiB; load $load0 -> $load1"
	chmod -R u+w "$mod" "$cache" 2>/dev/null || true
	rm -rf "$mod" "$cache"
done
