#!/usr/bin/env bats
# kunai gen's errors, against golden files (the cproc way).
#
# tests/cases/errors/NAME/ holds one broken campaign: system.toml, tests/,
# scenario.toml, optional hook/ (with hook/test/), an optional file args
# (more flags, e.g. --set KEY=VALUE, in shell word syntax), and
# expected.err, kunai's exact stderr. kunai runs inside the case dir with
# relative paths, so the paths in expected.err are relative to it:
#
#   kunai gen --system-config system.toml --tests-dir tests \
#       --test-scenario scenario.toml [--hook-dir hook] [ARGS...] -o OUT
#
# Every case must exit with status 1, print nothing on stdout, print
# exactly expected.err, and create nothing at OUT. UPDATE=1 rewrites the
# expected.err files (of the cases that exit 1) for review with git diff;
# ERRCASE=NAME runs one case only. (No case may be named hook: ../hook,
# beside the case dirs, would be every case's default hook dir.)
#
# bats 1.8.2 finds tests in the file's text, so a loop cannot make one
# test per case: one test runs them all and shows a diff -u per failure.
bats_require_minimum_version 1.5.0

setup() {
	KUNAI=${KUNAI:-$PWD/kunai}
	CASES=$BATS_TEST_DIRNAME/cases/errors
}

# gen_case DIR OUT: kunai gen in the case dir DIR, to OUT; its stdout and
# stderr go to $BATS_TEST_TMPDIR/stdout and stderr; returns its status.
gen_case() {
	local d=$1 out=$2 rc
	local -a args=() hook=()
	if [ -f "$d/args" ]; then
		eval "args=($(cat "$d/args"))"
	fi
	[ -d "$d/hook" ] && hook=(--hook-dir hook)
	(
		cd "$d" &&
			"$KUNAI" gen --system-config system.toml --tests-dir tests \
				--test-scenario scenario.toml "${hook[@]}" "${args[@]}" -o "$out"
	) >"$BATS_TEST_TMPDIR/stdout" 2>"$BATS_TEST_TMPDIR/stderr" && rc=0 || rc=$?
	return "$rc"
}

# cases: the case dirs (ERRCASE picks one)
cases() {
	if [ -n "${ERRCASE:-}" ]; then
		echo "$CASES/$ERRCASE"
	else
		ls -d "$CASES"/*/ | sed 's|/$||'
	fi
}

@test "tests/cases/errors: each case fails with status 1, prints expected.err, writes nothing" {
	local d name out=$BATS_TEST_TMPDIR/out rc n=0 bad=0 why
	: >"$BATS_TEST_TMPDIR/diff"
	for d in $(cases); do
		name=$(basename "$d")
		n=$((n + 1))
		rm -rf "$out"
		gen_case "$d" "$out" && rc=0 || rc=$?
		why=
		[ "$rc" -eq 1 ] || why="$why exit status $rc, not 1;"
		[ ! -s "$BATS_TEST_TMPDIR/stdout" ] || why="$why output on stdout;"
		[ ! -e "$out" ] && [ ! -L "$out" ] || why="$why $out was created;"
		if [ -n "${UPDATE:-}" ] && [ "$rc" -eq 1 ]; then
			cp "$BATS_TEST_TMPDIR/stderr" "$d/expected.err"
		elif [ ! -f "$d/expected.err" ]; then
			why="$why no expected.err (UPDATE=1 writes it);"
		elif ! diff -u --label "$name/expected.err" --label "$name: stderr" \
			"$d/expected.err" "$BATS_TEST_TMPDIR/stderr" >"$BATS_TEST_TMPDIR/diff"; then
			why="$why stderr differs;"
		fi
		if [ -n "$why" ]; then
			echo "FAIL $name:$why"
			sed 's/^/  stdout: /' "$BATS_TEST_TMPDIR/stdout"
			cat "$BATS_TEST_TMPDIR/diff"
			bad=$((bad + 1))
		fi
		: >"$BATS_TEST_TMPDIR/diff"
	done
	echo "$n cases, $bad failed"
	[ "$bad" -eq 0 ]
	[ "$n" -gt 0 ]
}

@test "tests/cases/errors: every expected.err is located errors, in each file's line order" {
	local d f bad=0
	for d in $(cases); do
		f=$d/expected.err
		[ -s "$f" ] || { echo "$f: empty or missing"; bad=$((bad + 1)); continue; }
		# path:line:col: error: ..., but for errors with no file to point
		# into: a key --set cannot follow, a --tests-dir that is no dir
		if grep -nvE '^([^:]+:[0-9]+:[0-9]+: (error|warning): |kunai: --set |kunai: tests directory )' "$f"; then
			echo "$f: lines above are neither located nor --set errors"
			bad=$((bad + 1))
		fi
		# within each file, lines (then columns) ascend
		if ! awk -F: '/: error: / {
				if ($1 in line && ($2 < line[$1] || ($2 == line[$1] && $3 < col[$1]))) bad = 1
				line[$1] = $2 + 0; col[$1] = $3 + 0 }
			END { exit bad }' "$f"; then
			echo "$f: errors out of line order"
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ]
}

# snapshot DIR: every entry's path, type, size, mode, mtime, ctime and
# content hash, sorted
snapshot() {
	(
		cd "$1" &&
			find . -printf '%p %y %s %m %T@ %C@\n' | sort &&
			find . -type f -exec sha256sum {} + | sort
	)
}

@test "a failed gen leaves a previous build dir byte for byte and mtime for mtime as it was" {
	local out=$BATS_TEST_TMPDIR/build d n=0 bad=0 rc
	local ok=$BATS_TEST_DIRNAME/cases/slurm/nodes
	run "$KUNAI" gen --system-config "$ok/system.toml" --tests-dir "$ok/tests" \
		--test-scenario "$ok/scenario.toml" -o "$out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -f "$out/build.ninja" ]
	snapshot "$out" >"$BATS_TEST_TMPDIR/before"
	# file times have a resolution; a rewrite in the same tick would not show
	sleep 0.05
	for d in $(cases); do
		n=$((n + 1))
		gen_case "$d" "$out" && rc=0 || rc=$?
		[ "$rc" -eq 1 ] || { echo "$(basename "$d"): exit status $rc"; bad=$((bad + 1)); }
		snapshot "$out" >"$BATS_TEST_TMPDIR/after"
		if ! diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"; then
			echo "$(basename "$d"): the build dir changed"
			bad=$((bad + 1))
			cp "$BATS_TEST_TMPDIR/after" "$BATS_TEST_TMPDIR/before"
		fi
	done
	echo "$n cases, $bad failed"
	[ "$bad" -eq 0 ]
	[ "$n" -gt 0 ]
}
