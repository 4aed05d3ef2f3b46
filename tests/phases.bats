#!/usr/bin/env bats
# The campaign's prepare and cleanup phases: edges of build.ninja, prepare
# once per change of its commands and before every run, cleanup after the
# last run whatever the outcomes; time limits; what kunai run says.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	mkdir -p "$W/c/tests"
	cat >"$W/c/system.toml" <<'T'
name = "local"
scheduler = "standalone"
install_path = "./install"
output_path = "./results"
T
	cat >"$W/c/tests/sleep.toml" <<'T'
name = "sleep"
description = "sleep"
test_template_name = "Sleep"
[cmd_args]
seconds = 0
T
	cd "$W/c"
}

# scenario PREPARE-COMMANDS CLEANUP-COMMANDS [PREPARE-LIMIT] [SECONDS]
scenario() {
	cat >scenario.toml <<T
name = "ph"
[[Tests]]
id = "a"
test_name = "sleep"
iterations = 2
cmd_args.seconds = ${4:-0}

[prepare]
commands = $1
time_limit = "${3:-30s}"

[cleanup]
commands = $2
T
}

krun() {
	"$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out "$@"
}

@test "prepare runs once before the runs, not again for the same commands; cleanup after, every time" {
	scenario '["echo x >> prepared.txt"]' '["ls a/1/job.json >> cleaned.txt"]'
	run krun
	[ "$status" -eq 0 ]
	[ "$(wc -l <out/prepared.txt)" -eq 1 ]
	[ "$(wc -l <out/cleaned.txt)" -eq 1 ]
	# prepare's edge orders every run (order-only); cleanup is outside `run`
	grep -q '^build a/0/kunai.stamp: run || phases/prepare.stamp$' out/build.ninja
	grep -q '^build phases/cleanup.stamp: phase phases/cleanup.sh | always$' out/build.ninja
	run krun
	[ "$status" -eq 0 ]
	[ "$(wc -l <out/prepared.txt)" -eq 1 ]
	[ "$(wc -l <out/cleaned.txt)" -eq 2 ]
	# new commands: prepare again, the runs not
	cp out/a/0/job.json job0.json
	scenario '["echo y >> prepared.txt"]' '["true"]'
	run krun
	[ "$status" -eq 0 ]
	[ "$(wc -l <out/prepared.txt)" -eq 2 ]
	cmp job0.json out/a/0/job.json
	run "$KUNAI" status out
	[ "${lines[0]%% at *}" = "prepare: passed" ]
	[ "${lines[1]%% at *}" = "cleanup: passed" ]
}

@test "a test that starts after another waits for prepare through it; one that does not names prepare" {
	scenario '["echo x >> prepared.txt"]' '["true"]'
	printf '[[Tests]]\nid = "b"\ntest_name = "sleep"\n  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "a"\n[[Tests]]\nid = "c"\ntest_name = "sleep"\n  [[Tests.dependencies]]\n  type = "end_post_comp"\n  id = "a"\n' >>scenario.toml
	run "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 0 ]
	grep -qx 'build b/0/kunai.stamp: run || a' out/build.ninja
	grep -qx 'build c/0/kunai.stamp: run || phases/prepare.stamp |@ a' out/build.ninja
	run ninja -C out -n b
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | sed -n 's/^\[[0-9/]*\] [A-Z]* //p' | tr '\n' ' ')" = \
		"phases/prepare.stamp a/0/kunai.stamp a/1/kunai.stamp b/0/kunai.stamp " ]
}

@test "a failed prepare stops the campaign with its reason; cleanup still runs" {
	scenario '["true", "echo broken >&2; exit 3"]' '["touch cleaned"]'
	run krun
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"prepare failed: command 2 exited with status 3"*"no run started"* ]]
	[ ! -e out/a/0/job.json ]
	[ -e out/cleaned ]
	grep -q broken out/phases/prepare/output.txt
	[[ "$output" == *"not-run"* ]]
}

@test "a prepare that hangs is stopped at its time limit" {
	scenario '["sleep 100"]' '["true"]' 2s
	SECONDS=0
	run krun
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$SECONDS" -lt 30 ]
	[[ "$output" == *"prepare timeout: time limit of 2s reached"* ]]
	grep -q '"outcome":.*"timeout"' out/phases/prepare.json
}

@test "a failed cleanup is reported and does not change the runs' outcomes" {
	scenario '["true"]' '["exit 4"]'
	run krun
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cleanup failed: command 1 exited with status 4"*"the runs' outcomes stand"* ]]
	[[ "$output" == *"2 runs: 2 passed"* ]]
	run "$KUNAI" status out
	[[ "${lines[1]}" == "cleanup: failed (command 1 exited with status 4)"* ]]
}

@test "an interrupted campaign (SIGTERM; Ctrl-C is the same) still runs cleanup" {
	scenario '["true"]' '["touch cleaned"]' 30s 30
	"$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out >log 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ -e out/a/0/job.json ] && break; sleep 0.1; done
	sleep 0.5
	# (a background job of a script ignores SIGINT: TERM takes the same path)
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	cat log
	[ "$rc" -eq 143 ]
	grep -q "running cleanup" log
	[ -e out/cleaned ]
}

@test "plain ninja: prepare is part of run; cleanup is its own target" {
	scenario '["touch prepared"]' '["touch cleaned"]'
	"$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	ninja -C out -k 0 run; ninja -C out cleanup
	[ -e out/prepared ]
	[ -e out/cleaned ]
	rm out/cleaned
	run ninja -C out run
	[[ "$output" == *"no work to do"* ]]
	[ ! -e out/cleaned ]
}

@test "phase errors: no commands, bad time limit, phases in a hook; ids prepare and cleanup are reserved" {
	cat >scenario.toml <<'T'
name = "ph"
[[Tests]]
id = "cleanup"
test_name = "sleep"
[prepare]
time_limit = "soon"
[cleanup]
commands = []
T
	run "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"scenario.toml:3:6: error: test id 'cleanup' is reserved"* ]]
	[[ "$output" == *"scenario.toml:5:2: error: [prepare] needs commands"* ]]
	[[ "$output" == *"scenario.toml:7:2: error: [cleanup] needs commands"* ]]
}
