#!/usr/bin/env bats
# All or nothing (DESIGN 10 and 14): a kunai gen that fails (a full disk)
# or is killed (SIGKILL at any rename) leaves the previous build dir as it
# was, or journaled so that the next kunai command (gen, report, the
# runner) puts it back before anything else.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	standalone_campaign "$C"
	printf 'name = "other"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo other"\n' \
		>"$C/tests/other.toml"
	printf '%s\n' 'name = "s"' '[[Tests]]' 'id = "a"' 'test_name = "ok"' 'iterations = 2' \
		'[[Tests]]' 'id = "b"' 'test_name = "ok"' '[[Tests]]' 'id = "c"' 'test_name = "other"' \
		>"$C/scenario.toml"
	# a sanitizer build's leak check does not run under ptrace (strace)
	NOLEAKS=ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
}

teardown() {
	umount "$W/mnt" 2>/dev/null || true
}

# gen [OUT]: the campaign into OUT ($B)
gen() {
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "${1:-$B}")
}

# snap DIR [manifest]: every dir, every file with its size and mtime, and
# every file's checksum; but the lock, what kunai report writes (report/,
# report.json, .kunai/report.stamp), and (unless
# asked for) the manifest, a cache of stats that a later gen may refresh
snap() {
	local skip=./.kunai/manifest
	[ "${2:-}" != manifest ] || skip=./.kunai/lock
	(cd "$1" && find . -type d ! -path './report*' | sort &&
		find . -type f ! -path ./.kunai/lock ! -path "$skip" ! -path './report*' ! -name report.json \
			! -path ./.kunai/report.stamp -printf '%p %s %T@\n' | sort &&
		find . -type f ! -path ./.kunai/lock ! -path "$skip" ! -path './report*' ! -name report.json \
			! -path ./.kunai/report.stamp -exec md5sum {} + | sort)
}

@test "a gen killed at each of its renames is undone by the next kunai gen or report: every file as before" {
	command -v strace >/dev/null || skip "no strace"
	gen >/dev/null
	# results: the changed scripts' go with the gen (linked to a backup,
	# then removed), and come back when it is undone
	touch "$B/a/0/kunai.stamp" "$B/a/1/kunai.stamp" "$B/b/0/kunai.started" "$B/c/0/kunai.stamp"
	snap "$B" manifest >"$W/before"
	snap "$B" >"$W/before.files"
	n=0
	while :; do
		n=$((n + 1))
		[ "$n" -le 30 ] || { echo "gen still killed at rename $n"; false; }
		sed -i 's/echo ok/echo changed/' "$C/tests/ok.toml"
		run env "$NOLEAKS" strace -f -o /dev/null -e inject=rename,renameat,renameat2:signal=KILL:when=$n \
			"$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" \
			--test-scenario "$C/scenario.toml" -o "$B"
		[ "$status" -ne 0 ] || break
		[ "$status" -eq 137 ]
		sed -i 's/echo changed/echo ok/' "$C/tests/ok.toml"
		# the next command puts the build dir back before anything else:
		# report (which rewrites nothing gen wrote, the manifest included),
		# or gen of the old config (which then has nothing to rewrite)
		if [ $((n % 2)) -eq 1 ]; then
			run --separate-stderr "$KUNAI" report "$B" --no-html
			[ "$status" -eq 0 ]
			[[ "$stderr" == *"kunai: $B: undid an interrupted kunai gen"* ]]
			snap "$B" manifest >"$W/after"
			diff -u "$W/before" "$W/after"
		else
			gen >/dev/null
			snap "$B" >"$W/after"
			diff -u "$W/before.files" "$W/after"
			snap "$B" manifest >"$W/before"
		fi
		[ ! -e "$B/.kunai/journal" ]
	done
	# killed at every rename (3 scripts, kunai.json, the manifest), and
	# the regeneration that was not killed wrote the new config
	[ "$n" -ge 6 ]
	grep -q 'echo changed' "$B/a/0/run.sh"
	grep -q 'echo changed' "$B/kunai.json"
	[ ! -e "$B/a/0/kunai.stamp" ]
	[ ! -e "$B/a/1/kunai.stamp" ]
	[ ! -e "$B/b/0/kunai.started" ]
	[ -e "$B/c/0/kunai.stamp" ]
	[ -z "$(find "$B" -name '*.tmp' -o -name '*.old')" ]
}

@test "a gen killed after it made new run dirs: they go again, with what it wrote in them" {
	command -v strace >/dev/null || skip "no strace"
	gen >/dev/null
	snap "$B" manifest >"$W/before"
	sed -i 's/^iterations = 2$/iterations = 4/' "$C/scenario.toml"
	run env "$NOLEAKS" strace -f -o /dev/null -e inject=rename,renameat,renameat2:signal=KILL:when=1 \
		"$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" \
		--test-scenario "$C/scenario.toml" -o "$B"
	[ "$status" -eq 137 ]
	[ -e "$B/a/3/run.sh" ]
	run "$KUNAI" report "$B" --no-html
	[ "$status" -eq 0 ]
	snap "$B" manifest >"$W/after"
	diff -u "$W/before" "$W/after"
	gen >/dev/null
	[ -e "$B/a/3/run.sh" ]
}

@test "a gen that fills the disk midway fails naming the file and leaves every file as it was (tmpfs; needs root)" {
	mkdir "$W/mnt"
	mount -t tmpfs -o size=1m tmpfs "$W/mnt" 2>/dev/null || skip "cannot mount a tmpfs (not root, or no permission)"
	gen "$W/mnt/out" >/dev/null || { umount "$W/mnt"; false; }
	# a command of 6,000 bytes: each script now takes two pages, kunai.json
	# five; with three pages free, the first scripts could be rewritten
	# before kunai.json found the disk full
	long=$(head -c 6000 /dev/zero | tr '\0' x)
	sed -i "s/echo ok/echo $long/" "$C/tests/ok.toml"
	avail=$(df -B4096 --output=avail "$W/mnt" | tail -1)
	head -c $(((avail - 3) * 4096)) /dev/zero >"$W/mnt/fill"
	snap "$W/mnt/out" manifest >"$W/before"
	run --separate-stderr gen "$W/mnt/out"
	snap "$W/mnt/out" manifest >"$W/after"
	rm "$W/mnt/fill"
	gen "$W/mnt/out" >/dev/null
	grep -q "echo $long" "$W/mnt/out/a/0/run.sh"
	umount "$W/mnt"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "kunai: write $W/mnt/out/"*": No space left on device" ]]
	diff -u "$W/before" "$W/after"
}
