#!/usr/bin/env bats
# kunai job on a real single-node Slurm (tests/slurm/start), end to end with the
# real ninja, once on a cluster without accounting (final states from
# `squeue -t all`) and once with slurmdbd (sacct), both with Slurm's default
# JobRequeue=1: outcomes and the success check, the dependency kinds, a rerun
# of only the failed runs, scancel from outside, Ctrl-C, reattaching after a
# killed ninja, a node failure retried, slurmctld gone, node groups, results
# within seconds of the jobs' exit records at a few queries for all. The one
# slow case, a time limit (Slurm kills 60-90 s after the start), runs in the
# background from setup_file; only the plain node failure comes after it.
bats_require_minimum_version 1.5.0

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (the test cluster runs its daemons as root)"
	local b
	for b in sbatch squeue scancel scontrol sacct; do
		command -v "$b" >/dev/null || skip "no $b (apt-get install slurm-wlm)"
	done
	PATH=$PATH:/usr/sbin:/sbin
	command -v slurmctld >/dev/null && command -v munged >/dev/null || skip "no slurmctld/munged"
	# ports of our own, apart from other suites' clusters (KUNAI_TEST_SLURM_PORT: the
	# first of 16 that the Slurm suites take: this one +0, install.bats +8, scripts.bats +12)
	local port=${KUNAI_TEST_SLURM_PORT:-$((20000 + ($$ % 1000) * 8))} out
	export PLAIN_PORT=$port
	export SLURM_PLAIN=/tmp/kunai-slurm-$$ SLURM_ACCT=/tmp/kunai-slurm-acct-$$
	out=$(SLURM_LOCAL_CPUS=16 SLURM_LOCAL_PORT=$port "$BATS_TEST_DIRNAME/slurm/start" "$SLURM_PLAIN" 2>&1) ||
		{ echo "slurm/start: $out" >&3; return 1; }
	export CONF_PLAIN=${out##*SLURM_CONF=}
	export CONF_ACCT=
	if command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
		export ACCT_PORT=$((port + 4))
		out=$(SLURM_LOCAL_CPUS=16 SLURM_LOCAL_PORT=$ACCT_PORT "$BATS_TEST_DIRNAME/slurm/start" --accounting \
			"$SLURM_ACCT" 2>&1) || { echo "slurm/start --accounting: $out" >&3; return 1; }
		CONF_ACCT=${out##*SLURM_CONF=}
	fi
	# the slow case: a job of 300 s under a 1-minute limit, in the background
	export SLOW=$BATS_FILE_TMPDIR/slow
	campaign "$SLOW/c"
	scenario "$SLOW/c" '
name = "slow"
[[Tests]]
id = "t"
test_name = "long"
time_limit = "1"'
	gen "$SLOW/c" "$SLOW/out"
	(
		export SLURM_CONF=$CONF_PLAIN
		cd "$SLOW" && exec "${NINJA:-ninja}" -C out run >ninja.log 2>&1 </dev/null
	) 3>&- &
	echo $! >"$SLOW/ninja.pid"
}

teardown_file() {
	local p
	if [ -f "${SLOW:-}/ninja.pid" ]; then
		p=$(cat "$SLOW/ninja.pid")
		kill "$p" 2>/dev/null && sleep 1
	fi
	for p in "${SLURM_PLAIN:-}" "${SLURM_ACCT:-}"; do
		[ -n "$p" ] && [ -d "$p" ] || continue
		"$BATS_TEST_DIRNAME/slurm/stop" "$p" >/dev/null 2>&1
		rm -rf "$p"
	done
}

# campaign DIR: system.toml and test definitions in DIR
campaign() {
	local c=$1
	mkdir -p "$c/tests"
	cat >"$c/system.toml" <<-'T'
	name = "testcluster"
	scheduler = "slurm"
	install_path = "./install"
	output_path = "./results"
	default_partition = "debug"
	max_jobs = 16
	[[partitions]]
	name = "debug"
	T
	printf 'name = "ok"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo ok; sleep 3"\n' \
		>"$c/tests/ok.toml"
	printf 'name = "quick"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo quick"\n' \
		>"$c/tests/quick.toml"
	printf 'name = "long"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "sleep 300"\n' \
		>"$c/tests/long.toml"
	printf 'name = "fail"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "test -e ../../fixed || exit 3"\n' \
		>"$c/tests/fail.toml"
	printf 'name = "count"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo run >>../../count; sleep 4"\n' \
		>"$c/tests/count.toml"
	printf 'name = "count3"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo run >>../../count; sleep 4; exit 3"\n' \
		>"$c/tests/count3.toml"
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\ndocker_image_url = "unused"\nsubtest_name = "all_reduce_perf_mpi"\n' \
		>"$c/tests/nccl.toml"
}

scenario() {
	printf '%s\n' "$2" >"$1/scenario.toml"
}

gen() {
	(cd "$1" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$2") >/dev/null
}

# use MODE: the cluster of MODE (plain or acct) for this test, a fresh campaign in $C, build dir $B
use() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$W/out
	if [ "$1" = acct ]; then
		[ -n "$CONF_ACCT" ] || skip "no slurmdbd/mariadb (apt-get install slurmdbd mariadb-server)"
		export SLURM_CONF=$CONF_ACCT
	else
		export SLURM_CONF=$CONF_PLAIN
	fi
	campaign "$C"
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

started_at() {
	sed -n 's/^start=//p' "$B/$1/kunai.start"
}

wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -le $((${2:-20} * 20)) ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

# one run, x/0, of the count test on the cluster of MODE (default acct), generated
# one_count_run [MODE [TEST]]: one run x of test count (or TEST)
one_count_run() {
	use "${1:-acct}"
	scenario "$C" "
name = \"o\"
[[Tests]]
id = \"x\"
test_name = \"${2:-count}\""
	gen "$C" "$B"
}

ninja_bg() {
	"$NINJA" -C "$B" -j 16 -k 0 run >"$W/ninja.log" 2>&1 3>&- &
	NPID=$!
}

# kill_driver: SIGKILL to the background ninja and the kunai jobs it runs
kill_driver() {
	local p k=$NPID
	for p in $(pgrep -P "$NPID"); do
		# (the rule execs kunai job: $p is it, or the shell of an older rule)
		k="$k $p $(pgrep -P "$p" -x kunai || true)"
	done
	kill -9 $k
}

# the jobs of this test still queued, running or completing (give slurmctld a moment)
live_jobs() {
	local ids i
	ids=$(cat "$B"/*/0/job.json | sed -n 's/^	"job_id":	"\([0-9]*\)",$/\1/p' | paste -sd, -)
	for i in $(seq 40); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.25
	done
	squeue -j "$ids"
}

# sums of every file in the run dir x/0 and the count file
sums() {
	find "$B/x/0" "$B/count" -type f ! -name '*.tmp' -exec md5sum {} + | sort
}

# A node set DOWN under the running job x/0, with the cluster's requeue at
# Slurm's default (JobRequeue=1): kunai submits with --no-requeue, so
# Slurm ends the job NODE_FAIL and kunai retries it as attempt 2. Never two
# jobs for one attempt (Slurm's requeue would run the first again under
# its id), none left behind, no record written after kunai recorded it.
node_fail() {
	local node id1 id2 before
	scontrol show config | grep -Eq '^JobRequeue +=  *1$'
	KUNAI_RETRY_DELAY=1 ninja_bg
	wait_for "$B/count"
	node=$(sinfo -h -o %N | head -n 1)
	scontrol update nodename="$node" state=down reason=kunai-test
	# ReturnToService=2 brings the node back by itself; make sure
	scontrol update nodename="$node" state=resume 2>/dev/null || true
	status=0; wait "$NPID" || status=$?
	[ "$status" -eq 0 ] || { cat "$W/ninja.log"; false; }
	grep -q 'x/0: node-fail (NODE_FAIL); attempt 2 of 3' "$W/ninja.log"
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/x/0/job.json" attempt)" = 2 ]
	[ "$(jf "$B/x/0/attempt-1/job.json" state)" = NODE_FAIL ]
	[ "$(jf "$B/x/0/attempt-1/job.json" outcome)" = node-fail ]
	id1=$(jf "$B/x/0/attempt-1/job.json" job_id)
	id2=$(jf "$B/x/0/job.json" job_id)
	[ -n "$id1" ]
	[ -n "$id2" ]
	[ "$id1" != "$id2" ]
	# the first job ended for good, not requeued (Restarts=0, not PENDING)
	scontrol -o show job "$id1" | grep -q 'JobState=NODE_FAIL .*Requeue=0 Restarts=0 '
	if [ "$1" = acct ]; then
		# sacct -D lists each requeued incarnation: one record only
		[ "$(sacct -D -X -n -P -j "$id1" -o State)" = NODE_FAIL ]
	fi
	# one line per attempt; nothing of this run left in the queue, and
	# nothing rewritten after the run was recorded (Slurm schedules
	# every 2 s here)
	[ "$(wc -l <"$B/count")" -eq 2 ]
	before=$(sums)
	sleep 3
	[ -z "$(squeue -h -j "$id1,$id2" -t PD,R,CG,CF,RQ,S 2>/dev/null)" ] || { squeue -j "$id1,$id2"; false; }
	[ "$(sums)" = "$before" ]
	[ "$(wc -l <"$B/count")" -eq 2 ]
}

outcomes() {
	use "$1"
	# no pyxis here: an srun that runs its command in place, so NcclTest's
	# fake binary can exit 0 without the success markers
	mkdir -p "$W/bin"
	printf '#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != bash ]; do shift; done\nexec "$@"\n' >"$W/bin/srun"
	printf '#!/bin/sh\necho "# fake"\n[ -e %s/nccl-ok ] && echo "# Out of bounds values : 0 OK" && echo "# Avg bus bandwidth : 1"\nexit 0\n' \
		"$W" >"$W/bin/all_reduce_perf_mpi"
	chmod +x "$W/bin/srun" "$W/bin/all_reduce_perf_mpi"
	scenario "$C" '
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
id = "i"
test_name = "quick"
  [[Tests.dependencies]]
  type = "start_post_init"
  id = "a"
  delay = 1
[[Tests]]
id = "p"
test_name = "quick"
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
	gen "$C" "$B"
	PATH="$W/bin:$PATH" run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -ne 0 ] || { echo "$output"; false; }
	[[ "$output" == *"kunai: n/0: failed (workload check: '# Out of bounds values' not in stdout.txt)"* ]] ||
		{ echo "$output"; false; }
	[[ "$output" == *"kunai: f/0: failed (FAILED: exit code 3)"* ]] ||
		{ echo "$output"; cat "$B/f/0/job.json" "$B/.kunai/poll.state"; ls -R "$B/f"; false; }
	[ "$(jf "$B/a/0/job.json" state)" = COMPLETED ]
	[ "$(jf "$B/a/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/a/0/job.json" scheduler)" = slurm ]
	[ -n "$(jf "$B/a/0/job.json" nodes)" ]
	[[ "$(jf "$B/a/0/job.json" start_time)" == 20*Z ]]
	[ -f "$B/a/0/kunai.stamp" ]
	[ "$(jf "$B/n/0/job.json" state)" = COMPLETED ]
	[ "$(jf "$B/n/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/f/0/job.json" state)" = FAILED ]
	[ "$(jf "$B/f/0/job.json" exit_code)" = 3 ]
	[ ! -e "$B/n/0/kunai.stamp" ]
	[ ! -e "$B/f/0/kunai.stamp" ]
	end=$(stat -c %Y "$B/a/0/kunai.exit")
	[ $(($(started_at i/0) - $(started_at a/0))) -ge 1 ]
	[ "$(started_at i/0)" -le "$end" ]
	[ $(($(started_at p/0) - end)) -ge 1 ]
	[ "$(jf "$B/s/0/job.json" state)" = CANCELLED ]
	[ "$(jf "$B/s/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/s/0/job.json" reason)" = "stopped: a completed" ]
	# the poller found out which way to ask: sacct, or scontrol without accounting
	[ "$(cat "$B/.kunai/accounting")" = "$([ "$1" = acct ] && echo yes || echo no)" ]
	live_jobs
	# only the two failed runs again; their first attempt kept
	touch "$W/nccl-ok" "$B/fixed"
	PATH="$W/bin:$PATH" run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(printf '%s\n' "$output" | grep -c '] RUN ')" -eq 2 ]
	[[ "$output" == *"RUN n/0"* && "$output" == *"RUN f/0"* ]]
	[ "$(jf "$B/f/0/job.json" attempt)" = 2 ]
	[ "$(jf "$B/f/0/attempt-1/job.json" state)" = FAILED ]
	[ -f "$B/f/0/attempt-1/stdout.txt" ]
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[[ "$output" == *"ninja: no work to do."* ]]
}

cancelled_outside() {
	use "$1"
	scenario "$C" '
name = "o"
[[Tests]]
id = "l"
test_name = "long"'
	gen "$C" "$B"
	ninja_bg
	wait_for "$B/l/0/kunai.start"
	scancel "$(jf "$B/l/0/job.json" job_id)"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ]
	[ "$(jf "$B/l/0/job.json" state)" = CANCELLED ]
	[ "$(jf "$B/l/0/job.json" outcome)" = cancelled ]
	[ ! -e "$B/l/0/kunai.stamp" ]
}

interrupted() {
	use "$1"
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "long"
[[Tests]]
id = "y"
test_name = "long"'
	gen "$C" "$B"
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/y/0/kunai.start"
	kill -INT "$NPID"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ]
	grep -q 'interrupted by user' "$W/ninja.log"
	live_jobs
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = cancelled ]
	done
	! pgrep -f "kunai job run --scheduler slurm --workload BashCmd [xy]/0"
}

# two_counts MODE: runs x and y of test count, generated into $B
two_counts() {
	use "$1"
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "count"
[[Tests]]
id = "y"
test_name = "count"'
	gen "$C" "$B"
}

reattached() {
	two_counts "$1"
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	wait_for "$B/y/0/kunai.start"
	kill_driver
	[ -n "$(squeue -h)" ]
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"reattaching to job"* ]]
	# one submission each: the job appended one line, and attempt 1 passed
	[ "$(wc -l <"$B/count")" -eq 2 ]
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = passed ]
		[ "$(jf "$B/$d/job.json" attempt)" = 1 ]
	done
}

# earlier FILE...: each sbatch script back in the form an earlier kunai
# wrote (its exit record the status alone, no kunai_exit), mtime kept
earlier() {
	local f legacy=$BATS_TEST_TMPDIR/legacy
	cat >"$legacy" <<'L'
trap 'kunai_rc=$?; kunai_t=$(mktemp "$RUN_DIR/kunai.exit.XXXXXX") && echo $kunai_rc >"$kunai_t" && mv -fT "$kunai_t" "$RUN_DIR/kunai.exit"' EXIT
L
	for f; do
		LEGACY=$legacy perl -0pi -e 'BEGIN { local $/; open L, $ENV{LEGACY}; $l = <L> }
			s/kunai_exit\(\) \{\n.*?\ntrap .kunai_exit \$\?. EXIT\n/$l/s or die "no kunai_exit in $ARGV"' "$f"
		! grep -q kunai_exit "$f"
	done
}

@test "plain: an upgrade whose scripts differ only in their record lines, while a job of the earlier script runs: no rerun, no cancel, the job's result is the run's" {
	two_counts plain
	earlier "$B"/[xy]/0/cloudai_sbatch_script.sh
	# y ran to the end under the earlier kunai; x's job runs when its driver dies
	run "$NINJA" -C "$B" y
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	ninja_bg
	wait_for "$B/x/0/kunai.start"
	local before
	kill_driver
	before=$(stat -c %y "$B"/[xy]/0/cloudai_sbatch_script.sh)
	# the upgrade: gen writes the new record lines and keeps the scripts' mtimes
	gen "$C" "$B"
	grep -q '^trap .kunai_exit \$?. EXIT$' "$B/x/0/cloudai_sbatch_script.sh"
	grep -q '^trap .kunai_exit \$?. EXIT$' "$B/y/0/cloudai_sbatch_script.sh"
	[ "$(stat -c %y "$B"/[xy]/0/cloudai_sbatch_script.sh)" = "$before" ]
	run "$NINJA" -C "$B" run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"x/0: reattaching to job"* ]] || { echo "$output"; false; }
	[[ "$output" != *"script changed"* && "$output" != *"y/0"* ]] || { echo "$output"; false; }
	# each ran once: y before the upgrade, x's one job across it
	[ "$(wc -l <"$B/count")" -eq 2 ]
	for d in x/0 y/0; do
		[ "$(jf "$B/$d/job.json" outcome)" = passed ]
		[ "$(jf "$B/$d/job.json" attempt)" = 1 ]
	done
	run "$NINJA" -C "$B" run
	[[ "$output" == *"no work to do"* ]] || { echo "$output"; false; }
}

@test "plain: pass, workload check with exit 0, exit code, dependencies with delays, rerun of the failed only" {
	outcomes plain
}

@test "plain: scancel from outside is outcome cancelled" {
	cancelled_outside plain
}

@test "plain: SIGINT to ninja cancels the jobs: none left in squeue" {
	interrupted plain
}

@test "plain: SIGKILL of ninja and kunai job, the next ninja run reattaches" {
	reattached plain
}

@test "accounting: pass, workload check with exit 0, exit code, dependencies with delays, rerun of the failed only" {
	outcomes acct
}

@test "accounting: scancel from outside is outcome cancelled" {
	cancelled_outside acct
}

@test "accounting: SIGINT to ninja cancels the jobs: none left in squeue" {
	interrupted acct
}

@test "accounting: SIGKILL of ninja and kunai job, the next ninja run reattaches" {
	reattached acct
}

@test "accounting: a node failure under Slurm's default requeue: attempt 2, one job per attempt, none left, nothing overwritten" {
	one_count_run
	node_fail acct
}

# gone TEST: the run of TEST, whose job writes its exit record while
# slurmctld and slurmdbd are down; ended ($W/ended) says after how many
# quarter seconds from the record ninja ended, at most 120
gone() {
	one_count_run acct "$1"
	KUNAI_TRUST_RECORD=4 ninja_bg
	# the command itself runs (the probes' sruns are done): slurmctld and
	# slurmdbd stop while it goes on, so nobody can confirm its end
	wait_for "$B/count"
	kill "$(cat "$SLURM_ACCT/run/slurmctld.pid")" "$(cat "$SLURM_ACCT/run/slurmdbd.pid")"
	wait_for "$B/x/0/kunai.exit"
	local i
	for i in $(seq 120); do
		kill -0 "$NPID" 2>/dev/null || break
		sleep 0.25
	done
	echo "$i" >"$W/ended"
	# back for the tests after this one (a waiter still waiting then sees the end)
	SLURM_LOCAL_CPUS=16 SLURM_LOCAL_PORT=$ACCT_PORT "$BATS_TEST_DIRNAME/slurm/start" --accounting "$SLURM_ACCT" >/dev/null
	status=0; wait "$NPID" || status=$?
}

@test "accounting: the scheduler gone after the job's clean exit record (status 0): the record is the result at once, with its nodes" {
	gone count
	[ "$(cat "$W/ended")" -le 8 ] || { echo "ended $(cat "$W/ended") quarter seconds after the exit record"; cat "$W/ninja.log"; false; }
	[ "$status" -eq 0 ] || { cat "$W/ninja.log"; false; }
	! grep -q "taking the record\|has not confirmed" "$W/ninja.log"
	[ "$(sed -n 2p "$B/x/0/kunai.exit")" = "job=$(jf "$B/x/0/job.json" job_id)" ]
	[ "$(jf "$B/x/0/job.json" state)" = COMPLETED ]
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/x/0/job.json" nodes)" = "$(sed -n 's/^nodes=//p' "$B/x/0/kunai.exit")" ]
	[ -n "$(jf "$B/x/0/job.json" nodes)" ]
	[ -f "$B/x/0/kunai.stamp" ]
}

@test "accounting: the scheduler gone after the job's exit record of status 3: the record is the result after KUNAI_TRUST_RECORD, no endless wait" {
	gone count3
	[ "$(cat "$W/ended")" -lt 120 ] || { echo "still waiting 30 s after the exit record"; cat "$W/ninja.log"; false; }
	[ "$status" -ne 0 ] || { cat "$W/ninja.log"; false; }
	grep -q "x/0: job [0-9]* wrote its exit record [0-9]* s ago and the scheduler has not confirmed its end; taking the record" \
		"$W/ninja.log"
	[ "$(jf "$B/x/0/job.json" state)" = FAILED ]
	[ "$(jf "$B/x/0/job.json" exit_code)" = 3 ]
	[ "$(jf "$B/x/0/job.json" outcome)" = failed ]
	[ ! -f "$B/x/0/kunai.stamp" ]
}

@test "plain: a job ended while nobody waited and slurmctld was down: status says ended (not pending, lost or live); its time is its own records" {
	one_count_run plain
	local ctld=$SLURM_PLAIN/run/slurmctld.pid t0 t1 i
	ninja_bg
	# the command runs (the script's sruns are done)
	wait_for "$B/count"
	# the driver gone (as after a reboot of the login node), then slurmctld
	kill_driver
	kill "$(cat "$ctld")"
	wait_for "$B/x/0/kunai.exit"
	run "$KUNAI" status "$B"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	printf '%s\n' "$output" | grep -Eq '^x +0 +ended +[0-9]+ .* exit record 0, squeue did not answer; not collected yet' ||
		{ echo "$output"; false; }
	[[ "$output" == *"1 run of o: 1 ended, not collected, 0 live"* ]] || { echo "$output"; false; }
	# slurmctld back 3 s later: it learns the end then
	sleep 3
	PATH=$PATH:/usr/sbin slurmctld
	# slurmd tells it of the end when it registers again
	scontrol reconfigure 2>/dev/null || { sleep 1; scontrol reconfigure; }
	for i in $(seq 80); do
		squeue -h -t all -j "$(jf "$B/x/0/job.json" job_id)" -o %T | grep -q COMPLETED && break
		sleep 0.5
	done
	run "$KUNAI" status "$B"
	printf '%s\n' "$output" | grep -Eq '^x +0 +ended +[0-9]+ .* completed per squeue; not collected yet' ||
		{ echo "$output"; false; }
	[[ "$output" == *"1 ended, not collected, 0 live"* ]] || { echo "$output"; false; }
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	# the run took its 4 s, not until slurmctld came back
	t0=$(date -d "$(jf "$B/x/0/job.json" start_time)" +%s)
	t1=$(date -d "$(jf "$B/x/0/job.json" end_time)" +%s)
	[ $((t1 - t0)) -ge 4 ] && [ $((t1 - t0)) -le 6 ] || { cat "$B/x/0/job.json" "$B/x/0/kunai.start"; ls --full-time "$B/x/0"; cat "$W/ninja.log"; echo "$output"; false; }
}

@test "plain: nodes = [PARTITION:GROUP:N]: N nodes of the group chosen at submission (--nodelist), recorded; too few usable is infra, nothing submitted" {
	use plain
	local node id
	node=$(sinfo -h -o %N | head -n 1)
	printf '  [[partitions.groups]]\n  name = "g1"\n  nodes = ["%s"]\n' "$node" >>"$C/system.toml"
	scenario "$C" '
name = "o"
[[Tests]]
id = "one"
test_name = "quick"
nodes = ["debug:g1:1"]
[[Tests]]
id = "two"
test_name = "quick"
nodes = ["debug:g1:2"]
[[Tests]]
id = "avail"
test_name = "quick"
nodes = ["debug:g1:max_avail"]
[[Tests]]
id = "ex"
test_name = "quick"
nodes = ["debug:g1:1"]
exclude_nodes = ["'"$node"'"]'
	gen "$C" "$B"
	# the script stays as gen wrote it: the partition and a count
	grep -qx '#SBATCH -N 1' "$B/one/0/cloudai_sbatch_script.sh"
	! grep -q nodelist "$B/one/0/cloudai_sbatch_script.sh"
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -ne 0 ] || { echo "$output"; false; }
	[[ "$output" == *"one/0: nodes $node chosen from the node group (idle first)"* ]] || { echo "$output"; false; }
	[ "$(jf "$B/one/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/one/0/job.json" nodes)" = "$node" ]
	id=$(jf "$B/one/0/job.json" job_id)
	scontrol -o show job "$id" | grep -q " ReqNodeList=$node "
	# the node idle, or mixed while the slow case's job runs there
	[[ "$output" == *"two/0: infra (node group debug:g1:2: 2 nodes asked, 1 usable ($node "*"); not submitted)"* ]] ||
		{ echo "$output"; false; }
	[ "$(jf "$B/two/0/job.json" outcome)" = infra ]
	[ "$(jf "$B/two/0/job.json" state)" = SUBMIT_FAILED ]
	[ "$(jf "$B/two/0/job.json" job_id)" = null ]
	[ -z "$(squeue -h -n o.two.0 -t all)" ]
	# max_avail: the idle, completing or reserved ones (the slow case's job
	# may hold it: then none is, and that is said)
	if [ "$(jf "$B/avail/0/job.json" outcome)" = passed ]; then
		[ "$(jf "$B/avail/0/job.json" nodes)" = "$node" ]
	else
		[[ "$output" == *"avail/0: infra (node group debug:g1:max_avail: no usable node ($node mix); not submitted)"* ]]
	fi
	[[ "$output" == *"ex/0: infra (node group debug:g1:1: 1 node asked, 0 usable ($node excluded); not submitted)"* ]] ||
		{ echo "$output"; false; }
	[ -z "$(squeue -h -n o.ex.0 -t all)" ]
}

@test "accounting: a driver killed between sbatch and job.json: the next run finds the job, submits no second one" {
	one_count_run
	local d=$B/x/0 id
	# what a driver killed right after sbatch returned leaves: job.json of an
	# attempt being submitted, with no job id, and the job in the queue
	printf '{\n\t"dir":\t"x/0",\n\t"scheduler":\t"slurm",\n\t"state":\t"SUBMITTED",\n\t"attempt":\t1,\n\t"collected":\ttrue\n}\n' \
		>"$d/job.json"
	id=$(cd "$d" && sbatch --parsable --no-requeue --comment="kunai:$(pwd -P)" cloudai_sbatch_script.sh)
	run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"x/0: found job $id, submitted before the driver died; not submitting again"* ]]
	[ "$(jf "$d/job.json" job_id)" = "$id" ]
	[ "$(jf "$d/job.json" outcome)" = passed ]
	[ "$(wc -l <"$B/count")" -eq 1 ]
}

@test "plain: sbatch that took the job, then said 'Socket timed out': kunai finds it by its token, submits no second one" {
	one_count_run plain
	# an sbatch whose answer is lost after slurmctld queued the job (once)
	mkdir -p "$W/bin"
	real=$(command -v sbatch)
	printf '#!/bin/sh
if [ ! -e "%s/lost" ]; then touch "%s/lost"; "%s" "$@" >/dev/null || exit 1
' "$W" "$W" "$real" >"$W/bin/sbatch"
	printf 'echo "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2; exit 1; fi
exec "%s" "$@"
' \
		"$real" >>"$W/bin/sbatch"
	chmod +x "$W/bin/sbatch"
	PATH="$W/bin:$PATH" run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ -e "$W/lost" ]
	[[ "$output" == *"x/0: sbatch said 'sbatch: error: Batch job submission failed: Socket timed out on send/recv operation', but job "*" was submitted: not submitting again"* ]] ||
		{ echo "$output"; false; }
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	# one job ran the run dir: one line in the count file, one job of its name
	[ "$(wc -l <"$B/count")" -eq 1 ]
	# (other tests' jobs share the name o.x.0: this build dir's carry its path)
	dir=$(cd "$B/x/0" && pwd -P)
	[ "$(squeue -h -t all -o %k | grep -c "^kunai:$dir#")" -le 1 ]
}

@test "plain: sbatch that refuses the job after an empty first line: the reason is its first line that says something" {
	one_count_run plain
	mkdir -p "$W/bin"
	printf '#!/bin/sh\nprintf "\\n  \\nsbatch: error: Batch job submission failed: odd refusal\\nmore\\n" >&2\nexit 1\n' >"$W/bin/sbatch"
	chmod +x "$W/bin/sbatch"
	PATH="$W/bin:$PATH" run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -ne 0 ] || { echo "$output"; false; }
	[ "$(jf "$B/x/0/job.json" state)" = SUBMIT_FAILED ]
	[ "$(jf "$B/x/0/job.json" reason)" = "sbatch: error: Batch job submission failed: odd refusal" ] ||
		{ cat "$B/x/0/job.json"; false; }
	[ ! -e "$B/count" ]
}

@test "plain: an exit record while slurmctld says the job runs is not its end (KUNAI_TRUST_RECORD)" {
	use plain
	# the command writes an exit record of 0 early (as a job killed and
	# requeued leaves one), runs on and fails
	printf 'name = "early"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo 0 >kunai.exit; sleep 6; exit 3"\n' \
		>"$C/tests/early.toml"
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "early"'
	gen "$C" "$B"
	KUNAI_TRUST_RECORD=2 run "$NINJA" -C "$B" -j 16 -k 0 run
	[ "$status" -ne 0 ] || { echo "$output"; false; }
	[[ "$output" == *"x/0: job "*" wrote its exit record, but slurmctld says it is RUNNING; waiting"* ]] ||
		{ echo "$output"; false; }
	[[ "$output" != *"taking the record"* ]]
	[ "$(jf "$B/x/0/job.json" state)" = FAILED ]
	[ "$(jf "$B/x/0/job.json" exit_code)" = 3 ]
	[ "$(jf "$B/x/0/job.json" outcome)" = failed ]
}

# prompt MODE: twelve jobs that end together (each waits for the file go,
# made once all of them run), with the query commands logged by shims in
# $W/bin: every result lands within 3 s of its job's exit record (the bench
# measures the real figure, < 1 s), and the poller asks the scheduler once
# for all of them, not once per job: after go, at most 6 queries (calls
# less than 0.3 s apart are one query; none at all when every job's clean
# exit record ends its wait, as both modes did in one suite run here), each at least
# 0.45 s after the last (URGENT_MS = 500 ms, less the clock's slack).
prompt() {
	local c i n gap go
	use "$1"
	mkdir -p "$W/bin"
	for c in squeue sacct scontrol; do
		printf '#!/bin/sh\nt0=$(date +%%s.%%N)\n%s "$@"\nrc=$?\necho "%s $t0 $(date +%%s.%%N) $*" >>"%s/calls"\nexit $rc\n' \
			"$(command -v $c)" $c "$W" >"$W/bin/$c"
		chmod +x "$W/bin/$c"
	done
	printf 'name = "wait"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "until [ -e ../../go ]; do sleep 0.1; done"\n' \
		>"$C/tests/wait.toml"
	seq 0 11 | awk 'BEGIN { print "name = \"p\"" } { printf "[[Tests]]\nid = \"w%d\"\ntest_name = \"wait\"\n", $1 }' \
		>"$C/scenario.toml"
	gen "$C" "$B"
	PATH="$W/bin:$PATH" ninja_bg
	for i in $(seq 0 11); do
		wait_for "$B/w$i/0/kunai.start" 60 || { cat "$W/ninja.log"; false; }
	done
	go=$(date +%s.%N)
	touch "$B/go"
	status=0; wait "$NPID" || status=$?
	[ "$status" -eq 0 ] || { cat "$W/ninja.log"; false; }
	# seconds from each exit record to its stamp (kunai job sets its mtime as it ends the edge)
	find "$B" -path '*/0/*' \( -name kunai.exit -o -name kunai.stamp \) -printf '%h %f %T@\n' | awk '
		{ t[$1, $2] = $3; d[$1] = 1 }
		END { for (r in d) printf "%s %.3f\n", r, t[r, "kunai.stamp"] - t[r, "kunai.exit"] }' >"$W/latency"
	[ "$(wc -l <"$W/latency")" -eq 12 ]
	awk '$2 < 0 || $2 >= 3 { bad = 1 } END { exit bad }' "$W/latency" || { cat "$W/latency" "$W/calls"; false; }
	# the queries after go: their number, and the least time between two
	grep -v ' show hostname' "$W/calls" | sort -k2,2g | awk -v go="$go" '
		$2 >= go { if (!n || $2 - end >= 0.3) { if (n && $2 - start < gap) gap = $2 - start; n++; start = $2 }
			end = $3 }
		BEGIN { gap = 99 } END { print n + 0, gap }' >"$W/queries"
	read -r n gap <"$W/queries"
	[ "$n" -le 6 ] && awk -v g="$gap" 'BEGIN { exit !(g >= 0.45) }' ||
		{ cat "$W/queries" "$W/calls" "$W/latency"; false; }
}

@test "plain: twelve jobs that end together: each result within 3 s of its exit record, a few queries for all of them" {
	prompt plain
}

@test "accounting: twelve jobs that end together: each result within 3 s of its exit record, a few queries for all of them" {
	prompt acct
}

@test "the slow case: a job past its 1-minute limit is outcome timeout (Slurm's TIMEOUT)" {
	local p i
	p=$(cat "$SLOW/ninja.pid")
	for i in $(seq 240); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.5
	done
	! kill -0 "$p" 2>/dev/null
	cat "$SLOW/ninja.log"
	[ "$(jf "$SLOW/out/t/0/job.json" state)" = TIMEOUT ]
	[ "$(jf "$SLOW/out/t/0/job.json" outcome)" = timeout ]
	[ ! -e "$SLOW/out/t/0/kunai.stamp" ]
}

@test "plain: a node failure under Slurm's default requeue: attempt 2, one job per attempt, none left, nothing overwritten" {
	# after the slow case: the node going down would end its job too
	one_count_run plain
	node_fail plain
}

# gen with --single-sbatch (CloudAI's flag): the runs are steps of one allocation
gen_single() {
	(cd "$1" && "$KUNAI" gen --single-sbatch --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$2") >/dev/null
}

@test "plain: --single-sbatch: 10 runs as steps of one allocation, per-run results, a failed step stops no other, the rerun reruns only it in a new allocation" {
	use plain
	local s i id
	s='name = "ten"'
	for i in $(seq 10); do
		s+=$'\n[[Tests]]\n'"id = \"t$i\""$'\ntest_name = "'"$([ "$i" = 4 ] && echo fail || echo quick)"$'"\ntime_limit = "00:01:00"'
		[ "$i" = 2 ] || [ "$i" = 3 ] && s+=$'\n  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "t'$((i - 1))'"'
	done
	scenario "$C" "$s"
	gen_single "$C" "$B"
	# one allocation: 1 node, the sum of the time limits
	grep -qx '#SBATCH -N 1' "$B/single_sbatch.sh"
	grep -qx '#SBATCH --time=00:10:00' "$B/single_sbatch.sh"
	KUNAI_SINGLE_IDLE=2 run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	id=$(jf "$B/t1/0/job.json" job_id)
	for i in $(seq 10); do
		[ "$(jf "$B/t$i/0/job.json" job_id)" = "$id" ]
		if [ "$i" = 4 ]; then
			[ "$(jf "$B/t$i/0/job.json" outcome)" = failed ]
			[ "$(jf "$B/t$i/0/job.json" exit_code)" = 3 ]
			[ ! -e "$B/t$i/0/kunai.stamp" ]
		else
			[ "$(jf "$B/t$i/0/job.json" outcome)" = passed ]
			[ "$(cat "$B/t$i/0/stdout.txt")" = quick ]
			[ -e "$B/t$i/0/kunai.stamp" ]
		fi
	done
	# steps in dependency order: t2 after t1 ended, t3 after t2
	[ "$(started_at t2/0)" -ge "$(stat -c %Y "$B/t1/0/kunai.exit")" ]
	[ "$(started_at t3/0)" -ge "$(stat -c %Y "$B/t2/0/kunai.exit")" ]
	live_jobs
	# the rerun: only t4, in a new allocation; the others keep their results
	touch "$B/fixed"
	KUNAI_SINGLE_IDLE=1 run "$NINJA" -C "$B" -k 0 run
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ "$output" == *"RUN t4/0/kunai.stamp"* ]]
	[[ "$output" != *"RUN t5/0"* ]]
	[ "$(jf "$B/t4/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/t4/0/job.json" job_id)" != "$id" ]
	[ "$(jf "$B/t5/0/job.json" job_id)" = "$id" ]
	run "$NINJA" -C "$B" run
	[[ "$output" == *"no work to do"* ]]
	live_jobs
}

@test "plain: --single-sbatch: the allocation refused (a partition the cluster lacks): each run is a configuration error naming the field, with sbatch's whole answer in sbatch.txt" {
	use plain
	sed -i 's/"debug"/"nosuch"/' "$C/system.toml"
	scenario "$C" 'name = "two"
[[Tests]]
id = "a"
test_name = "quick"
time_limit = "00:01:00"
[[Tests]]
id = "b"
test_name = "quick"
time_limit = "00:01:00"'
	gen_single "$C" "$B"
	KUNAI_MAX_RETRIES=0 run "$NINJA" -C "$B" -k 0 run
	[ "$status" -ne 0 ]
	local r
	for r in a b; do
		[ "$(jf "$B/$r/0/job.json" state)" = CONFIG_ERROR ]
		[ "$(jf "$B/$r/0/job.json" outcome)" = failed ]
		[[ "$(jf "$B/$r/0/job.json" reason)" == "configuration error: partition 'nosuch' does not exist on this cluster: set the system TOML's default_partition"*"[sbatch: error: "*"nvalid partition"* ]]
		head -1 "$B/$r/0/sbatch.txt" | grep -Eqx '# sbatch --parsable --no-requeue single_sbatch\.sh \(in the build dir\): exit status [1-9][0-9]*'
		grep -q '^sbatch: error: .*nvalid partition' "$B/$r/0/sbatch.txt"
		[ ! -e "$B/$r/0/kunai.stamp" ]
	done
}

@test "plain: --single-sbatch: a killed ninja reattaches to the allocation's step; SIGINT cancels the allocation" {
	use plain
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "count"
[[Tests]]
id = "y"
test_name = "long"
  [[Tests.dependencies]]
  type = "start_post_comp"
  id = "x"'
	gen_single "$C" "$B"
	KUNAI_SINGLE_IDLE=1 ninja_bg
	wait_for "$B/x/0/kunai.start"
	kill_driver
	[ -n "$(squeue -h)" ]
	# x reattached (one line in count: not run twice), then y starts: SIGINT
	KUNAI_SINGLE_IDLE=1 ninja_bg
	wait_for "$B/y/0/kunai.start"
	grep -q "reattaching to job" "$W/ninja.log"
	[ "$(jf "$B/x/0/job.json" outcome)" = passed ]
	[ "$(wc -l <"$B/count")" -eq 1 ]
	kill -INT "$NPID"
	status=0; wait "$NPID" || status=$?
	[ "$status" -ne 0 ]
	[ "$(jf "$B/y/0/job.json" outcome)" = cancelled ]
	[ -z "$(squeue -h -j "$(cat "$B/.kunai/single/job")" 2>/dev/null)" ] || { sleep 2; [ -z "$(squeue -h -j "$(cat "$B/.kunai/single/job")")" ]; }
}

@test "plain: --single-sbatch: an allocation scancelled from outside: its running run is cancelled, as a plain run is" {
	use plain
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "long"'
	gen_single "$C" "$B"
	KUNAI_SINGLE_IDLE=1 ninja_bg
	wait_for "$B/x/0/kunai.start"
	scancel "$(cat "$B/.kunai/single/job")"
	wait "$NPID" || true
	[ "$(jf "$B/x/0/job.json" state)" = CANCELLED ] || { cat "$W/ninja.log" "$B/x/0/job.json"; false; }
	grep -q 'x/0: cancelled' "$W/ninja.log"
	[ "$(jf "$B/x/0/job.json" outcome)" = cancelled ]
}

@test "plain: --single-sbatch: a step past its own time limit is outcome timeout, and the next step runs" {
	use plain
	scenario "$C" '
name = "o"
[[Tests]]
id = "x"
test_name = "long"
time_limit = "4s"
[[Tests]]
id = "y"
test_name = "quick"
time_limit = "1m"'
	gen_single "$C" "$B"
	KUNAI_SINGLE_IDLE=1 run "$NINJA" -C "$B" -j 1 -k 0 run
	[ "$status" -ne 0 ]
	[ "$(jf "$B/x/0/job.json" outcome)" = timeout ]
	[ "$(jf "$B/x/0/job.json" state)" = TIMEOUT ]
	[ "$(jf "$B/y/0/job.json" outcome)" = passed ]
	[ "$(jf "$B/y/0/job.json" job_id)" = "$(jf "$B/x/0/job.json" job_id)" ]
	live_jobs
}
