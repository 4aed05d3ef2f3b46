#!/usr/bin/env bats
# One build dir, one truth, second round (DESIGN 14): every write, rename
# and delete below the build dir goes through one layer that never follows
# a link (gen/base/beneath.c), whoever asks for it: a journal undo, the
# lock, report, the runner.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	standalone_campaign "$C"
	printf '%s\n' 'name = "s"' '[[Tests]]' 'id = "a"' 'test_name = "ok"' 'iterations = 2' \
		'[[Tests]]' 'id = "b"' 'test_name = "ok"' >"$C/scenario.toml"
	mkdir -p "$W/outside/sub"
	echo keep >"$W/outside/sub/file"
	echo keep >"$W/outside/file"
}

# gen [OUT]: the campaign into OUT ($B)
gen() {
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "${1:-$B}")
}

# outside_kept: nothing outside the build dir changed
outside_kept() {
	[ "$(cat "$W/outside/sub/file")" = keep ] && [ "$(cat "$W/outside/file")" = keep ] &&
		[ "$(find "$W/outside" | sort | tr '\n' ' ')" = "$W/outside $W/outside/file $W/outside/sub $W/outside/sub/file " ]
}

@test "a journal undo never deletes or renames through a link planted in the build dir" {
	gen >/dev/null
	ln -s "$W/outside" "$B/evil"
	# a killed gen's journal (or a planted one) naming paths below the
	# link: a made dir, a temporary, a new file renamed in, a backup
	printf 'kunai journal 1\nDevil/sub\0\nTevil/file\0\nC\nRn\0evil/file\0evil/t\0evil/b\0\nRo\0a/0/run.sh\0evil/sub/file\0evil/x\0\n' \
		>"$B/.kunai/journal"
	run --separate-stderr "$KUNAI" report "$B" --no-html
	outside_kept
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$B/evil/sub: left alone (a journal record through a symbolic link names nothing kunai gen wrote)"* ]]
	[ ! -e "$B/.kunai/journal" ]
	[ -e "$B/a/0/run.sh" ]
}

@test ".kunai planted as a link: every command refuses it before it writes there" {
	gen >/dev/null
	mv "$B/.kunai" "$W/outside/k"
	ln -s "$W/outside/k" "$B/.kunai"
	ls -la "$W/outside/k" >"$W/before"
	run "$KUNAI" report "$B" --no-html
	[ "$status" -eq 1 ]
	[[ "$output" == *"$B/.kunai is a symbolic link or not a directory"* ]]
	run gen
	[ "$status" -eq 1 ]
	[[ "$output" == *"$B/.kunai is a symbolic link or not a directory"* ]]
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	ls -la "$W/outside/k" >"$W/after"
	diff -u "$W/before" "$W/after"
}
