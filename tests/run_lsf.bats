#!/usr/bin/env bats
# kunai on an LSF system, end to end with the real ninja, against the
# STAND-IN bsub/bjobs/bkill of tests/lsf/ (no LSF can run here; they follow
# LSF 10.1's options and output, see tests/lsf/bsub): bsub scripts from
# gen, byte-stable; a scenario with a dependency; outcomes (exit code, run
# limit, bkill); one bjobs for all the build dir's jobs; Ctrl-C.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	mkdir -p "$C/tests"
	system
	LONG=$((5000000 + $$ % 1000000))
	tst ok 'echo hello from lsf; sleep 1'
	tst fail 'echo bad; exit 3'
	tst long "sleep $LONG"
	export PATH="$BATS_TEST_DIRNAME/lsf:$PATH" KUNAI_TEST_LSF_DIR=$W/lsf
	export KUNAI_MAX_RETRIES=0
}

teardown() {
	local p
	for p in $(pgrep -f "sleep $LONG\$"); do
		kill -9 "$p" 2>/dev/null
	done
}

system() {
	cat >"$C/system.toml" <<-T
	name = "lsf"
	scheduler = "lsf"
	install_path = "./install"
	output_path = "./results"
	project_name = "kunai"
	default_queue = "normal"
	${1:-}

	[[queues]]
	name = "normal"
	T
}

# tst NAME COMMAND
tst() {
	printf 'name = "%s"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "%s"\n' "$1" "$2" \
		>"$C/tests/$1.toml"
}

gen() {
	printf 'name = "o"\n%s\n' "$1" >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "${2:-$B}") >/dev/null
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

THREE='[[Tests]]
id = "first"
test_name = "ok"
time_limit = "00:10:00"
[[Tests]]
id = "second"
test_name = "ok"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "first"
[[Tests]]
id = "third"
test_name = "ok"'

@test "bsub scripts: #BSUB lines from the system and the test, byte-stable across two gens and build dirs" {
	gen "$THREE"
	local s=$B/first/0/bsub_script.sh
	grep -qx '#BSUB -J o.first.0' "$s"
	grep -qx '#BSUB -o stdout.txt' "$s"
	grep -qx '#BSUB -q normal' "$s"
	grep -qx '#BSUB -P kunai' "$s"
	grep -qx '#BSUB -W 10' "$s"
	grep -qx '#BSUB -n 1' "$s"
	grep -q '^#KUNAI --workload BashCmd --time-limit 600$' "$s"
	grep -q '^#KUNAI --workload BashCmd --delay' "$B/second/0/bsub_script.sh" ||
		grep -q '^#KUNAI --workload BashCmd$' "$B/second/0/bsub_script.sh"
	grep -q 'include $rulesdir/lsf.ninja' "$B/build.ninja"
	gen "$THREE" "$W/elsewhere/b"
	for f in first/0/bsub_script.sh second/0/bsub_script.sh third/0/bsub_script.sh build.ninja; do
		cmp "$B/$f" "$W/elsewhere/b/$f"
	done
	! grep -rq "$W" "$B"/*/0/bsub_script.sh
	# a second gen of the same inputs rewrites nothing
	local before
	before=$(stat -c %Y.%y "$s")
	sleep 1
	gen "$THREE"
	[ "$(stat -c %Y.%y "$s")" = "$before" ]
}

@test "a 3-test scenario with a dependency runs: submitted, graded, in order; a second ninja has no work" {
	gen "$THREE"
	export KUNAI_TEST_LSF_BJOBS_LOG=$W/bjobs.log
	run "$NINJA" -C "$B" -k 0 run
	echo "$output"
	[ "$status" -eq 0 ]
	local t
	for t in first second third; do
		[ "$(jf "$B/$t/0/job.json" outcome)" = passed ]
		[ "$(jf "$B/$t/0/job.json" scheduler)" = lsf ]
		[ "$(jf "$B/$t/0/job.json" state)" = COMPLETED ]
		[ -e "$B/$t/0/kunai.stamp" ]
		[ "$(cat "$B/$t/0/stdout.txt")" = "hello from lsf" ]
	done
	# the job ids bsub printed, recorded; and the dependency held
	[ "$(jf "$B/first/0/job.json" job_id)" -ge 101 ]
	[ "$(jf "$B/second/0/job.json" start_time)" \> "$(jf "$B/first/0/job.json" end_time)" ] ||
		[ "$(jf "$B/second/0/job.json" start_time)" = "$(jf "$B/first/0/job.json" end_time)" ]
	[ "$(cat "$W/lsf/$(jf "$B/first/0/job.json" job_id).desc")" = "kunai:$B/first/0" ]
	run "$NINJA" -C "$B" run
	[[ $output == *"no work to do"* ]]
}

@test "outcomes: exit code is failed, the run limit is timeout, both retried by the next ninja" {
	gen '[[Tests]]
id = "f"
test_name = "fail"
[[Tests]]
id = "t"
test_name = "long"
time_limit = "00:01:00"'
	KUNAI_TEST_LSF_MINUTE=2 run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/f/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/f/0/job.json" exit_code)" = 3 ]
	[ "$(jf "$B/t/0/job.json" outcome)" = timeout ]
	[ "$(jf "$B/t/0/job.json" state)" = TIMEOUT ]
	[ ! -e "$B/f/0/kunai.stamp" ]
	[ ! -e "$B/t/0/kunai.stamp" ]
	! pgrep -f "sleep $LONG\$"
	KUNAI_TEST_LSF_MINUTE=2 run "$NINJA" -C "$B" -k 0 run
	[ "$(jf "$B/f/0/job.json" attempt)" = 2 ]
}

@test "one bjobs per poll serves every job of the build dir" {
	local i s=""
	tst mid 'sleep 3'
	for i in 1 2 3 4 5 6; do
		s="$s$(printf '[[Tests]]\nid = "t%s"\ntest_name = "mid"\n' "$i")"$'\n'
	done
	gen "$s"
	export KUNAI_TEST_LSF_BJOBS_LOG=$W/bjobs.log
	run "$NINJA" -C "$B" -j 6 run
	[ "$status" -eq 0 ]
	# every poll asked about all the jobs registered then, in one call
	[ "$(grep -c . "$W/bjobs.log")" -ge 1 ]
	[ "$(awk '{ if (NF - 1 > m) m = NF - 1 } END { print m }' "$W/bjobs.log")" -ge 2 ]
	[ "$(grep -c . "$W/bjobs.log")" -le 12 ]
}

@test "bsub refused while LSF is down is retried; Ctrl-C bkills the running job" {
	gen '[[Tests]]
id = "a"
test_name = "ok"'
	KUNAI_TEST_LSF_DOWN=1 run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	rm -rf "$B"
	gen '[[Tests]]
id = "l"
test_name = "long"'
	export KUNAI_TEST_LSF_BKILL_LOG=$W/bkill.log
	"$NINJA" -C "$B" run >"$W/ninja.log" 2>&1 3>&- &
	local npid=$! i=0
	while [ ! -e "$B/l/0/kunai.start" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	[ -e "$B/l/0/kunai.start" ]
	kill -INT "$npid"
	wait "$npid" || true
	[ "$(cat "$W/bkill.log")" = "$(jf "$B/l/0/job.json" job_id)" ]
	[ "$(jf "$B/l/0/job.json" outcome)" = cancelled ]
	i=0
	while pgrep -f "sleep $LONG\$" >/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	! pgrep -f "sleep $LONG\$"
}

@test "a setting bsub refuses is a configuration error naming its field; bsub's whole answer is kept in bsub.txt, an earlier one in attempt-N" {
	gen '[[Tests]]
id = "a"
test_name = "ok"
time_limit = "00:10:00"'
	KUNAI_TEST_LSF_QUEUES=other run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/a/0/job.json" state)" = CONFIG_ERROR ]
	[ "$(jf "$B/a/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/a/0/job.json" reason)" = "configuration error: queue 'normal' does not exist on this cluster: set the system TOML's default_queue (or the queue of a test's nodes) to one that bqueues lists [normal: No such queue. Job not submitted.]" ]
	# its command line and status, then what it said
	head -1 "$B/a/0/bsub.txt" | grep -Eqx "# bsub -Jd '.+' <bsub_script\.sh \(in a/0\): exit status 255"
	[ "$(sed 1d "$B/a/0/bsub.txt")" = "normal: No such queue. Job not submitted." ]
	# the queue's run limit: -W 10 against 5
	KUNAI_TEST_LSF_RUNLIMIT=5 run "$NINJA" -C "$B" run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/a/0/job.json" state)" = CONFIG_ERROR ]
	[ "$(jf "$B/a/0/job.json" reason)" = "configuration error: a run limit of 10 minutes exceeds the queue's: lower the test's time_limit (bqueues -l shows RUNLIMIT) [Cannot exceed queue's hard limit(s). Job not submitted.]" ]
	grep -qx "Cannot exceed queue's hard limit(s). Job not submitted." "$B/a/0/bsub.txt"
	grep -q 'No such queue' "$B"/a/0/attempt-1/bsub.txt
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ ! -e "$B/a/0/bsub.txt" ]
	grep -q 'hard limit' "$B"/a/0/attempt-2/bsub.txt
}
