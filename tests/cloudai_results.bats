#!/usr/bin/env bats
# kunai report on a results dir that CloudAI wrote: its layout
# (<id>/<iteration>/ with test-run.toml, stdout.txt, stderr.txt; no
# kunai.json, no job.json), here CloudAI's own dry run of
# conf/test_scenario/nccl_test.toml ($SHARED/cloudai-compat/dryrun, whose
# Tests.all_reduce/0 stands for the scenario's other 4 runs too, as in
# its TREE.txt) with the output nccl-tests prints. Each run is graded from its output; what only a
# job record knows (exit code, nodes) is unknown, not failed.
bats_require_minimum_version 1.5.0
load helpers

Q=$BATS_TEST_DIRNAME/jsonquery

# nccl_output WRONG OOB: an all_reduce_perf output, WRONG the #wrong column,
# OOB the out-of-bounds count
nccl_output() {
	cat <<N
# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
    67108864      16777216     float     sum      -1   352.10  190.60  333.55       $1   350.33  191.56  335.23       $1
   134217728      33554432     float     sum      -1   652.10  205.83  360.20       0   650.33  206.38  361.17       0
# Out of bounds values : $2 $([ "$2" = 0 ] && echo OK || echo FAILED)
# Avg bus bandwidth    : 347.5375
#
N
}

setup() {
	need_cloudai
	[ -d "$SHARED/cloudai-compat/dryrun/nccl_test_scenario" ] || skip "no CloudAI dry run in $SHARED/cloudai-compat/dryrun"
	# CloudAI names its results dir <scenario>_<date>_<time>
	R=$BATS_TEST_TMPDIR/nccl-test_2026-08-05_12-00-00
	cp -R "$SHARED/cloudai-compat/dryrun/nccl_test_scenario" "$R"
	chmod -R u+w "$R"
	rm -f "$R/TREE.txt"
	for id in Tests.all_gather Tests.alltoall Tests.reduce_scatter nccl.scatter_perf; do
		cp -R "$R/Tests.all_reduce" "$R/$id"
		sed -i "s/Tests\.all_reduce/$id/g" "$R/$id/0/test-run.toml"
	done
	nccl_output 0 0 >"$R/Tests.all_reduce/0/stdout.txt"
	nccl_output 3 0 >"$R/Tests.all_gather/0/stdout.txt"
	nccl_output 0 2 >"$R/Tests.alltoall/0/stdout.txt"
	: >"$R/nccl.scatter_perf/0/stdout.txt"
	for d in "$R"/*/0; do : >"$d/stderr.txt"; done
	# Tests.reduce_scatter never ran: CloudAI wrote its script only
	rm -f "$R/Tests.reduce_scatter/0/stdout.txt" "$R/Tests.reduce_scatter/0/stderr.txt"
}

outcome() { "$Q" "$R/$1/report.json" outcome; }

@test "kunai report on CloudAI's results dir grades each run from its output" {
	run --separate-stderr "$KUNAI" report --check --no-html "$R"
	[ "$status" -eq 1 ] || { echo "$output $stderr"; false; }
	[[ "$output" == *"5 runs: 1 passed, 3 failed, 1 not-run"* ]]
	[ "$(outcome Tests.all_reduce/0)" = passed ]
	# kunai's NCCL data check, which CloudAI does not make
	[ "$(outcome Tests.all_gather/0)" = failed ]
	[[ "$("$Q" "$R/Tests.all_gather/0/report.json" reason)" == *wrong* ]]
	[ "$(outcome Tests.alltoall/0)" = failed ]
	[ "$(outcome nccl.scatter_perf/0)" = failed ]
	[ "$(outcome Tests.reduce_scatter/0)" = not-run ]
	# what no job record says is unknown, not a failure
	[ "$("$Q" "$R/Tests.all_reduce/0/report.json" exit_code)" = null ]
	[ "$("$Q" "$R/Tests.all_reduce/0/report.json" nodes)" = null ]
	[ "$("$Q" "$R/Tests.all_reduce/0/report.json" workload)" = NcclTest ]
	# the same report as of a kunai build dir: its scenario, its counts
	[ "$("$Q" "$R/report/summary.json" scenario)" = nccl-test ]
	[ "$("$Q" "$R/report/summary.json" counts.passed)" = 1 ]
	[ "$("$Q" "$R/report/summary.json" counts.failed)" = 3 ]
	[ "$("$Q" "$R/report/summary.json" counts.not-run)" = 1 ]
	grep -q 'busbw' "$R/Tests.all_reduce/0/report.json"
	[ -s "$R/report/junit.xml" ]
	# CloudAI's files are left as they were
	diff -r -x report.json -x stdout.txt -x stderr.txt \
		"$SHARED/cloudai-compat/dryrun/nccl_test_scenario/Tests.all_reduce" "$R/Tests.all_reduce"
}

@test "kunai report: a dir that is neither kunai's nor CloudAI's is an error, as before" {
	mkdir -p "$BATS_TEST_TMPDIR/empty/x/0"
	run --separate-stderr "$KUNAI" report "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"kunai.json"* ]]
}

@test "kunai report: a test-run.toml that is no TestRun is a located error" {
	printf 'name = "x"\n[test_definition\n' >"$R/Tests.all_reduce/0/test-run.toml"
	run --separate-stderr "$KUNAI" report --no-html "$R"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"Tests.all_reduce/0/test-run.toml:2:"*"error:"* ]]
}

@test "kunai generate-report: CloudAI's verb and flags (CLOUDAI_SYSTEM_CONFIG too) report the result dir" {
	local c=$SHARED/cloudai-compat/conf
	run --separate-stderr "$KUNAI" generate-report --system-config "$c/system/example_slurm_cluster.toml" \
		--tests-dir "$c/test" --test-scenario "$c/test_scenario/nccl_test.toml" --result-dir "$R"
	[ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
	[ "$("$Q" "$R/report/summary.json" counts.passed)" = 1 ]
	rm -rf "$R/report"
	CLOUDAI_SYSTEM_CONFIG=$c/system/example_slurm_cluster.toml run --separate-stderr "$KUNAI" generate-report \
		--test_scenario "$c/test_scenario/nccl_test.toml" --result_dir="$R"
	[ "$status" -eq 0 ]
	[ -s "$R/report/summary.json" ]
	# CloudAI requires the configs and the result dir
	run --separate-stderr "$KUNAI" generate-report --test-scenario "$c/test_scenario/nccl_test.toml" --result-dir "$R"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing --system-config"* ]]
	run --separate-stderr "$KUNAI" generate-report --system-config "$c/system/example_slurm_cluster.toml" \
		--test-scenario "$c/test_scenario/nccl_test.toml" --result-dir "$BATS_TEST_TMPDIR/none"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"none: No such file or directory"* ]]
}

@test "kunai gen: the system comes from CLOUDAI_SYSTEM_CONFIG when --system-config is not given" {
	local c=$SHARED/cloudai-compat/conf
	CLOUDAI_SYSTEM_CONFIG=$c/system/example_slurm_cluster.toml run --separate-stderr "$KUNAI" gen \
		--tests-dir "$c/test" --test-scenario "$c/test_scenario/sleep.toml" -o "$BATS_TEST_TMPDIR/g"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	grep -q '^#SBATCH --partition=' "$BATS_TEST_TMPDIR"/g/*/0/cloudai_sbatch_script.sh
	run --separate-stderr env -u CLOUDAI_SYSTEM_CONFIG "$KUNAI" gen --tests-dir "$c/test" \
		--test-scenario "$c/test_scenario/sleep.toml" -o "$BATS_TEST_TMPDIR/h"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"missing --system-config (or CLOUDAI_SYSTEM_CONFIG)"* ]]
}

@test "a scenario's or system's [reports] entries are located warnings: kunai makes its own report" {
	local t=$BATS_TEST_TMPDIR/r
	mkdir -p "$t/tests"
	printf 'name = "sleep"\ndescription = "d"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 0\n' >"$t/tests/sleep.toml"
	printf 'name = "s"\n[reports]\nper_test = { enable = false }\nnccl_comparison = { enable = true, group_by = ["subtest_name"] }\n[[Tests]]\nid = "a"\ntest_name = "sleep"\n' >"$t/sc.toml"
	# CloudAI reads a system's [reports] on Slurm only
	printf 'name = "l"\nscheduler = "slurm"\ninstall_path = "i"\noutput_path = "o"\ndefault_partition = "p"\n[[partitions]]\nname = "p"\n[reports.tarball]\nenable = true\n' >"$t/sys.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$t/sys.toml" --tests-dir "$t/tests" --test-scenario "$t/sc.toml" -o "$t/o"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"sc.toml:3:1: warning: kunai does not make CloudAI's report 'per_test'"* ]]
	[[ "$stderr" == *"sc.toml:4:1: warning: kunai does not make CloudAI's report 'nccl_comparison'"* ]]
	[[ "$stderr" == *"sys.toml:8:10: warning: kunai does not make CloudAI's report 'tarball' (kunai export packs the results)"* ]]
	# still a table of tables
	printf 'name = "s"\n[reports]\nper_test = 1\n[[Tests]]\nid = "a"\ntest_name = "sleep"\n' >"$t/sc.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$t/sys.toml" --tests-dir "$t/tests" --test-scenario "$t/sc.toml" -o "$t/o"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"sc.toml:3:12: error: report 'per_test' must be a table, not an integer"* ]]
}
