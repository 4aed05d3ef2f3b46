#!/usr/bin/env bats
# One build dir, one truth, second round (DESIGN 14 and 17), as an attacker
# or bad luck would try it: every write, rename and delete below the build
# dir goes through one layer that never follows a link (gen/base/beneath.c),
# whoever asks (a journal undo, the lock, report, the runner, phases);
# signals only to what kunai started; a result only for what made the job;
# recovery before reading; every setting checked; no endless read.
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

teardown() {
	local p
	# this test's own leftovers only (sleep 4713 in its dir, or a pid it
	# noted): never another test's or another suite's
	for p in $(mine 'sleep 4713') $(cat "$W/pids" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null || true
	done
}

# gen [OUT]: the campaign into OUT ($B)
gen() {
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "${1:-$B}")
}

# mine PATTERN: pids of processes matching PATTERN whose working dir is in $W
mine() {
	local p d w
	w=$(cd "$W" && pwd -P)
	for p in $(pgrep -f "$1"); do
		d=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
		case $d in "$w" | "$w"/*) echo "$p" ;; esac
	done
}

# outside_kept: nothing outside the build dir changed
outside_kept() {
	[ "$(cat "$W/outside/sub/file")" = keep ] || return 1
	[ "$(cat "$W/outside/file")" = keep ] || return 1
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

@test "report's own dirs planted as links (report/csv, report/runs, report/plots, .kunai/report): refused, nothing outside written" {
	gen >/dev/null
	"$NINJA" -C "$B" -k 0 run >/dev/null
	"$KUNAI" report "$B" >/dev/null
	for d in report/csv report/runs report/plots .kunai/report; do
		rm -rf "${B:?}/$d"
		ln -s "$W/outside/sub" "$B/$d"
		run "$KUNAI" report "$B"
		[ "$status" -eq 1 ]
		[[ "$output" == *"$B/$d is a symbolic link"* ]] || { echo "$d: $output"; false; }
		outside_kept
		run "$NINJA" -C "$B" report
		[ "$status" -ne 0 ]
		outside_kept
		rm "$B/$d"
	done
	"$NINJA" -C "$B" report >/dev/null
	outside_kept
}

@test "a gen killed past its kunai.json rename: report undoes it first, then reports the plan it put back" {
	command -v strace >/dev/null || skip "no strace"
	gen >/dev/null
	"$NINJA" -C "$B" -k 0 run >/dev/null
	sed -i 's/^iterations = 2$/iterations = 4/' "$C/scenario.toml"
	n=0
	while :; do
		n=$((n + 1))
		[ "$n" -le 30 ] || { echo "kunai.json never renamed"; false; }
		run env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -o /dev/null \
			-e inject=rename,renameat,renameat2:signal=KILL:when=$n \
			"$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" \
			--test-scenario "$C/scenario.toml" -o "$B"
		[ "$status" -eq 137 ]
		if grep -q '"a/3"\|a/3/' "$B/kunai.json"; then
			break
		fi
		"$KUNAI" report "$B" --no-html >/dev/null 2>&1
	done
	[ -e "$B/.kunai/journal" ]
	# kunai status too undoes it before it reads the plan
	cp -a "$B" "$W/again"
	run --separate-stderr "$KUNAI" status "$W/again"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"undid an interrupted kunai gen"* ]]
	[[ "$output" == *"3 runs of s:"* ]] || { echo "$output"; false; }
	[ ! -e "$W/again/a/3" ]
	run --separate-stderr "$KUNAI" report "$B" --no-html
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"undid an interrupted kunai gen"* ]]
	# the old plan's 3 runs, all passed; no run dir of the killed gen's plan
	[[ "$output" == *"3 runs: 3 passed"* && "$output" != *"5 runs"* ]] || { echo "$output"; false; }
	[ ! -e "$B/a/3" ]
	[ ! -e "$B/a/2" ]
	! grep -q 'a/3' "$B/kunai.json"
}

# plant_phase PHASE TEMPLATE: for each name in $W/names, a fresh copy of
# TEMPLATE as the build dir with a link at that name (to a dir outside for
# a dir, a file outside for anything else), then PHASE's commands; prints
# each name after which anything outside changed
plant_phase() {
	local phase=$1 tmpl=$2 n tgt O=$W/outside
	while read -r n; do
		rm -rf "$B"
		cp -a "$tmpl" "$B"
		rm -rf "$O"
		mkdir -p "$O/d"
		echo keep >"$O/f"
		echo keep >"$O/d/f"
		(cd "$O" && find . -printf '%p %s %T@ %y\n' | sort) >"$W/before"
		tgt=$O/f
		[ ! -d "$W/t-full/$n" ] || tgt=$O/d
		rm -rf "${B:?}/$n"
		mkdir -p "$(dirname "$B/$n")"
		ln -s "$tgt" "$B/$n"
		case $phase in
		gen)
			sed -i 's/echo ok/echo changed/' "$C/tests/ok.toml"
			gen >/dev/null 2>&1 || true
			sed -i 's/echo changed/echo ok/' "$C/tests/ok.toml"
			;;
		run) "$NINJA" -C "$B" -k 0 run >/dev/null 2>&1 || true ;;
		report)
			"$KUNAI" report "$B" >/dev/null 2>&1 || true
			"$NINJA" -C "$B" report >/dev/null 2>&1 || true
			;;
		esac
		(cd "$O" && find . -printf '%p %s %T@ %y\n' | sort) >"$W/after"
		cmp -s "$W/before" "$W/after" || echo "$phase: $n"
	done <"$W/names"
}

@test "a link planted at every name kunai writes, before gen, before run, before report: nothing outside the build dir changes" {
	printf '%s\n' '[prepare]' 'commands = ["true"]' >>"$C/scenario.toml"
	# the names: every one that gen, the runner, the prepare phase and the
	# report wrote in a whole campaign (from what the code made, not a list
	# kept by hand here)
	gen >/dev/null
	cp -a "$B" "$W/t-gen"
	"$NINJA" -C "$B" -k 0 run >/dev/null
	cp -a "$B" "$W/t-run"
	"$KUNAI" report "$B" >/dev/null
	"$NINJA" -C "$B" report >/dev/null
	cp -a "$B" "$W/t-full"
	(cd "$W/t-full" && find . -mindepth 1 | sed 's|^\./||' | sort) >"$W/names"
	for n in .kunai .kunai/lock .kunai/manifest .kunai/report kunai.json build.ninja a a/0 a/0/job.json \
		a/0/stdout.txt a/0/report.json a/0/kunai.stamp phases/prepare phases/prepare/output.txt report \
		report/csv report/runs report/summary.json; do
		grep -qx "$n" "$W/names" || { echo "the campaign wrote no $n"; false; }
	done
	rm -rf "$W/outside"
	plant_phase gen "$W/t-full" >"$W/changed"
	plant_phase run "$W/t-gen" >>"$W/changed"
	plant_phase report "$W/t-run" >>"$W/changed"
	cat "$W/changed"
	[ ! -s "$W/changed" ]
}

@test "reattaching to a standalone run whose supervisor pid now leads an unrelated process group: that group is never signalled" {
	gen >/dev/null
	# an unrelated process group: its leader has the recorded pid, but not
	# the recorded start time (the machine rebooted, the pid was reused)
	setsid sleep 4713 &
	other=$!
	echo "$other" >>"$W/pids"
	for i in $(seq 50); do [ "$(ps -o pgid= -p "$other" | tr -d ' ')" = "$other" ] && break; sleep 0.1; done
	start=$(awk '{print $22}' "/proc/$other/stat")
	cat <<J >"$B/a/0/job.json"
{
	"dir":	"a/0",
	"scheduler":	"standalone",
	"job_id":	"$other",
	"state":	"RUNNING",
	"submit_time":	"2026-01-01T00:00:00Z",
	"start_time":	"2026-01-01T00:00:00Z",
	"attempt":	1,
	"host":	"$(hostname)",
	"pid_start":	$((start + 1))
}
J
	run "$NINJA" -C "$B" -k 0 run
	sleep 0.2
	kill -0 "$other"
	kill "$other"
}

@test "identity: a change of env_vars.sh alone reruns the run; a record without a hash is not the new script's result" {
	printf 'name = "ok"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo v=$X"\n[extra_env_vars]\nX = "1"\n' \
		>"$C/tests/ok.toml"
	gen >/dev/null
	"$NINJA" -C "$B" -k 0 run >/dev/null
	grep -qx 'v=1' "$B/b/0/stdout.txt"
	# only env_vars.sh changes in the config: the run is a new one
	sed -i 's/^X = "1"$/X = "2"/' "$C/tests/ok.toml"
	gen >/dev/null
	"$NINJA" -C "$B" -k 0 run >/dev/null
	grep -qx 'v=2' "$B/b/0/stdout.txt"
	# a finished job's record without script_hash (an older kunai, or
	# edited), not yet collected, then the plan changes: it is not taken
	# for the new script's pass
	sed -i -e '/"script_hash"/d' -e 's/"collected":.*/"collected":\tfalse/' "$B/b/0/job.json"
	touch -d '1 minute ago' "$B/b/0/job.json"
	sed -i 's/^X = "2"$/X = "3"/' "$C/tests/ok.toml"
	gen >/dev/null
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -eq 0 ]
	grep -qx 'v=3' "$B/b/0/stdout.txt" || { echo "$output"; cat "$B/b/0/stdout.txt"; false; }
}

@test "identity: a Kubernetes job document (k8s.json) that changes changes the script, so the run is a new one" {
	d=$BATS_TEST_DIRNAME/cases/k8s/mpijob
	cp -r "$d" "$W/k"
	"$KUNAI" gen --system-config "$W/k/system.toml" --tests-dir "$W/k/tests" --test-scenario "$W/k/scenario.toml" \
		-o "$W/kout" >/dev/null
	script=$(find "$W/kout" -name run.sh | head -1)
	cp "$script" "$W/run.before"
	grep -q '^# kunai: env_vars.sh [0-9a-f]\{16\}, k8s.json [0-9a-f]\{16\}$' "$script"
	# only the image changes: k8s.json, and with it the script
	sed -i 's|^docker_image_url = "\(.*\)"|docker_image_url = "\1-new"|' "$W/k/tests/nccl.toml"
	"$KUNAI" gen --system-config "$W/k/system.toml" --tests-dir "$W/k/tests" --test-scenario "$W/k/scenario.toml" \
		-o "$W/kout" >/dev/null
	grep -q -- '-new"' "$(dirname "$script")/k8s.json"
	# the script differs in that line alone
	[ "$(diff "$W/run.before" "$script" | grep -c '^[<>]')" -eq 2 ]
	diff "$W/run.before" "$script" | grep -q '^> # kunai: env_vars.sh [0-9a-f]*, k8s.json'
}

@test "every KUNAI_* number is checked: a bad value is a clear error, never silently the default" {
	gen >/dev/null
	for v in KUNAI_MAX_RUNS=abc KUNAI_MAX_RUNS=0 KUNAI_MAX_CONFIG_BYTES=1k KUNAI_GEN_THREADS=-3; do
		run env "$v" "$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" \
			--test-scenario "$C/scenario.toml" -o "$B"
		[ "$status" -eq 1 ]
		[[ "$output" == *"kunai: ${v%%=*}='${v#*=}' is not a whole number from "* ]] || { echo "$v: $output"; false; }
	done
	for v in KUNAI_MAX_RETRIES=x KUNAI_RETRY_DELAY=1.5 KUNAI_POLL_MAX=0 KUNAI_TRUST_RECORD=' 5' KUNAI_DRIVER_PID=abc; do
		run env "$v" bash -c 'cd "$1" && exec "$KUNAI" job run --scheduler standalone a/0/kunai.stamp' _ "$B"
		[ "$status" -eq 1 ]
		[[ "$output" == *"kunai: ${v%%=*}='${v#*=}' is not a whole number from "* ]] || { echo "$v: $output"; false; }
		[ ! -e "$B/a/0/job.json" ]
	done
	run env KUNAI_K8S_KEEP=yes bash -c 'cd "$1" && exec "$KUNAI" job run --scheduler standalone a/0/kunai.stamp' _ "$B"
	# (standalone: the Kubernetes setting is not read)
	[ "$status" -eq 0 ]
}

@test "readers refuse what never ends: toml2json and gen of /dev/zero or a dir return at once" {
	run timeout 10 "$KUNAI" toml2json /dev/zero
	[ "$status" -eq 1 ]
	[[ "$output" == "kunai: /dev/zero: not a regular file" ]]
	run timeout 10 "$KUNAI" toml2json "$W"
	[ "$status" -eq 1 ]
	run timeout 10 "$KUNAI" gen --system-config /dev/zero --tests-dir "$C/tests" --test-scenario "$C/scenario.toml" -o "$B"
	[ "$status" -eq 1 ]
	[[ "$output" == *"/dev/zero"* ]]
	# a pipe is read to its end, as before
	run "$KUNAI" toml2json <(printf 'a = 1\n')
	[ "$status" -eq 0 ]
}

@test "kunai job refuses a run dir outside the build dir: nothing is written there" {
	gen >/dev/null
	mkdir -p "$W/elsewhere"
	cp "$B/a/0/run.sh" "$W/elsewhere/"
	for d in ../elsewhere/kunai.stamp "$W/elsewhere/kunai.stamp" a/../../elsewhere; do
		run bash -c 'cd "$1" && exec "$KUNAI" job run --scheduler standalone "$2"' _ "$B" "$d"
		[ "$status" -eq 2 ]
		[[ "$output" == *"is not a run dir below the build dir"* ]] || { echo "$d: $output"; false; }
	done
	[ "$(ls -A "$W/elsewhere")" = run.sh ]
}

# secs CMD...: the wall-clock milliseconds CMD takes (best of 5: the machine is shared), on stdout
secs() {
	local best= t k s e
	for k in 1 2 3 4 5; do
		rm -rf "$W/o"
		s=$(date +%s%N)
		"$@" >/dev/null || return 1
		e=$(date +%s%N)
		t=$(((e - s) / 1000000))
		[ -n "$best" ] && [ "$best" -le "$t" ] || best=$t
	done
	echo "$best"
}

@test "environment values and container mounts load in linear time: 100,000 in less than 4x the time of 25,000" {
	mkdir -p "$W/e/t25000" "$W/e/t100000"
	printf 'name = "s"\n[[Tests]]\nid = "a"\ntest_name = "ok"\n' >"$W/e/s.toml"
	for n in 25000 100000; do
		{
			printf 'name = "ok"\ndescription = "d"\ntest_template_name = "BashCmd"\n'
			printf 'extra_container_mounts = [\n'
			seq 1 "$n" | sed 's|.*|"/data/m&:/m&",|'
			printf ']\n[cmd_args]\ncmd = "echo ok"\n[extra_env_vars]\n'
			seq 1 "$n" | sed 's/.*/V&= "x&"/'
		} >"$W/e/t$n/ok.toml"
	done
	t25=$(secs "$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$W/e/t25000" --test-scenario "$W/e/s.toml" -o "$W/o")
	t100=$(secs "$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$W/e/t100000" --test-scenario "$W/e/s.toml" -o "$W/o")
	echo "25,000: ${t25} ms; 100,000: ${t100} ms"
	# (a floor of 50 ms under the smaller, where a clock tick is noise;
	# quadratic, the larger took 25 s against 1 s)
	[ "$t100" -lt $((4 * (t25 > 50 ? t25 : 50))) ]
	grep -c '^export V' "$W/o/a/0/env_vars.sh" | grep -qx 100000
}

@test "control bytes a run wrote (ESC sequences, CR, BEL) never reach the terminal through kunai status or report" {
	printf '%s\n' '[prepare]' "commands = [\"printf '[PHASE] FAILED: \\\\033]0;pwned\\\\007\\\\033[2J\\\\rgone\\\\n'; exit 1\"]" \
		>>"$C/scenario.toml"
	gen >/dev/null
	run "$NINJA" -C "$B" -k 0 prepare
	[ "$status" -ne 0 ]
	grep -q $'\e' "$B/phases/prepare/output.txt"
	# a failed run whose record's reason holds them too
	cat <<'J' >"$B/a/0/job.json"
{
	"dir":	"a/0",
	"scheduler":	"standalone",
	"job_id":	"1",
	"state":	"EXITED",
	"exit_code":	1,
	"outcome":	"failed",
	"reason":	"exit \u001b]0;pwned\u0007\u001b[2J\rX",
	"submit_time":	"2026-01-01T00:00:00Z",
	"start_time":	"2026-01-01T00:00:00Z",
	"end_time":	"2026-01-01T00:00:01Z",
	"attempt":	1,
	"collected":	true
}
J
	run "$KUNAI" status "$B"
	[[ "$output" == *"prepare: failed"* ]] || { echo "$output"; false; }
	[[ "$output" == *"pwned"* ]]
	[[ "$output" != *$'\e'* && "$output" != *$'\r'* && "$output" != *$'\a'* ]] || { printf '%q\n' "$output"; false; }
	run "$KUNAI" report "$B" --no-html
	[[ "$output" != *$'\e'* && "$output" != *$'\r'* && "$output" != *$'\a'* ]] || { printf '%q\n' "$output"; false; }
}

@test "a killed supervisor does not free its job: the job stops at its limit, and the next ninja run waits for it, never a second copy" {
	printf 'name = "long"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "sleep 4713"\n' \
		>"$C/tests/long.toml"
	printf '%s\n' 'name = "s"' '[[Tests]]' 'id = "l"' 'test_name = "long"' 'time_limit = "6s"' >"$C/scenario.toml"
	gen >/dev/null
	t0=$(date +%s)
	"$NINJA" -C "$B" run >/dev/null 2>&1 3>&- &
	first=$!
	for i in $(seq 100); do grep -qs '^job=' "$B/l/0/kunai.start" && break; sleep 0.1; done
	# the supervisor, the runner above it and ninja, killed (as the OOM
	# killer or a person would); the job itself lives on
	sup=$(sed -n 's/^job=//p' "$B/l/0/kunai.start")
	kill -9 "$sup" "$(ps -o ppid= -p "$sup" | tr -d ' ')" "$first"
	sleep 0.3
	[ -n "$(mine 'sleep 4713')" ]
	"$NINJA" -C "$B" run >"$W/second.log" 2>&1 3>&- &
	second=$!
	most=0
	while kill -0 "$second" 2>/dev/null; do
		n=$(mine 'sleep 4713' | wc -l)
		[ "$n" -le "$most" ] || most=$n
		[ $(($(date +%s) - t0)) -lt 40 ] || { echo "still running"; cat "$W/second.log"; false; }
		sleep 0.2
	done
	cat "$W/second.log"
	# one copy at a time, ended by its limit (6 s, and the watchdog's
	# margin of 2 s), before the runner's own backstop (15 s after it)
	[ "$most" -le 1 ]
	[ -z "$(mine 'sleep 4713')" ]
	[ $(($(date +%s) - t0)) -lt 19 ]
	grep -q 'its job (process group [0-9]*) still runs: waiting for it' "$W/second.log"
	grep -q '"outcome":	"timeout"' "$B/l/0/job.json"
	grep -q '"attempt":	1,' "$B/l/0/job.json"
}

@test "FIFOs planted where kunai reads (a run's outputs and records, a generated script, .kunai's state): no command waits on one" {
	local f
	(cd "$C" && "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
	printf 'SECRET-LINE\n' >"$W/secret"
	for f in stdout.txt kunai.start kunai.exit; do
		rm -f "$B/a/0/$f"
		mkfifo "$B/a/0/$f"
	done
	# a link is not followed into a report either
	ln -sf "$W/secret" "$B/a/0/stderr.txt"
	rm -f "$B/a/1/job.json" "$B/a/1/report.json"
	mkfifo "$B/a/1/job.json" "$B/a/1/report.json"
	run timeout 30 "$KUNAI" report "$B"
	[ "$status" -ne 124 ]
	[[ "$output" == *"kunai: failed: 3 runs: 2 passed, 1 infra"* ]]
	run -1 grep -rq SECRET-LINE "$B/report"
	run timeout 30 "$KUNAI" status "$B"
	[ "$status" -eq 0 ]
	grep -Eq '^a +1 +infra .*job\.json: not a regular file' <<<"$output"
	run timeout 30 "$KUNAI" export "$B" -o "$W/e.tar.gz"
	[ "$status" -eq 0 ]
	run -1 grep -q 'a/1/job.json' <(tar tzf "$W/e.tar.gz")
	# gen writes a script over a FIFO; the runner moves the FIFOs of the
	# earlier attempt aside and runs
	rm "$B/b/0/run.sh" "$B/a/0/kunai.stamp"
	mkfifo "$B/b/0/run.sh"
	run timeout 30 "$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" --test-scenario "$C/scenario.toml" -o "$B"
	[ "$status" -eq 0 ]
	[ -f "$B/b/0/run.sh" ]
	run timeout 60 "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	grep -q '"outcome":	"passed"' "$B/a/0/job.json"
	[ -p "$B/a/0/attempt-1/stdout.txt" ]
	# .kunai's journal and driver record: refused, named
	mkfifo "$B/.kunai/journal"
	run timeout 30 "$KUNAI" gen --system-config "$C/system.toml" --tests-dir "$C/tests" --test-scenario "$C/scenario.toml" -o "$B"
	[ "$status" -eq 1 ]
	[[ "$output" == *"out/.kunai/journal: not a regular file (remove it)"* ]]
	rm "$B/.kunai/journal"
	rm -f "$B/.kunai/driver"
	mkfifo "$B/.kunai/driver"
	run timeout 30 "$KUNAI" status "$B"
	[ "$status" -eq 0 ]
	# plain ninja claims no driver record; kunai run does, and refuses it
	run timeout 60 "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	run timeout 60 "$KUNAI" run --system-config "$C/system.toml" --tests-dir "$C/tests" --test-scenario "$C/scenario.toml" -o "$B"
	[ "$status" -eq 1 ]
	[[ "$output" == *".kunai/driver: not a regular file (remove it)"* ]]
	outside_kept
}
