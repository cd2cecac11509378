# bench/lib.sh — shared by the bench scripts (sourced: . bench/lib.sh).

# med: the median of the numbers on standard input, one a line.
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed_runs NAME CMD...: runs CMD $RUNS times under /usr/bin/time, its
# output dropped, and leaves one line a run in $DIR/times: wall seconds,
# peak RSS in KB, user and system CPU seconds. Fails naming NAME, with
# the command's stderr, when a run fails.
timed_runs() {
	name=$1
	shift
	: >"$DIR/times"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %M %U %S' -o "$DIR/time1" "$@" >/dev/null 2>"$DIR/stderr" || {
			echo "$name: failed:" >&2
			cat "$DIR/stderr" >&2
			return 1
		}
		cat "$DIR/time1" >>"$DIR/times"
		i=$((i + 1))
	done
}

# medians: the medians of $DIR/times as "wall peak_kb cpu".
medians() {
	echo "$(awk '{print $1}' "$DIR/times" | med) $(awk '{print $2}' "$DIR/times" | med) $(awk '{print $3 + $4}' "$DIR/times" | med)"
}
