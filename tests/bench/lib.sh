# tests/bench/lib.sh: what every bench script shares (sourced, POSIX sh).
# A figure is measured side by side with its peer: RUNS turns of the
# command then the peer (each after its untimed preparation), with
# tests/bench/measure; a row prints each one's median [min-max], the
# median of the per-turn ratios and the goal with its verdict.
# Environment: KUNAI (the binary), MEASURE (tests/bench/measure), RUNS
# (default 5), BENCH_SMOKE=1 (make bench-smoke: the smallest sizes, one
# turn, no verdicts: it checks that the script works, not the figures).
: "${KUNAI:?KUNAI must name the kunai binary}" "${MEASURE:?MEASURE must name tests/bench/measure}"
case $KUNAI in /*) ;; *) KUNAI=$PWD/$KUNAI ;; esac
case $MEASURE in /*) ;; *) MEASURE=$PWD/$MEASURE ;; esac
BENCH_SMOKE=${BENCH_SMOKE:-}
RUNS=${RUNS:-5}
[ -z "$BENCH_SMOKE" ] || RUNS=1
bench_tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunai-bench.XXXXXX")
trap 'rm -rf "$bench_tmp"' EXIT
trap 'exit 130' INT TERM

bench_fail() {
	echo "bench: $*" >&2
	[ ! -s "$bench_tmp/log" ] || tail -n 20 "$bench_tmp/log" >&2
	exit 1
}

# spread_dir DIR: DIR made (with its parents) and marked as a top of
# hierarchy (ext4's +T attribute; elsewhere chattr fails and nothing
# changes), so that ext4 spreads the dirs made in it over the block groups
# as it does the root's. ext4 without a journal makes every file creation
# skip the inodes its block group freed in the last one to six minutes: a
# bench's files then go where no earlier turn, nor a bench just before
# (genbench deletes 100,000 runs), deleted thousands.
spread_dir() {
	mkdir -p "$1" || bench_fail "cannot make $1"
	chattr +T "$1" 2>/dev/null || :
}

# stats COLUMN FILE: "median min max" of a column of numbers
stats() {
	cut -d' ' -f"$1" "$2" | sort -g | awk '{ v[NR] = $1 }
		END { if (!NR) exit 1; printf "%g %g %g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'
}

# timed FILE CMD: one measured run of the shell command CMD (its output to
# the log), its "seconds peak-KB" appended to FILE (and " cpu-seconds" when
# MEASURE_CPU=1)
timed() {
	"$MEASURE" ${MEASURE_CPU:+-c} -o "$1" sh -c "$2" >>"$bench_tmp/log" 2>&1 || bench_fail "failed: $2"
}

# pair PREP_A CMD_A PREP_B CMD_B: RUNS turns of A, then B; the figures in
# $bench_tmp/a and $bench_tmp/b, line by line (PREP_*: shell code, untimed)
pair() {
	: >"$bench_tmp/a"
	: >"$bench_tmp/b"
	: >"$bench_tmp/log"
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		eval "$1" || bench_fail "failed: $1"
		timed "$bench_tmp/a" "$2"
		eval "$3" || bench_fail "failed: $3"
		timed "$bench_tmp/b" "$4"
		_i=$((_i + 1))
	done
}

# single PREP CMD: RUNS measured runs of CMD alone, into $bench_tmp/a
single() {
	: >"$bench_tmp/a"
	: >"$bench_tmp/log"
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		eval "$1" || bench_fail "failed: $1"
		timed "$bench_tmp/a" "$2"
		_i=$((_i + 1))
	done
}

header() {
	printf '%-34s %-26s %-34s %8s  %s\n' figure kunai peer ratio goal
}

# verdict OK: "ok", "OVER" or, in a smoke run, "-"
verdict() {
	if [ -n "$BENCH_SMOKE" ]; then echo -; elif [ "$1" = 1 ]; then echo ok; else echo OVER; fi
}

# fmt MED MIN MAX UNIT: "1.23 s [1.10-1.40]"
fmt() {
	awk -v m="$1" -v a="$2" -v b="$3" -v u="$4" 'BEGIN { printf "%.3g %s [%.3g-%.3g]", m, u, a, b }'
}

# row_pair LABEL time|mem PEER_NAME LIMIT: a row for the last pair, the goal
# being a ratio to the peer of at most LIMIT (-: none)
row_pair() {
	case $2 in time) col=1 div=1 unit=s ;; *) col=2 div=1024 unit=MB ;; esac
	awk -v c=$col -v d=$div '{ split($0, f, " "); printf "%g\n", f[c] / d }' "$bench_tmp/a" >"$bench_tmp/va"
	awk -v c=$col -v d=$div '{ split($0, f, " "); printf "%g\n", f[c] / d }' "$bench_tmp/b" >"$bench_tmp/vb"
	paste -d' ' "$bench_tmp/va" "$bench_tmp/vb" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }' >"$bench_tmp/vr"
	set -- "$1" "$3" "$4" "$(stats 1 "$bench_tmp/va")" "$(stats 1 "$bench_tmp/vb")" "$(stats 1 "$bench_tmp/vr")"
	# shellcheck disable=SC2086
	a=$(fmt $4 "$unit") b=$(fmt $5 "$unit")
	r=${6%% *}
	if [ "$3" = - ]; then
		printf '%-34s %-26s %-34s %7.2fx  (no goal)\n' "$1" "$a" "$2 $b" "$r"
		return
	fi
	ok=$(awk -v r="$r" -v l="$3" 'BEGIN { print (r <= l) }')
	printf '%-34s %-26s %-34s %7.2fx  <= %sx %s: %s\n' "$1" "$a" "$2 $b" "$r" "$3" "$2" "$(verdict "$ok")"
}

# row_abs LABEL time|mem LIMIT [PEER_TEXT]: a row for the last single (or
# the A side of a pair), the goal an absolute bound (seconds or MB; -: none)
row_abs() {
	case $2 in time) col=1 div=1 unit=s ;; *) col=2 div=1024 unit=MB ;; esac
	awk -v c=$col -v d=$div '{ split($0, f, " "); printf "%g\n", f[c] / d }' "$bench_tmp/a" >"$bench_tmp/va"
	s=$(stats 1 "$bench_tmp/va")
	# shellcheck disable=SC2086
	a=$(fmt $s "$unit")
	if [ "$3" = - ]; then
		printf '%-34s %-26s %-34s %8s  (no goal)\n' "$1" "$a" "${4:--}" -
		return
	fi
	ok=$(awk -v m="${s%% *}" -v l="$3" 'BEGIN { print (m < l) }')
	printf '%-34s %-26s %-34s %8s  < %s %s: %s\n' "$1" "$a" "${4:--}" - "$3" "$unit" "$(verdict "$ok")"
}

# row_value LABEL VALUE UNIT LIMIT PEER_TEXT: a computed figure (one value)
row_value() {
	ok=$(awk -v v="$2" -v l="$4" 'BEGIN { print (v <= l) }')
	printf '%-34s %-26s %-34s %8s  <= %s %s: %s\n' "$1" "$2 $3" "${5:--}" - "$4" "$3" "$(verdict "$ok")"
}
