#!/usr/bin/env bats
# kunai job on the standalone scheduler, end to end with the real ninja:
# outcomes, the success check, stamps and attempts, time limits, the three
# dependency kinds, Ctrl-C, reattaching after a killed ninja, the lock
# that refuses a second ninja and the one that queues a second kunai job.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	mkdir -p "$C/tests" "$W/bin"
	cat >"$C/system.toml" <<-'T'
	name = "local"
	scheduler = "standalone"
	install_path = "./install"
	output_path = "./results"
	max_jobs = 8
	T
	# Sleep 4711: a number no other process here sleeps, to find leftovers
	printf 'name = "ok"\ndescription = "d"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 0\n' \
		>"$C/tests/ok.toml"
	printf 'name = "long"\ndescription = "d"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 4711\n' \
		>"$C/tests/long.toml"
	# fails with 3 until the build dir holds a file named fixed
	printf 'name = "fail"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "test -e ../../fixed || exit 3"\n' \
		>"$C/tests/fail.toml"
	printf 'name = "count"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo run >>../../count; sleep 3"\n' \
		>"$C/tests/count.toml"
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\ndocker_image_url = "unused"\nsubtest_name = "all_reduce_perf_mpi"\n' \
		>"$C/tests/nccl.toml"
	# a fake nccl-tests binary: exit 0 always; the success markers only
	# once $W/nccl-ok exists
	cat >"$W/bin/all_reduce_perf_mpi" <<-EOF
	#!/bin/sh
	echo "# nccl-tests (fake)"
	if [ -e "$W/nccl-ok" ]; then
		echo "# Out of bounds values : 0 OK"
		echo "# Avg bus bandwidth    : 1.5"
	fi
	exit 0
	EOF
	chmod +x "$W/bin/all_reduce_perf_mpi"
	export PATH="$W/bin:$PATH"
}

# leftovers: the pids of this test's `sleep 4711` (its cwd under $W): a
# suite running beside this one has its own
leftovers() {
	local p d w
	w=$(cd "$W" && pwd -P)
	for p in $(pgrep -f 'sleep 4711'); do
		d=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
		case $d in "$w"/*) echo "$p" ;; esac
	done
}

teardown() {
	# nothing may outlive a test: kill what is left by pid
	local p
	for p in $(leftovers); do
		kill -9 "$p" 2>/dev/null
	done
}

# gen SCENARIO-TEXT: the campaign with this scenario, into $B
gen() {
	printf '%s\n' "$1" >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
}

# jf FILE KEY: the value of KEY in job.json (cJSON's layout: one key a line)
jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

# epoch of a run's own start record
started_at() {
	sed -n 's/^start=//p' "$B/$1/kunai.start"
}

# ninja_bg: ninja run in the background, its pid in NPID
ninja_bg() {
	"$NINJA" -C "$B" -k 0 run >"$W/ninja.log" 2>&1 3>&- &
	NPID=$!
}

# wait_for FILE [SECONDS]
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -le $((${2:-10} * 20)) ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

# the ninja of NPID and its kunai job processes (not the jobs: own sessions,
# the supervisors being kunai's children): ninja's children, kunai job itself
# (the standalone rule execs it) or a shell whose child it is
drivers() {
	local p c
	echo "$NPID"
	for p in $(pgrep -P "$NPID"); do
		echo "$p"
		c=
		read -r c 2>/dev/null <"/proc/$p/comm" || true
		[ "$c" = kunai ] || pgrep -P "$p" -x kunai
	done
}

@test "pass, workload check failing with exit 0, non-zero exit: outcomes, job.json, stamps, exit status" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "ok"
[[Tests]]
id = "n"
test_name = "nccl"
[[Tests]]
id = "f"
test_name = "fail"'
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	[[ "$output" == *"kunai: n/0: failed (workload check: '# Out of bounds values' not in stdout.txt)"* ]]
	[[ "$output" == *"kunai: f/0: failed (EXITED: exit code 3)"* ]]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/a/0/job.json" state)" = EXITED ]
	[ "$(jf "$B/a/0/job.json" exit_code)" = 0 ]
	[ "$(jf "$B/a/0/job.json" scheduler)" = standalone ]
	[ "$(jf "$B/a/0/job.json" dir)" = a/0 ]
	[ "$(jf "$B/a/0/job.json" attempt)" = 1 ]
	[[ "$(jf "$B/a/0/job.json" end_time)" == 20*Z ]]
	[ -f "$B/a/0/kunai.stamp" ]
	# exit 0, and still failed: the workload's check decides
	[ "$(jf "$B/n/0/job.json" exit_code)" = 0 ]
	[ "$(jf "$B/n/0/job.json" outcome)" = failed ]
	[ ! -e "$B/n/0/kunai.stamp" ]
	[ "$(jf "$B/f/0/job.json" exit_code)" = 3 ]
	[ "$(jf "$B/f/0/job.json" outcome)" = failed ]
	[ ! -e "$B/f/0/kunai.stamp" ]
	# kunai job itself: 0 iff passed
	(cd "$B" && "$KUNAI" job run --scheduler standalone --workload Sleep a/0)
	run -1 bash -c 'cd "$1" && "$KUNAI" job run --scheduler standalone --workload BashCmd f/0' _ "$B"
}

@test "a rerun re-runs exactly the failed runs, keeping their attempts; then no work to do" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "ok"
[[Tests]]
id = "n"
test_name = "nccl"
[[Tests]]
id = "f"
test_name = "fail"
[[Tests]]
id = "g"
test_name = "ok"
iterations = 2'
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	touch "$W/nccl-ok" "$B/fixed"
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '] RUN ')" -eq 2 ]
	[[ "$output" == *"RUN n/0"* && "$output" == *"RUN f/0"* ]]
	for d in n/0 f/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = passed ]
		[ "$(jf "$B/$d/job.json" attempt)" = 2 ]
		[ "$(jf "$B/$d/attempt-1/job.json" outcome)" = failed ]
		[ -f "$B/$d/attempt-1/stdout.txt" ]
		[ -f "$B/$d/attempt-1/kunai.exit" ]
		[ -f "$B/$d/kunai.stamp" ]
	done
	grep -q 'Avg bus bandwidth' "$B/n/0/stdout.txt"
	! grep -q 'Avg bus bandwidth' "$B/n/0/attempt-1/stdout.txt"
	[ ! -e "$B/a/0/attempt-1" ]
	run "$NINJA" -C "$B" -k 0 run
	[ "$status" -eq 0 ]
	[[ "$output" == *"ninja: no work to do."* ]]
	# a removed stamp: run again, the earlier attempts are kept, never overwritten
	rm "$B/n/0/kunai.stamp"
	"$NINJA" -C "$B" run >/dev/null
	[ "$(jf "$B/n/0/job.json" attempt)" = 3 ]
	[ "$(jf "$B/n/0/attempt-2/job.json" outcome)" = passed ]
	[ "$(jf "$B/n/0/attempt-1/job.json" outcome)" = failed ]
}

@test "time limit: TERM to the whole process group, outcome timeout, within seconds" {
	gen '
name = "o"
[[Tests]]
id = "l"
test_name = "long"
time_limit = "2s"'
	SECONDS=0
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$SECONDS" -lt 8 ]
	[ "$(jf "$B/l/0/job.json" state)" = TIMEOUT ]
	[ "$(jf "$B/l/0/job.json" outcome)" = timeout ]
	[ "$(jf "$B/l/0/job.json" reason)" = "time limit of 2 s" ]
	[ ! -e "$B/l/0/kunai.stamp" ]
	# the supervisor's exit record: the status, and that the limit ended it
	[ "$(head -n 1 "$B/l/0/kunai.exit")" = 143 ]
	grep -qx 'limit=timeout' "$B/l/0/kunai.exit"
	[ -z "$(leftovers)" ]
}

@test "time limit without the driver: a job whose ninja and kunai job were killed stops at its limit" {
	gen '
name = "o"
[[Tests]]
id = "l"
test_name = "long"
time_limit = "3s"'
	ninja_bg
	wait_for "$B/l/0/kunai.start"
	kill -9 $(drivers)
	# nobody watches it now: its own supervisor ends it at 3 s
	wait_for "$B/l/0/kunai.exit" 8
	[ -z "$(leftovers)" ]
	grep -qx 'limit=timeout' "$B/l/0/kunai.exit"
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/l/0/job.json" outcome)" = timeout ]
	[ "$(jf "$B/l/0/job.json" attempt)" = 1 ]
}

@test "a job's setsid and double-forked children end with it: nothing writes after the run is recorded" {
	printf '%s\n' 'name = "leak"' 'description = "d"' 'test_template_name = "BashCmd"' \
		'[cmd_args]' "cmd = \"setsid sh -c 'sleep 2; echo late >>../../leak; sleep 4711' & (sh -c 'sleep 2; echo late >>../../leak2; sleep 4711' &) ; echo started\"" \
		>"$C/tests/leak.toml"
	gen '
name = "o"
[[Tests]]
id = "k"
test_name = "leak"'
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(jf "$B/k/0/job.json" outcome)" = passed ]
	sleep 3
	[ ! -e "$B/leak" ]
	[ ! -e "$B/leak2" ]
	[ -z "$(leftovers)" ]
}

@test "start_post_init and start_post_comp with delays, end_post_comp stops the other run" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "count"
[[Tests]]
id = "i"
test_name = "ok"
  [[Tests.dependencies]]
  type = "start_post_init"
  id = "a"
  delay = 1
[[Tests]]
id = "p"
test_name = "ok"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "a"
  delay = 1
[[Tests]]
id = "s"
test_name = "long"
  [[Tests.dependencies]]
  type = "end_post_comp"
  id = "a"'
	SECONDS=0
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$SECONDS" -lt 15 ]
	# i started at least 1 s after a started, while a ran (3 s)
	end=$(stat -c %Y "$B/a/0/kunai.exit")
	[ $(($(started_at i/0) - $(started_at a/0))) -ge 1 ] || { cat "$B/a/0/job.json" "$B/i/0/job.json" "$B/a/0/kunai.start" "$B/i/0/kunai.start"; false; }
	[ "$(started_at i/0)" -le "$end" ]
	# p started at least 1 s after a ended
	[ $(($(started_at p/0) - end)) -ge 1 ]
	# s was stopped once a completed: passed, with the reason
	[ "$(jf "$B/s/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/s/0/job.json" reason)" = "stopped: a completed" ]
	[ -f "$B/s/0/kunai.stamp" ]
	[ -z "$(leftovers)" ]
	run "$NINJA" -C "$B" run
	[[ "$output" == *"ninja: no work to do."* ]]
}

@test "SIGINT to ninja cancels every job: no process left, outcome cancelled" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "long"
[[Tests]]
id = "y"
test_name = "long"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/y/0/kunai.start"
	kill -INT "$NPID"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ]
	grep -q 'interrupted by user' "$W/ninja.log"
	[ -z "$(leftovers)" ]
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = cancelled ]
		[ "$(jf "$B/$d/job.json" state)" = CANCELLED ]
		[ ! -e "$B/$d/kunai.stamp" ]
	done
}

@test "SIGKILL of ninja and kunai job: the next ninja run reattaches, nothing runs twice" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "count"
[[Tests]]
id = "y"
test_name = "count"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/y/0/kunai.start"
	kill -9 $(drivers)
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"x/0: reattaching to job"* ]]
	[ "$(wc -l <"$B/count")" -eq 2 ]
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = passed ]
		[ "$(jf "$B/$d/job.json" attempt)" = 1 ]
	done
}

@test "SIGKILL of ninja alone: its kunai jobs finish the runs, the next ninja does not run them again" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "count"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	kill -9 "$NPID"
	wait_for "$B/x/0/kunai.stamp" 15
	sleep 0.2
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[[ "$output" == *"x/0: passed already (job "* ]]
	[ "$(wc -l <"$B/count")" -eq 1 ]
	[ "$(jf "$B/x/0/job.json" attempt)" = 1 ]
	run "$NINJA" -C "$B" run
	[[ "$output" == *"ninja: no work to do."* ]]
}

@test "a result belongs to its script: a job whose script changed while it ran is not stamped, the new script runs" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "count"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	sed -i 's/sleep 3/exit 7/' "$B/x/0/run.sh"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ] || { cat "$W/ninja.log"; false; }
	grep -q 'x/0: the script changed while job .* ran' "$W/ninja.log"
	[ ! -e "$B/x/0/kunai.stamp" ]
	[ "$(jf "$B/x/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/x/0/job.json" exit_code)" = 7 ]
	[ "$(jf "$B/x/0/attempt-1/job.json" reason)" = "superseded: the script changed while it ran" ]
	run "$NINJA" -C "$B" -n run
	[[ "$output" == *"x/0"* ]]
}

@test "no reattaching to a job of another script: after a killed driver and a config change the new config runs" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "count"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	kill -9 $(drivers)
	printf 'name = "count"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "exit 7"\n' \
		>"$C/tests/count.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[[ "$output" == *"x/0: the script changed since job "*"; cancelling it (kept as attempt-1)"* ]]
	[ "$(jf "$B/x/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/x/0/job.json" exit_code)" = 7 ]
	[ "$(jf "$B/x/0/attempt-1/job.json" outcome)" = cancelled ]
	[ ! -e "$B/x/0/kunai.stamp" ]
	# the old job is over: nothing of it writes on
	[ ! -e "$B/count" ] || [ "$(wc -l <"$B/count")" -eq 1 ]
	sleep 3.5
	[ ! -e "$B/x/0/kunai.stamp" ]
}

@test "rules that gain exec keep the finished runs of a build dir: kunai gen carries its .ninja_log over" {
	# the build dir of a kunai whose rules ran kunai job without exec, all
	# done: a kunai at a path of its own, the rules in a dir of their own
	mkdir -p "$W/k" "$W/rules"
	cp "$KUNAI" "$W/k/kunai"
	cp "$BATS_TEST_DIRNAME"/../rules/*.ninja "$W/rules/"
	grep -q '^run_command = exec ' "$W/rules/standalone.ninja"
	sed -i 's/^\(run\|start\)_command = exec /\1_command = /' "$W/rules/standalone.ninja"
	printf '%s\n' 'name = "exec"' '[[Tests]]' 'id = "a b"' 'test_name = "ok"' 'iterations = 2' \
		'[[Tests]]' 'id = "c"' 'test_name = "ok"' '  [[Tests.dependencies]]' '  type = "start_post_init"' \
		'  id = "a b"' >"$C/scenario.toml"
	(cd "$C" && "$W/k/kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" --rules-dir "$W/rules") >/dev/null
	run -0 "$NINJA" -C "$B" run
	[ -e "$B/a b/1/kunai.stamp" ]
	[ -e "$B/c/0/kunai.stamp" ]
	cat "$B"/*/*/job.json | md5sum >"$W/jobs"
	# the new kunai and its rules: ninja regenerates, and runs nothing
	cp "$BATS_TEST_DIRNAME"/../rules/standalone.ninja "$W/rules/"
	touch "$W/k/kunai"
	run -0 "$NINJA" -C "$B" run
	[[ "$output" == *"Regenerating build.ninja"* ]]
	[[ "$output" == *"kunai: 5 finished runs kept across the rules' exec"* ]]
	[[ "$output" == *"ninja: no work to do."* ]]
	[[ "$output" != *"RUN "* && "$output" != *"START "* ]]
	cat "$B"/*/*/job.json | md5sum | cmp - "$W/jobs"
	run -0 "$NINJA" -C "$B" run
	[[ "$output" == *"ninja: no work to do."* ]]
	# and the commands under exec are what ninja recorded
	grep -q '^exec .* job run --scheduler standalone .*'"'a b/1/kunai.stamp'" <("$NINJA" -C "$B" -t commands run)
}

@test "a second ninja on the same build dir is refused; a dead one's lock is taken over" {
	gen '
name = "o"
[[Tests]]
id = "x"
test_name = "count"'
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[[ "$output" == *"kunai: another ninja (pid $NPID) is running in $B; refusing to run x/0"* ]]
	wait "$NPID"
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	[ "$(wc -l <"$B/count")" -eq 1 ]
	rm "$B/x/0/kunai.stamp"
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
}

@test "a second kunai job on a run dir waits for the first (a flock of the dir, no lock file); a passed run's stamp is the record of its running job, so saving the final one frees no inode" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "count"'
	(cd "$B" && exec "$KUNAI" job run --scheduler standalone --workload BashCmd a/0 >"$W/first.log" 2>&1) &
	local p=$!
	wait_for "$B/a/0/kunai.start"
	run bash -c 'cd "$1" && "$KUNAI" job run --scheduler standalone --workload BashCmd a/0' _ "$B"
	wait "$p"
	[ "$status" -eq 0 ]
	[[ "$output" == *"kunai: a/0: another kunai job is running it; waiting for it"* ]]
	[[ "$output" == *"kunai: a/0: passed already"* ]]
	[ "$(cat "$B/count")" = run ]
	[ ! -e "$B/a/0/kunai.lock" ]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/a/0/kunai.stamp" state)" = RUNNING ]
	[ "$(jf "$B/a/0/kunai.stamp" job_id)" = "$(jf "$B/a/0/job.json" job_id)" ]
	[ "$(stat -c %h "$B/a/0/kunai.stamp")" = 1 ]
	[ "$(stat -c %h "$B/a/0/job.json")" = 1 ]
	[ "$B/a/0/kunai.stamp" -nt "$B/a/0/run.sh" ]
}

@test "kunai job: usage errors, unknown workload, the kubernetes backend" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "ok"'
	cd "$B"
	run -2 "$KUNAI" job
	run -2 "$KUNAI" job run a/0
	[[ "$output" == *"--scheduler is required"* ]]
	run -2 "$KUNAI" job walk --scheduler standalone a/0
	run -2 "$KUNAI" job run --scheduler pbs a/0
	run -2 "$KUNAI" job run --scheduler standalone --workload Nope a/0
	run -2 "$KUNAI" job run --scheduler standalone --after-start nodelay a/0
	run -2 "$KUNAI" job run --scheduler standalone --time-limit -3 a/0
	run -2 "$KUNAI" job run --scheduler standalone --launch-dir relative/dir a/0
	[[ "$output" == *"--launch-dir 'relative/dir': an absolute path expected"* ]]
	run -2 "$KUNAI" job run --scheduler slurm --single-sbatch ../x.sh a/0
	run -1 "$KUNAI" job run --scheduler standalone no/such/dir
	run -1 "$KUNAI" job run --scheduler kubernetes a/0
	[[ "$output" == *"a/0/k8s.json: "*"(run kunai gen)"* ]]
	run "$KUNAI" help job
	[[ "$output" == *"--stop-with ID"* ]]
}

@test "kunai job reads the run's options from its script's #KUNAI line; the command line's come after" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "ok"
time_limit = "00:01:00"'
	cd "$B"
	[ "$(sed -n 3p a/0/run.sh)" = "#KUNAI --workload Sleep --time-limit 60" ]
	# the build edge names the stamp and nothing else
	grep -qx 'build a/0/kunai.stamp: run' build.ninja
	# the NCCL check on a sleep's output fails the run, which exited 0
	sed -i '3s/.*/#KUNAI --workload NcclTest '\''--time-limit'\'' "6""0"/' a/0/run.sh
	run -1 "$KUNAI" job run --scheduler standalone a/0/kunai.stamp
	[ "$(jf a/0/job.json outcome)" = failed ]
	[ "$(jf a/0/job.json exit_code)" = 0 ]
	[ ! -e a/0/kunai.stamp ]
	# an option given on the command line comes after the script's
	run -0 "$KUNAI" job run --scheduler standalone --workload Sleep a/0/kunai.stamp
	[ "$(jf a/0/job.json outcome)" = passed ]
	[ -e a/0/kunai.stamp ]
	# a #KUNAI line that is no list of words, or names no option, is an error
	sed -i '3s/.*/#KUNAI --workload '\''Sleep/' a/0/run.sh
	run -2 "$KUNAI" job run --scheduler standalone a/0
	[[ "$output" == *"a/0/run.sh:3: #KUNAI: unterminated quote"* ]]
	sed -i '3s/.*/#KUNAI --wrkload Sleep/' a/0/run.sh
	run -2 "$KUNAI" job run --scheduler standalone a/0
	[[ "$output" == *"unknown option '--wrkload'"* ]]
}

@test "SIGINT while waiting for --delay: nothing is submitted" {
	gen '
name = "o"
[[Tests]]
id = "a"
test_name = "ok"'
	cd "$B"
	"$KUNAI" job run --scheduler standalone --workload Sleep --delay 30 a/0 2>"$W/err" &
	pid=$!
	sleep 0.3
	kill -INT "$pid"
	status=0; wait "$pid" || status=$?
	[ "$status" -eq 130 ]
	grep -q 'interrupted before submitting' "$W/err"
	[ ! -e a/0/job.json ]
	[ ! -e a/0/kunai.start ]
}

@test "a run.sh of literal words runs without bash, as bash would: same environment, output files, PATH search" {
	printf 'name = "env"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "env"\n[extra_env_vars]\nA = "x y"\nB = "it'"'"'s"\nC = "plain"\n' \
		>"$C/tests/env.toml"
	printf 'name = "gone"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "kunai-no-such-command x"\n' \
		>"$C/tests/gone.toml"
	gen 'name = "s"
[[Tests]]
id = "p"
test_name = "env"
[[Tests]]
id = "b"
test_name = "env"
[[Tests]]
id = "n"
test_name = "gone"'
	grep -qx 'exec env' "$B/p/0/run.sh"
	# the same script, with a line only bash runs: bash's own result
	sed -i 's/^exec env$/: only bash runs this\nexec env/' "$B/b/0/run.sh"
	mkdir "$W/old"
	# what bash acts on: PWD naming another dir, OLDPWD a dir or not, SHLVL
	# (unset or a level) and $_
	for e in "PWD=/ OLDPWD=$W/old SHLVL=3 _=/x" "-u SHLVL -u PWD OLDPWD=$W/none"; do
		rm -f "$B"/*/0/kunai.stamp
		(cd "$B" && env $e "$NINJA" -k 0 run >"$W/log" 2>&1) || true
		[ -e "$B/p/0/kunai.stamp" ]
		[ -e "$B/b/0/kunai.stamp" ]
		grep -qx via=exec "$B/p/0/kunai.start"
		grep -qx via=bash "$B/b/0/kunai.start"
		[ "$(jf "$B/p/0/job.json" outcome)" = passed ]
		grep -qx "PWD=$B/p/0" "$B/p/0/stdout.txt"
		grep -qx "PWD=$B/b/0" "$B/b/0/stdout.txt"
		grep -v '^PWD=' "$B/b/0/stdout.txt" | sort >"$W/b"
		grep -v '^PWD=' "$B/p/0/stdout.txt" | sort >"$W/p"
		diff -u "$W/b" "$W/p"
		grep -qx 'A=x y' "$W/p"
		grep -qx "B=it's" "$W/p"
		# a command PATH does not give: bash says so, with its status
		grep -qx via=bash "$B/n/0/kunai.start"
		grep -q 'exec: kunai-no-such-command: not found' "$B/n/0/stderr.txt"
		[ "$(jf "$B/n/0/job.json" exit_code)" = 127 ]
		case $e in
		PWD=*) grep -qx "OLDPWD=$W/old" "$W/p" && grep -qx SHLVL=3 "$W/p" && ! grep -q '^_=' "$W/p" ;;
		*) ! grep -q OLDPWD "$W/p" && grep -qx SHLVL=0 "$W/p" ;;
		esac
	done
}
