#!/usr/bin/env bats
# The terminal's life on a real local Slurm cluster (tests/slurm/start): a
# hangup (the terminal closed) detaches `kunai run` from its jobs, which run
# on, and the same command again reattaches without a duplicate; a killed
# `kunai run` leaves no orphaned ninja holding the build dir; the progress
# line counts a started job as running at once and names it.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	# ports KUNAI_TEST_SLURM_PORT+20.. (causes.bats takes +16)
	CONF=$(local_slurm terminal 20) || { echo "$CONF" >&3; return 1; }
	export CONF
}

teardown_file() {
	local_slurm_stop terminal
}

setup() {
	[ -n "$CONF" ] || skip "no Slurm to start here (as root, apt-get install slurm-wlm munge)"
	export SLURM_CONF=$CONF
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$C/out
	mkdir -p "$C/tests"
	cat >"$C/system.toml" <<-'T'
	name = "testcluster"
	scheduler = "slurm"
	install_path = "./install"
	output_path = "./results"
	default_partition = "debug"
	[[partitions]]
	name = "debug"
	T
	printf 'name = "sl"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo start; sleep %s; echo done"\n' \
		"${SLEEP_S:-12}" >"$C/tests/sl.toml"
	printf 'name = "h"\n[[Tests]]\nid = "a"\ntest_name = "sl"\n[[Tests]]\nid = "b"\ntest_name = "sl"\n' \
		>"$C/scenario.toml"
}

teardown() {
	[ -n "${CONF:-}" ] && [ -d "${B:-/nonexistent}" ] || return 0
	local ids
	ids=$(cat "$B"/*/0/job.json 2>/dev/null | sed -n 's/^	"job_id":	"\([0-9]*\)",$/\1/p' | paste -sd, -)
	[ -z "$ids" ] || scancel "${ids//,/ }" 2>/dev/null || true
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

kunai_run() {
	cd "$C" && exec "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
}

# kunai run in the background, its pid in $pid (the process itself, not a shell)
kunai_bg() {
	(kunai_run) >"$W/run1.log" 2>&1 3>&- &
	pid=$!
}

# waits up to $2 s (default 20) for file $1
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -le $((${2:-20} * 20)) ] || { echo "no $1"; return 1; }
		sleep 0.05
	done
}

# the live Slurm jobs of this build dir, sorted
queued() {
	squeue -h -o %i -n h.a.0,h.b.0 | sort | paste -sd, -
}

@test "SIGHUP detaches: the Slurm jobs keep running, and the next kunai run reattaches without a duplicate" {
	local pid a b
	kunai_bg
	wait_for "$B/a/0/kunai.start"
	wait_for "$B/b/0/kunai.start"
	a=$(jf "$B/a/0/job.json" job_id)
	b=$(jf "$B/b/0/job.json" job_id)
	kill -HUP "$pid"
	status=0; wait "$pid" || status=$?
	[ "$status" -eq 129 ] || { cat "$W/run1.log"; false; }
	grep -q 'kunai: run: hangup: detached; the jobs keep running' "$W/run1.log"
	# said once, by kunai, not by ninja too
	! grep -q 'ninja: build stopped' "$W/run1.log"
	# no cancellation, no outcome recorded, no report of half a campaign
	[ "$(queued)" = "$(printf '%s\n' "$a" "$b" | sort | paste -sd, -)" ]
	[ "$(jf "$B/a/0/job.json" outcome)" = null ]
	[ "$(jf "$B/b/0/job.json" outcome)" = null ]
	[ ! -e "$B/report/summary.json" ]
	run kunai_run
	[ "$status" -eq 0 ]
	[[ "$output" == *"reattaching to job $a"* || "$output" == *"reattaching to job $b"* ]]
	# the same jobs, one attempt each, both passed
	[ "$(jf "$B/a/0/job.json" job_id)" = "$a" ]
	[ "$(jf "$B/b/0/job.json" job_id)" = "$b" ]
	[ "$(jf "$B/a/0/job.json" attempt)" = 1 ]
	[ "$(jf "$B/b/0/job.json" outcome)" = passed ]
	[ "${lines[-1]}" = "kunai: passed: 2 runs: 2 passed; passed = ran and gave correct results; no performance reference was checked" ]
}

@test "SIGINT still cancels what kunai run submitted" {
	local pid
	kunai_bg
	wait_for "$B/a/0/kunai.start"
	kill -INT "$pid"
	status=0; wait "$pid" || status=$?
	[ "$status" -eq 130 ] || { cat "$W/run1.log"; false; }
	local i
	for i in $(seq 40); do [ -z "$(queued)" ] && break; sleep 0.25; done
	[ -z "$(queued)" ]
	[ "$(jf "$B/a/0/job.json" outcome)" = cancelled ]
}

@test "a kill -9 of kunai run: its runners let go at once, the jobs run on, the next run reattaches without waiting" {
	local pid a i
	kunai_bg
	wait_for "$B/a/0/kunai.start"
	a=$(jf "$B/a/0/job.json" job_id)
	kill -9 "$pid"
	wait "$pid" || true
	# ninja (hung up as its parent died) and the runners are gone within 2 s
	for i in $(seq 40); do
		pgrep -f "ninja -C $B" >/dev/null || pgrep -f "kunai job run .*--launch-dir $C " >/dev/null || break
		sleep 0.05
	done
	! pgrep -f "ninja -C $B"
	[ -n "$(queued)" ]
	run kunai_run
	[ "$status" -eq 0 ]
	[[ "$output" != *"waiting for another kunai command"* ]]
	[ "$(jf "$B/a/0/job.json" job_id)" = "$a" ]
	[ "$(jf "$B/a/0/job.json" attempt)" = 1 ]
}

@test "progress on a terminal: a started Slurm job counts as running within 5 s, named, with a time-left estimate" {
	command -v script >/dev/null || skip "no script(1) for a terminal (apt-get install bsdutils)"
	local s i
	printf 'name = "quick"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "sleep 4"\n' \
		>"$C/tests/quick.toml"
	printf 'name = "h"\n[[Tests]]\nid = "q"\ntest_name = "quick"\n[[Tests]]\nid = "a"\ntest_name = "sl"\n  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "q"\n' \
		>"$C/scenario.toml"
	(cd "$C" && script -qfec "$KUNAI run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out" \
		"$W/tty.log" >/dev/null 2>&1 </dev/null 3>&-) &
	local pid=$!
	wait_for "$B/a/0/kunai.start" 30
	s=$(date +%s.%N)
	for i in $(seq 100); do
		grep -q '1 running, 0 pending.* (running: a/0)' "$W/tty.log" && break
		sleep 0.05
	done
	# q took about 4 s (whole-second records): a has about as long left
	grep -q '1/2 done, 1 passed, 0 failed, 1 running, 0 pending, [0-9:]* elapsed, about 0:0[1-9] left (running: a/0)' \
		"$W/tty.log" || { tr '\r' '\n' <"$W/tty.log" | tail -n 5; false; }
	awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN { exit !(e - s < 5) }'
	wait "$pid"
	# the line is rewritten in place, ending with the campaign's status
	grep -q $'\r\033\\[K' "$W/tty.log"
	tr '\r' '\n' <"$W/tty.log" | grep -q 'passed: 2 runs: 2 passed'
}
