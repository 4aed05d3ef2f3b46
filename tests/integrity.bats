#!/usr/bin/env bats
# One build dir, one truth (DESIGN 14) under concurrency and hostile files:
# one writer at a time (gen against a live driver, --rerun, concurrent
# gens and reports), no write through a planted link, export never packs
# temporaries, and a killed gen leaves the previous build dir as it was.
bats_require_minimum_version 1.5.0
load helpers

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	standalone_campaign "$C"
	# sleep 4712: a number no other process here sleeps, to find leftovers
	printf 'name = "long"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "sleep 4712"\n' \
		>"$C/tests/long.toml"
	printf '%s\n' 'name = "s"' '[[Tests]]' 'id = "a"' 'test_name = "ok"' 'iterations = 2' \
		'[[Tests]]' 'id = "b"' 'test_name = "ok"' >"$C/scenario.toml"
	printf '%s\n' 'name = "l"' '[[Tests]]' 'id = "x"' 'test_name = "long"' '[[Tests]]' 'id = "a"' \
		'test_name = "ok"' >"$C/long.toml"
}

teardown() {
	local p
	for p in $(pgrep -f 'sleep 4712'); do
		kill -9 "$p" 2>/dev/null
	done
}

# gen [SCENARIO] [OUT]: the campaign into OUT ($B)
gen() {
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests \
		--test-scenario "${1:-scenario.toml}" -o "${2:-$B}")
}

wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -le 200 ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

@test "gen and kunai run --rerun under a live driver are refused naming its pid; nothing is cleaned" {
	gen long.toml >/dev/null
	"$NINJA" -C "$B" -k 0 run >"$W/ninja.log" 2>&1 3>&- &
	npid=$!
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/a/0/kunai.stamp"
	run gen long.toml
	[ "$status" -eq 1 ]
	[[ "$output" == *"ninja or kunai run (pid $npid) is running this campaign; not regenerating"* ]]
	run "$KUNAI" run --rerun --system-config "$C/system.toml" --tests-dir "$C/tests" \
		--test-scenario "$C/long.toml" -o "$B"
	[ "$status" -eq 1 ]
	[ -e "$B/a/0/kunai.stamp" ]
	kill -INT "$npid"
	wait "$npid" || true
	# the driver is gone: gen goes ahead
	gen long.toml >/dev/null
}

@test "concurrent gens: one after the other, never a mix" {
	sed 's/echo ok/echo other/' "$C/tests/ok.toml" >"$W/other.toml"
	mkdir -p "$C/tests2" && cp "$W/other.toml" "$C/tests2/ok.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests2 --test-scenario scenario.toml -o "$W/refB") >/dev/null
	gen scenario.toml "$W/refA" >/dev/null
	for i in 1 2 3; do
		gen >/dev/null &
		(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests2 --test-scenario scenario.toml \
			-o "$B") >/dev/null &
		wait %1 && wait %2
		diff -r -x .kunai -x local.ninja "$W/refA" "$B" >/dev/null || diff -r -x .kunai -x local.ninja "$W/refB" "$B"
	done
}

@test "no write follows a planted link: a run dir, report/, a target file, .kunai/driver" {
	mkdir -p "$W/elsewhere" "$B"
	# a run dir's parent planted as a link before the first gen
	ln -s "$W/elsewhere" "$B/a"
	run gen
	[ "$status" -eq 1 ]
	[[ "$output" == *"$B/a is a symbolic link; kunai does not write through links"* ]]
	[ -z "$(ls -A "$W/elsewhere")" ]
	rm "$B/a"
	gen >/dev/null
	# a generated file replaced by a link: refused, the target untouched
	echo keep >"$W/elsewhere/target"
	rm "$B/b/0/env_vars.sh" && ln -s "$W/elsewhere/target" "$B/b/0/env_vars.sh"
	run gen
	[ "$status" -eq 1 ]
	[[ "$output" == *"$B/b/0/env_vars.sh is a symbolic link"* ]]
	[ "$(cat "$W/elsewhere/target")" = keep ]
	rm "$B/b/0/env_vars.sh"
	# links at the old fixed temporary names are never opened
	ln -s "$W/elsewhere/target" "$B/kunai.json.tmp"
	sed -i 's/echo ok/echo changed/' "$C/tests/ok.toml"
	gen >/dev/null
	[ "$(cat "$W/elsewhere/target")" = keep ]
	rm "$B/kunai.json.tmp"
	# a run dir replaced by a link after gen: the runner refuses it
	mv "$B/b/0" "$W/elsewhere/b0" && ln -s "$W/elsewhere/b0" "$B/b/0"
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	[[ "$output" == *"b/0 is a symbolic link; kunai does not write through links"* ]] || { echo "$output"; false; }
	[ ! -e "$W/elsewhere/b0/job.json" ]
	# report/ planted as a link
	mkdir "$W/elsewhere/r" && ln -s "$W/elsewhere/r" "$B/report"
	run "$KUNAI" report "$B"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$B/report is a symbolic link"* ]]
	[ -z "$(ls -A "$W/elsewhere/r")" ]
	# .kunai/driver planted as a link
	rm "$B/report" "$B/b/0" && mv "$W/elsewhere/b0" "$B/b/0"
	rm -f "$B/.kunai/driver" && ln -s "$W/elsewhere/target" "$B/.kunai/driver"
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[[ "$output" == *"$B/.kunai/driver is a symbolic link"* || "$output" == *"./.kunai/driver is a symbolic link"* ]]
	[ "$(cat "$W/elsewhere/target")" = keep ]
}

@test "concurrent reports do not race; export never packs an interrupted writer's *.tmp" {
	gen >/dev/null
	"$NINJA" -C "$B" -k 0 run >/dev/null
	for i in 1 2 3 4; do
		"$KUNAI" report --no-html "$B" >/dev/null 2>"$W/r$i.err" &
	done
	for i in 1 2 3 4; do
		wait %$i || { cat "$W"/r*.err; false; }
	done
	[ -z "$(find "$B" -name '*.tmp')" ]
	# what an interrupted report leaves behind
	echo partial >"$B/report/summary.json.123.0.tmp"
	echo partial >"$B/report/junit.xml.tmp"
	"$KUNAI" export "$B" -o "$W/e.tar.gz" >/dev/null
	tar tzf "$W/e.tar.gz" >"$W/list"
	grep -qx report/summary.json "$W/list"
	! grep -q '\.tmp$' "$W/list"
}

@test "kunai under a path with a space, ';', \$(...) and a quote: local.ninja quotes it for the shell and ninja" {
	K="$W/in st;\$(touch pwned)'q"
	mkdir -p "$K"
	cp "$KUNAI" "$K/kunai"
	cp -R rules "$K/rules"
	(cd "$C" && "$K/kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat "$B"/*/*/job.json | grep -c '"outcome":	"passed"')" -eq 3 ]
	run "$NINJA" -C "$B" report
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$(find "$W" "$C" "$B" -name pwned)" ]
	# a changed input regenerates through the same path
	touch "$C/scenario.toml"
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -z "$(find "$W" "$C" "$B" -name pwned)" ]
}
