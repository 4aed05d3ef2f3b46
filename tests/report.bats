#!/usr/bin/env bats
# kunai grade, report, status and run on a real generated build dir whose run
# dirs are fabricated (job.json, stdout.txt, kunai.stamp as the runner
# writes them): every outcome class, skipped-by-dependency, JUnit parsed
# back, --check exit codes, and kunai run driving ninja with stand-in rules.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	Q="$BATS_TEST_DIRNAME/jsonquery"
	mkdir -p "$W/c/tests"
	cat >"$W/c/system.toml" <<'T'
name = "local"
scheduler = "standalone"
install_path = "./install"
output_path = "./results"
max_jobs = 2
T
	cat >"$W/c/tests/sleep.toml" <<'T'
name = "sleep"
description = "sleep"
test_template_name = "Sleep"
[cmd_args]
seconds = 0
T
	cat >"$W/c/tests/nccl.toml" <<'T'
name = "nccl"
description = "all-reduce"
test_template_name = "NcclTest"
[cmd_args]
subtest_name = "all_reduce_perf"
min_busbw = 100
T
	{
		for t in ok bad slow infra cancel never after nccl; do
			printf '[[Tests]]\nid = "%s"\ntest_name = "%s"\n' "$t" "$([ $t = nccl ] && echo nccl || echo sleep)"
			[ $t = bad ] && printf 'iterations = 2\n'
			[ $t = after ] && printf '  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "bad"\n'
		done
	} >"$W/c/scenario.body"
	printf 'name = "rep"\n' | cat - "$W/c/scenario.body" >"$W/c/scenario.toml"
	B=$W/out
}

gen() { # gen [extra gen args]: the campaign into $B
	(cd "$W/c" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" "$@") >/dev/null
}

q() { "$Q" "$@"; }

# job DIR OUTCOME [EXIT [REASON]]: a job.json as the runner writes it (and the
# stamp when passed)
job() {
	local exit=${3:-null} reason=null
	[ -n "${4:-}" ] && reason="\"$4\""
	mkdir -p "$B/$1"
	cat >"$B/$1/job.json" <<J
{"dir": "$1", "scheduler": "standalone", "workload": null, "job_id": "4242", "state": "EXITED",
 "exit_code": $exit, "signal": null, "outcome": "$2", "reason": $reason,
 "submit_time": "2024-05-01T12:00:00Z", "start_time": "2024-05-01T12:00:01Z",
 "end_time": "2024-05-01T12:00:03.5Z", "nodes": "localhost", "attempt": 1}
J
	if [ "$2" = passed ]; then touch "$B/$1/kunai.stamp"; else rm -f "$B/$1/kunai.stamp"; fi
}

nccl_output() {
	cat <<'N'
# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
    67108864      16777216     float     sum      -1   352.10  190.60  333.55       0   350.33  191.56  335.23       0
   134217728      33554432     float     sum      -1   652.10  205.83  360.20       0   650.33  206.38  361.17       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 347.5375
N
}

fabricate() { # every outcome class
	job ok/0 passed 0
	printf 'hello <world> & "friends"\n' >"$B/ok/0/stdout.txt"
	job bad/0 failed 3 "exit code 3"
	# output with markup, control characters and invalid UTF-8
	printf 'line one\n\033[31mred\033[0m <b>&amp;\n\001\002bell\007 caf\303\251 bad\377byte\n' >"$B/bad/0/stdout.txt"
	printf 'Traceback: oops\n' >"$B/bad/0/stderr.txt"
	job slow/0 timeout null "time limit 60 s"
	job infra/0 infra null "sbatch: error: Batch job submission failed"
	job cancel/0 cancelled null "cancelled by user"
	job nccl/0 passed 0
	nccl_output >"$B/nccl/0/stdout.txt"
}

xml_ok() { # well-formed XML: xmllint when there is one, else a coarse check
	if command -v xmllint >/dev/null; then
		xmllint --noout "$1"
	else
		head -n 1 "$1" | grep -q '^<?xml version="1.0" encoding="UTF-8"?>$' &&
			[ "$(grep -c '<testsuite ' "$1")" -eq "$(grep -c '</testsuite>\|<testsuite .*/>' "$1")" ] &&
			! LC_ALL=C grep -q "$(printf '[\001-\010\013\014\016-\037]')" "$1"
	fi
}

xpath() { xmllint --xpath "$2" "$1"; }

@test "ninja report on a build dir where nothing ran: every run not-run, exit 0, valid JUnit" {
	gen
	run ninja -C "$B" report
	[ "$status" -eq 0 ]
	[[ "$output" == *"kunai: incomplete: 9 runs: 9 not-run"* ]]
	# one status for the campaign: nothing failed, nothing ran
	[ "$(q "$B/report/summary.json" status)" = incomplete ]
	grep -q '<property name="kunai.status" value="incomplete"/>' "$B/report/junit.xml"
	[ "$(q "$B/report/summary.json" total)" = 9 ]
	[ "$(q "$B/report/summary.json" counts.not-run)" = 9 ]
	[ "$(q "$B/report/summary.json" runs.#)" = 9 ]
	[ "$(q "$B/bad/1/report.json" outcome)" = not-run ]
	xml_ok "$B/report/junit.xml"
	grep -q '<testsuites name="rep" tests="9" failures="0" errors="0" skipped="9" time="0.000">' \
		"$B/report/junit.xml"
	[ -f "$B/report/summary.md" ]
	# never ran anything: no job.json appeared
	[ -z "$(find "$B" -name job.json)" ]
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 1 ]
}

@test "every outcome class, with skipped derived from iterations and start_post_comp" {
	gen
	fabricate
	run ninja -C "$B" report
	[ "$status" -eq 0 ]
	S=$B/report/summary.json
	i=0
	for want in ok:passed bad:failed bad:skipped slow:timeout infra:infra cancel:cancelled never:not-run \
		after:skipped nccl:passed; do
		[ "$(q "$S" runs.$i.id)" = "${want%%:*}" ]
		[ "$(q "$S" runs.$i.outcome)" = "${want#*:}" ] || { echo "run $i: $(q "$S" runs.$i)"; false; }
		i=$((i + 1))
	done
	[ "$(q "$S" counts.passed)" = 2 ]
	[ "$(q "$S" counts.skipped)" = 2 ]
	[ "$(q "$S" runs.2.reason)" = "not started: bad iteration 0 did not pass (failed)" ]
	[ "$(q "$S" runs.7.reason)" = "not started: bad iteration 0 did not pass (failed)" ]
	[ "$(q "$S" runs.1.reason)" = "exit code 3" ]
	[ "$(q "$S" runs.1.exit_code)" = 3 ]
	[ "$(q "$S" runs.0.duration_s)" = 2.5 ]
	[ "$(q "$S" runs.0.step)" = null ]
	# the per-run report.json the grade edges wrote
	[ "$(q "$B/slow/0/report.json" outcome)" = timeout ]
	[ "$(q "$B/slow/0/report.json" reason)" = "time limit 60 s" ]
	[ "$(q "$B/nccl/0/report.json" metrics.max_busbw)" = 361.17 ]
	[ "$(q "$B/nccl/0/report.json" metrics.avg_busbw)" = 347.5375 ]
	[ "$(q "$B/nccl/0/report.json" metrics.max_busbw_size)" = 134217728 ]
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 1 ]
	[[ "$output" == *"9 runs: 2 passed, 1 failed, 1 timeout, 1 cancelled, 1 infra, 2 skipped, 1 not-run"* ]]
}

@test "junit.xml: valid, correct totals, failure vs error vs skipped, escaped output tails" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	J=$B/report/junit.xml
	xml_ok "$J"
	grep -q '<testsuites name="rep" tests="9" failures="2" errors="2" skipped="3" time="15.000">' "$J"
	if ! command -v xmllint >/dev/null; then skip "xmllint (libxml2-utils) not installed: xpath checks"; fi
	[ "$(xpath "$J" 'count(//testsuite)')" = 8 ]
	[ "$(xpath "$J" 'count(//testcase)')" = 9 ]
	[ "$(xpath "$J" 'string(//testsuite[@name="bad"]/@tests)')" = 2 ]
	[ "$(xpath "$J" 'string(//testsuite[@name="bad"]/@failures)')" = 1 ]
	[ "$(xpath "$J" 'string(//testsuite[@name="bad"]/@skipped)')" = 1 ]
	[ "$(xpath "$J" 'string(//testsuite[@name="bad"]/@time)')" = 2.500 ]
	[ "$(xpath "$J" 'string(//testcase[@name="bad iteration 0"]/failure/@type)')" = failed ]
	[ "$(xpath "$J" 'string(//testcase[@name="bad iteration 0"]/failure/@message)')" = "exit code 3" ]
	[ "$(xpath "$J" 'string(//testcase[@name="slow iteration 0"]/failure/@type)')" = timeout ]
	[ "$(xpath "$J" 'string(//testcase[@name="infra iteration 0"]/error/@type)')" = infra ]
	[ "$(xpath "$J" 'string(//testcase[@name="cancel iteration 0"]/error/@type)')" = cancelled ]
	[ "$(xpath "$J" 'string(//testcase[@name="never iteration 0"]/skipped/@type)')" = not-run ]
	[ "$(xpath "$J" 'string(//testcase[@name="after iteration 0"]/skipped/@type)')" = skipped ]
	[ "$(xpath "$J" 'count(//testcase[@name="ok iteration 0"]/*[self::failure or self::error or self::skipped])')" = 0 ]
	[ "$(xpath "$J" 'string(//testcase[@name="ok iteration 0"]/@time)')" = 2.500 ]
	[ "$(xpath "$J" 'string(//testcase[@name="ok iteration 0"]/system-out)')" = 'hello <world> & "friends"' ]
	out=$(xpath "$J" 'string(//testcase[@name="bad iteration 0"]/system-out)')
	[[ "$out" == *"[31mred[0m <b>&amp;"* ]]
	[[ "$out" == *"bell caf"*"bad"*"byte"* ]]
	[ "$(xpath "$J" 'string(//testcase[@name="bad iteration 0"]/system-err)')" = "Traceback: oops" ]
}

@test "system-out holds the last 50 lines of a long stdout" {
	gen
	job ok/0 passed 0
	seq 1 1000 >"$B/ok/0/stdout.txt"
	"$KUNAI" report "$B" >/dev/null
	if ! command -v xmllint >/dev/null; then skip "xmllint (libxml2-utils) not installed"; fi
	out=$(xpath "$B/report/junit.xml" 'string(//testcase[@name="ok iteration 0"]/system-out)')
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 50 ]
	[ "$(printf '%s\n' "$out" | head -n 1)" = 951 ]
	[ "$(printf '%s\n' "$out" | tail -n 1)" = 1000 ]
}

@test "summary.md: the status first, one table row per run, the worst first, in kunai.json order within" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	M=$B/report/summary.md
	head -n 1 "$M" | grep -qx '# rep'
	[ "$(sed -n 3p "$M")" = '**failed: 9 runs: 2 passed, 1 failed, 1 timeout, 1 cancelled, 1 infra, 2 skipped, 1 not-run**.' ]
	grep -qx '| id | iteration | step | outcome | time | reason |' "$M"
	# the fleet verdict, then the runs' table
	grep -qx '\*\*Drain: none; healthy: 0 nodes; inconclusive: localhost (bad failed, slow timeout, infra infra, 1 more)\*\*' "$M"
	grep -qx '| localhost | inconclusive | bad failed; slow timeout; infra infra; cancel cancelled |' "$M"
	[ "$(sed -n '/^| id | iteration/,$p' "$M" | grep -c '^| [a-z]')" -eq 10 ]
	grep -qx '| ok | 0 |  | passed | 2.50 s |  |' "$M"
	grep -qx '| bad | 1 |  | skipped |  | not started: bad iteration 0 did not pass (failed) |' "$M"
	[ "$(sed -n '/^| id | iteration/,$p' "$M" | grep '^| [a-z]' | sed 1d | cut -d' ' -f2 | tr '\n' ' ')" = "bad slow infra cancel bad never after ok nccl " ]
}

@test "one status, first: a red first box naming the failed runs and their reasons; JUnit and summary.json agree" {
	gen
	fabricate
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 1 ]
	[[ "$output" == *"kunai: failed: 9 runs: 2 passed, 1 failed, 1 timeout"* ]]
	[ "$(q "$B/report/summary.json" status)" = failed ]
	[ "$(grep -c '<property name="kunai.status" value="failed"/>' "$B/report/junit.xml")" -ge 1 ]
	I=$B/report/index.html
	# the status box comes first, before the verdict and every table; it is
	# the failed class (red), and the verdict is not green
	first=$(grep -n 'id="status"' "$I" | cut -d: -f1)
	[ -n "$first" ]
	[ "$first" -lt "$(grep -n 'id="verdict"' "$I" | cut -d: -f1)" ]
	[ "$first" -lt "$(grep -n '<table' "$I" | head -n 1 | cut -d: -f1)" ]
	grep -q '<p class="status failed" id="status"><strong>failed: 9 runs: 2 passed, 1 failed, 1 timeout, 1 cancelled, 1 infra, 2 skipped, 1 not-run</strong></p>' "$I"
	grep -q '<p class="verdict open" id="verdict">' "$I"
	# each run that did not pass, the worst first, with its reason
	grep -q '<li class="failed"><a href="runs/[^"]*">bad iteration 0</a> failed: exit code 3</li>' "$I"
	grep -q '<li class="infra"><a href="runs/[^"]*">infra iteration 0</a> infra: sbatch: error: Batch job submission failed</li>' "$I"
	[ "$(grep -n '<li class="failed">' "$I" | cut -d: -f1)" -lt "$(grep -n '<li class="skipped">' "$I" | head -n 1 | cut -d: -f1)" ]
	# the runs table lists them worst first too; passed runs last
	[ "$(grep -o '<tr class="[a-z-]*"><td><a href="runs/' "$I" | head -n 1)" = '<tr class="failed"><td><a href="runs/' ]
	[ "$(grep -o '<tr class="[a-z-]*"><td><a href="runs/' "$I" | tail -n 1)" = '<tr class="passed"><td><a href="runs/' ]
	# all passed: passed, green
	for d in bad/0 bad/1 slow/0 infra/0 cancel/0 never/0 after/0; do job $d passed 0; done
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 0 ]
	[ "$(q "$B/report/summary.json" status)" = passed ]
	grep -q '<p class="status passed" id="status">' "$I"
	! grep -q '<ul class="failures">' "$I"
}

@test "report --check: 0 when every run passed, 1 otherwise" {
	gen
	for d in ok/0 bad/0 bad/1 slow/0 infra/0 cancel/0 never/0 after/0; do job $d passed 0; done
	job nccl/0 passed 0
	nccl_output >"$B/nccl/0/stdout.txt"
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 0 ]
	[[ "$output" == *"9 runs: 9 passed"* ]]
	run "$KUNAI" report --check "$B"
	[ "$status" -eq 0 ]
	# without --check a failure still exits 0
	job never/0 failed 1
	run "$KUNAI" report "$B"
	[ "$status" -eq 0 ]
	run "$KUNAI" report "$B" --check
	[ "$status" -eq 1 ]
}

@test "the grader re-checks the output: NCCL markers and min_busbw" {
	gen
	job nccl/0 passed 0
	nccl_output | grep -v 'Out of bounds' >"$B/nccl/0/stdout.txt"
	(cd "$B" && "$KUNAI" grade nccl/0/report.json)
	[ "$(q "$B/nccl/0/report.json" outcome)" = failed ]
	[ "$(q "$B/nccl/0/report.json" reason)" = "success check: stdout.txt lacks '# Out of bounds values'" ]
	# a threshold change in the campaign re-grades without re-running
	nccl_output >"$B/nccl/0/stdout.txt"
	gen --set 'Tests."nccl".cmd_args.min_busbw=400'
	(cd "$B" && "$KUNAI" grade ./nccl/0/report.json)
	[ "$(q "$B/nccl/0/report.json" outcome)" = perf-failed ]
	[ "$(q "$B/nccl/0/report.json" reason)" = "max busbw 361.17 GB/s is below min_busbw 400 GB/s" ]
	[ "$(q "$B/nccl/0/report.json" metrics.max_busbw)" = 361.17 ]
	# the workload the runner recorded is the one checked
	job ok/0 passed 0
	sed -i 's/"workload": null/"workload": "NcclTest"/' "$B/ok/0/job.json"
	(cd "$B" && "$KUNAI" grade ok/0/report.json)
	[ "$(q "$B/ok/0/report.json" outcome)" = failed ]
	[ "$(q "$B/ok/0/report.json" reason)" = "no stdout.txt" ]
}

@test "grade: a failed or broken run is a result (exit 0); misuse is not" {
	gen
	job bad/0 failed 3
	cd "$B"
	run "$KUNAI" grade bad/0/report.json
	[ "$status" -eq 0 ]
	[ "$(q bad/0/report.json outcome)" = failed ]
	printf '{"outcome": "pass' >ok/0/job.json
	run "$KUNAI" grade ok/0/report.json
	[ "$status" -eq 0 ]
	[ "$(q ok/0/report.json outcome)" = infra ]
	[[ "$(q ok/0/report.json reason)" == "job.json: 1:"*"invalid JSON" ]]
	printf '[1, 2]' >ok/0/job.json
	run "$KUNAI" grade ok/0/report.json
	[ "$status" -eq 0 ]
	[ "$(q ok/0/report.json outcome)" = infra ]
	run "$KUNAI" grade nope/0/report.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"'nope/0' is not a run of this build dir"* ]]
	[ ! -e nope ]
	run "$KUNAI" grade ok/0/job.json
	[ "$status" -eq 2 ]
	run "$KUNAI" grade
	[ "$status" -eq 2 ]
	cd "$W"
	run "$KUNAI" grade ok/0/report.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"kunai.json"* ]]
}

@test "report: a stale report.json is re-graded; a corrupt one is ignored" {
	gen
	job ok/0 passed 0
	(cd "$B" && "$KUNAI" grade ok/0/report.json)
	[ "$(q "$B/ok/0/report.json" outcome)" = passed ]
	# a newer attempt failed, and nobody re-graded it
	sleep 0.01
	job ok/0 failed 2
	"$KUNAI" report "$B" >/dev/null
	[ "$(q "$B/report/summary.json" runs.0.outcome)" = failed ]
	printf 'garbage' >"$B/ok/0/report.json"
	"$KUNAI" report "$B" >/dev/null
	[ "$(q "$B/report/summary.json" runs.0.outcome)" = failed ]
	# a run without job.json is not-run whatever an old report.json says
	rm "$B/ok/0/job.json"
	"$KUNAI" report "$B" >/dev/null
	[ "$(q "$B/report/summary.json" runs.0.outcome)" = not-run ]
}

# old_grader FILE: FILE (a report.json) as a kunai whose grader of its
# workload differed would have left it: another version, and a reason that
# the current grader never writes, its mtime kept (still fresh by time)
old_grader() {
	sed -e 's/"grader":[^,]*,/"grader":\t"0123456789abcdef",/' \
		-e 's/"reason":[^,]*,/"reason":\t"graded by an older kunai",/' "$1" >"$1.new"
	touch -r "$1" "$1.new"
	mv "$1.new" "$1"
}

@test "report: each report.json records its grader's version; a changed grader regrades exactly its workload's runs" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	v_nccl=$(q "$B/nccl/0/report.json" grader)
	v_sleep=$(q "$B/ok/0/report.json" grader)
	[[ "$v_nccl" =~ ^[0-9a-f]{16}$ ]]
	[[ "$v_sleep" =~ ^[0-9a-f]{16}$ ]]
	[ "$v_nccl" != "$v_sleep" ]
	# by workload, not by run or date
	[ "$(q "$B/bad/0/report.json" grader)" = "$v_sleep" ]
	[ "$(q "$B/bad/1/report.json" grader)" != "$v_nccl" ]
	# summary.json's runs stay as they were
	! grep -q '"grader"' "$B/report/summary.json"
	# as a new kunai whose NcclTest grader changed finds them: the NcclTest
	# run's report.json by an older grader; and the Sleep runs' reports, but
	# these of the current Sleep grader (the mark shows whether it was redone)
	for d in nccl/0 ok/0 bad/0; do old_grader "$B/$d/report.json"; done
	sed -i 's/"grader":[^,]*,/"grader":\t"'"$v_sleep"'",/' "$B/ok/0/report.json" "$B/bad/0/report.json"
	touch -d '1 hour ago' "$B/ok/0/job.json" "$B/bad/0/job.json"
	"$KUNAI" report "$B" >/dev/null
	[ "$(q "$B/nccl/0/report.json" grader)" = "$v_nccl" ]
	[ "$(q "$B/nccl/0/report.json" reason)" = null ]
	[ "$(q "$B/ok/0/report.json" reason)" = "graded by an older kunai" ]
	[ "$(q "$B/bad/0/report.json" reason)" = "graded by an older kunai" ]
	# a report.json of a kunai that recorded no grader is graded again
	sed -i '/"grader":/d' "$B/ok/0/report.json"
	"$KUNAI" report "$B" >/dev/null
	[ "$(q "$B/ok/0/report.json" grader)" = "$v_sleep" ]
	[ "$(q "$B/ok/0/report.json" reason)" = null ]
	[ "$(q "$B/bad/0/report.json" reason)" = "graded by an older kunai" ]
}

@test "report: the stamp of a complete report names the grading that made it; another kunai's is not trusted" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	grep -Eqx 'kunai report: grading [0-9a-f]{16}' "$B/.kunai/report.stamp"
	cp -p "$B/.kunai/report.stamp" "$W/stamp"
	# nothing changed: the complete report stands, its stamp untouched
	"$KUNAI" report "$B" >/dev/null
	[ -z "$(find "$B/.kunai/report.stamp" -newer "$W/stamp")" ]
	# the stamp of a kunai that grades otherwise, as old: every output made
	# again, and the stamp says this kunai's grading
	printf 'kunai report: grading 0123456789abcdef\n' >"$B/.kunai/report.stamp"
	touch -r "$W/stamp" "$B/.kunai/report.stamp"
	"$KUNAI" report "$B" >/dev/null
	cmp "$W/stamp" "$B/.kunai/report.stamp"
}

@test "report: nothing changed: the answer comes from the stamp, no report.json read; any change is seen" {
	command -v strace >/dev/null || skip "no strace (apt-get install strace)"
	gen
	fabricate
	run -1 "$KUNAI" report --no-html --check "$B"
	full=$output
	# the same lines and exit status, from a stat of each run's files
	# (LeakSanitizer cannot work under ptrace: off for the traced run)
	run -1 env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=open,openat -o "$W/trace" "$KUNAI" report --no-html --check "$B"
	[ "$output" = "$full" ]
	! grep -q 'report\.json' "$W/trace"
	grep -q 'report\.stamp' "$W/trace"
	# as seen from elsewhere: the lines name the build dir as given
	run -1 sh -c 'cd "$1/.." && "$2" report --no-html --check "./${1##*/}"' sh "$B" "$KUNAI"
	[[ "$output" == *"(./out/report)"* ]]
	# a newer stdout.txt (written in place): graded again
	sleep 0.01
	nccl_output | grep -v 'Out of bounds' >"$B/nccl/0/stdout.txt"
	"$KUNAI" report --no-html "$B" >/dev/null
	[ "$(q "$B/nccl/0/report.json" outcome)" = failed ]
	"$KUNAI" report --no-html "$B" >/dev/null
	# a job.json removed: that run never ran
	rm "$B/ok/0/job.json"
	run "$KUNAI" report --no-html "$B"
	[[ "$output" == *"2 not-run"* ]]
	[ "$(q "$B/ok/0/report.json" outcome)" = not-run ]
	# a run that had never run now has: graded
	job never/0 passed 0
	"$KUNAI" report --no-html "$B" >/dev/null
	[ "$(q "$B/never/0/report.json" outcome)" = passed ]
	# every run passes: --check says so from the stamp too
	for d in ok/0 bad/0 bad/1 slow/0 infra/0 cancel/0 after/0; do job "$d" passed 0; done
	rm -f "$B/nccl/0/stdout.txt" && job nccl/0 passed 0
	nccl_output >"$B/nccl/0/stdout.txt"
	run -0 "$KUNAI" report --no-html --check "$B"
	run -0 env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -e trace=open,openat -o "$W/trace" "$KUNAI" report --no-html --check "$B"
	! grep -q 'report\.json' "$W/trace"
}

@test "grader versions come from the source: a change to one grader's file changes its CRC alone" {
	src=$BATS_TEST_DIRNAME/..
	mkdir -p "$W/src/reports/grade" "$W/src/gen/base"
	cp "$src"/reports/grade/*.c "$src/reports/grade/grade.h" "$src/reports/grade/sources.sh" "$W/src/reports/grade/"
	cp "$src/gen/base/record.c" "$W/src/gen/base/"
	(cd "$W/src" && sh reports/grade/sources.sh) >"$W/before"
	[ ! -f "$src/reports/grade/sources.h" ] || cmp "$W/before" "$src/reports/grade/sources.h"
	[ "$(grep -c '^#define GRADE_SRC_[A-Z_]* 0x[0-9a-f]\{8\}u$' "$W/before")" -eq 12 ]
	printf '/* a changed grader */\n' >>"$W/src/reports/grade/nccl.c"
	(cd "$W/src" && sh reports/grade/sources.sh) >"$W/after"
	diff "$W/before" "$W/after" | grep '^[<>]' >"$W/diff" || true
	[ "$(grep -c '^< #define GRADE_SRC_NCCL ' "$W/diff")" -eq 1 ]
	[ "$(grep -c '^> #define GRADE_SRC_NCCL ' "$W/diff")" -eq 1 ]
	[ "$(wc -l <"$W/diff")" -eq 2 ]
	# the code every grader shares: every version changes with it
	printf '/* shared */\n' >>"$W/src/reports/grade/refs.c"
	(cd "$W/src" && sh reports/grade/sources.sh) | diff "$W/after" - | grep -c '^> #define GRADE_SRC_COMMON '
}

@test "report: deterministic bytes, no temporary files, clear errors" {
	gen
	fabricate
	"$KUNAI" report "$B" >/dev/null
	cp -R "$B/report" "$W/first"
	"$KUNAI" report "$B" >/dev/null
	for f in summary.json junit.xml summary.md; do cmp "$W/first/$f" "$B/report/$f"; done
	[ -z "$(find "$B" -name '*.tmp')" ]
	run "$KUNAI" report "$W/nowhere"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$W/nowhere/kunai.json"* ]]
	printf '{"runs": 5}' >"$W/bad.json" && mkdir -p "$W/badbuild" && cp "$W/bad.json" "$W/badbuild/kunai.json"
	run "$KUNAI" report "$W/badbuild"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a kunai.json"* ]]
	run "$KUNAI" report
	[ "$status" -eq 2 ]
	run "$KUNAI" report "$B" --frobnicate
	[ "$status" -eq 2 ]
}

@test "status: no scheduler query when nothing is live" {
	gen
	fabricate
	mkdir -p "$W/bin"
	printf '#!/bin/sh\necho "$@" >>%s/squeue.log\n' "$W" >"$W/bin/squeue"
	chmod +x "$W/bin/squeue"
	PATH="$W/bin:$PATH" run "$KUNAI" status "$B"
	[ "$status" -eq 0 ]
	[ ! -e "$W/squeue.log" ]
	[[ "${lines[0]}" == "ID "*"ITER"*"STATE"*"JOB"*"ELAPSED"*"REASON" ]]
	[[ "$output" == *"bad     1     skipped"* ]]
	[[ "$output" == *"slow    0     timeout    4242  3s"* ]]
	[[ "${lines[-1]}" == "failed: 9 runs of rep: 2 passed, 1 failed, 1 timeout, 1 cancelled, 1 infra, 2 skipped, 1 not-run, 0 live" ]]
}

@test "status: one batched squeue for every live Slurm job; standalone pids checked" {
	gen
	mkdir -p "$W/bin"
	cat >"$W/bin/squeue" <<S
#!/bin/sh
echo "\$@" >>$W/squeue.log
echo "101|RUNNING"
echo "102|PENDING"
echo "105|COMPLETED"
S
	chmod +x "$W/bin/squeue"
	live() { # live DIR SCHED ID [start]
		mkdir -p "$B/$1"
		printf '{"scheduler": "%s", "job_id": "%s", "state": "SUBMITTED", "outcome": null,
		 "submit_time": "2024-05-01T12:00:00Z", "start_time": %s}\n' "$2" "$3" "${4:-null}" >"$B/$1/job.json"
	}
	live ok/0 slurm 101 '"2024-05-01T12:00:01Z"'
	live bad/0 slurm 102
	live slow/0 slurm 103
	# ended while no runner waited: squeue no longer lists 104 (its exit
	# record says how it ended), and calls 105 COMPLETED
	live never/0 slurm 104 '"2024-05-01T12:00:01Z"'
	printf 'start=1714564801\nhost=h\njob=104\n' >"$B/never/0/kunai.start"
	echo 0 >"$B/never/0/kunai.exit"
	live nccl/0 slurm 105 '"2024-05-01T12:00:01Z"'
	sleep 60 &
	pid=$!
	live infra/0 standalone $pid "\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
	# a pid that ended
	sh -c 'exit 0' &
	dead=$!
	wait $dead
	live cancel/0 standalone $dead '"2024-05-01T12:00:01Z"'
	PATH="$W/bin:$PATH" run "$KUNAI" status "$B"
	kill $pid
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$W/squeue.log")" -eq 1 ]
	[ "$(cat "$W/squeue.log")" = "-h -t all -j 101,102,103,104,105 -o %i|%T" ]
	[[ "$output" == *"ok      0     running"*"101"* ]]
	[[ "$output" == *"bad     0     pending"*"102"* ]]
	[[ "$output" == *"slow    0     lost"*"103"* ]]
	[[ "$output" == *"infra   0     running"*"$pid"* ]]
	[[ "$output" == *"cancel  0     lost"*"$dead"* ]]
	[[ "$output" == *"never   0     ended"*"104"*"exit record 0; not collected yet"* ]]
	[[ "$output" == *"nccl    0     ended"*"105"*"completed per squeue; not collected yet"* ]]
	[[ "${lines[-1]}" == *", 2 ended, not collected, 5 live" ]]
}

# rules standing in for the runner: `run` writes job.json and the stamp, and
# records the driver pid it was given
fake_rules() {
	mkdir -p "$W/rules"
	cp "$BATS_TEST_DIRNAME/../rules/common.ninja" "$W/rules/"
	cat >"$W/rules/standalone.ninja" <<'R'
rule run
  command = $kunai_test_run $out
  description = RUN $out
  pool = jobs
rule start
  command = $kunai_test_run $out
  description = START $out
R
	cat >"$W/fakerun" <<'S'
#!/bin/sh
# fakerun OUT: the outcome comes from $FAKE_FAIL (test ids that fail)
out=$1 dir=${1%/*} id=${1%%/*}
# the driver is ninja's parent
p=$$
while [ "$p" -gt 1 ] && [ "$(cat /proc/$p/comm)" != ninja ]; do p=$(cut -d' ' -f4 /proc/$p/stat); done
echo "$KUNAI_DRIVER_PID $(cut -d' ' -f4 /proc/$p/stat)" >"$dir/driver"
[ "$id" = nccl ] && cp "$FAKE_NCCL" "$dir/stdout.txt"
[ -n "$FAKE_SLEEP" ] && { touch "$FAKE_SLEEP"; sleep 30; }
outcome=passed
case " $FAKE_FAIL " in *" $id "*) outcome=failed ;; esac
printf '{"outcome": "%s", "start_time": "2024-05-01T12:00:00Z", "end_time": "2024-05-01T12:00:04Z"}\n' \
	$outcome >"$dir/job.json"
[ $outcome = passed ] || exit 1
touch "$out"
S
	chmod +x "$W/fakerun"
	printf 'kunai_test_run = %s\n' "$W/fakerun" >"$W/rules/common.ninja.tmp"
	cat "$W/rules/common.ninja" >>"$W/rules/common.ninja.tmp"
	mv "$W/rules/common.ninja.tmp" "$W/rules/common.ninja"
}

run_campaign() {
	cd "$W/c" && "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$B" --rules-dir "$W/rules" "$@"
}

@test "kunai run: gen, ninja -k 0 run, ninja report, a table; exit 0 when all passed" {
	fake_rules
	printf 'name = "rep"\n[[Tests]]\nid = "ok"\ntest_name = "sleep"\niterations = 2\n' >"$W/c/scenario.toml"
	run run_campaign
	[ "$status" -eq 0 ]
	[[ "$output" == *"kunai: 2 runs of scenario 'rep' in $B"* ]]
	[[ "$output" == *"kunai: report: $B/report/index.html"* ]]
	[[ "$output" == *"ok  0     passed   4 s"* ]]
	[[ "$output" == *"ok  1     passed   4 s"* ]]
	# the campaign's status last, saying what the passes mean: no reference
	# was checked (sleep has none); the fleet verdict before it
	[ "${lines[-1]}" = "kunai: passed: 2 runs: 2 passed; passed = ran and gave correct results; no performance reference was checked" ]
	[ "${lines[-2]}" = "kunai: Drain: none; no run recorded the nodes it ran on" ]
	# what ninja report printed is in report.log, not on the terminal twice
	[ "$(grep -c 'kunai: Drain' <<<"$output")" -eq 1 ]
	grep -q 'kunai: passed: 2 runs: 2 passed' "$B/report.log"
	[ "$(q "$B/report/summary.json" note)" = "passed = ran and gave correct results; no performance reference was checked" ]
	grep -q '<property name="kunai.note" value="passed = ran and gave correct results; no performance reference was checked"/>' "$B/report/junit.xml"
	[ -f "$B/report/junit.xml" ]
	# the runner learns the pid of kunai run, which is ninja's parent
	read -r driver ninja_parent <"$B/ok/0/driver"
	[ -n "$driver" ]
	[ "$driver" = "$ninja_parent" ]
	# the second time there is nothing to do and the result is the same
	run run_campaign
	[ "$status" -eq 0 ]
	[[ "${lines[-4]}" == "kunai: nothing needed running: the results are from "*"; \`kunai run --rerun ...\` runs every run again"* ]]
	[ "${lines[-1]}" = "kunai: passed: 2 runs: 2 passed; passed = ran and gave correct results; no performance reference was checked" ]
	[ "${lines[-2]}" = "kunai: Drain: none; no run recorded the nodes it ran on" ]
	# not a terminal: a line per finished run
	run -0 run_campaign --rerun
	[[ "$output" == *"kunai: [1/2] ok/0 passed"*"kunai: [2/2] ok/1 passed"* ]]
}

@test "kunai run: a failure does not stop the others; exit 1; skipped dependants" {
	fake_rules
	export FAKE_FAIL="bad" FAKE_NCCL="$W/nccl.txt"
	nccl_output >"$FAKE_NCCL"
	run run_campaign
	[ "$status" -eq 1 ]
	S=$B/report/summary.json
	[ "$(q "$S" counts.failed)" = 1 ]
	[ "$(q "$S" counts.skipped)" = 2 ]
	[ "$(q "$S" counts.passed)" = 6 ]
	[[ "$output" == *"bad     1     skipped"* ]]
	[[ "${lines[-1]}" == "kunai: failed: 9 runs: 6 passed, 1 failed, 2 skipped; "*"passed = ran and gave correct results; "* ]]
	[ "${lines[-2]}" = "kunai: Drain: none; no run recorded the nodes it ran on" ]
	[ "$(q "$S" status)" = failed ]
	# the failed run heads the table with its reason; no ninja internals
	[[ "$(grep -A1 "^ID " <<<"$output" | tail -n 1)" == "bad     0     failed   4 s   failed" ]]
	[[ "$output" != *"FAILED: "* ]]
	[[ "$output" != *"kunai job run"* ]]
}

@test "kunai run: SIGTERM reaches ninja and its runs; no report, exit 143" {
	fake_rules
	printf 'name = "rep"\n[[Tests]]\nid = "ok"\ntest_name = "sleep"\n' >"$W/c/scenario.toml"
	export FAKE_SLEEP="$W/started"
	(cd "$W/c" && exec "$KUNAI" run --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$B" --rules-dir "$W/rules") >"$W/run.log" 2>&1 &
	pid=$!
	for i in $(seq 100); do [ -e "$W/started" ] && break; sleep 0.1; done
	[ -e "$W/started" ]
	kill -TERM $pid
	rc=0
	wait $pid || rc=$?
	cat "$W/run.log"
	[ "$rc" -eq 143 ]
	grep -q 'interrupted' "$W/run.log"
	[ ! -e "$B/report/summary.json" ]
	# ninja ended the run's command: no fakerun is left
	! grep -qs "$W/fakerun" /proc/[0-9]*/cmdline
}

@test "kunai run: gen errors and usage are passed through" {
	run "$KUNAI" run --system-config "$W/nowhere.toml" --test-scenario "$W/c/scenario.toml"
	[ "$status" -eq 1 ]
	run "$KUNAI" run --bogus
	[ "$status" -eq 2 ]
	run "$KUNAI" status
	[ "$status" -eq 2 ]
}
