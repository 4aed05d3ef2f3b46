#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
load helpers
# kunai verify-configs, and the model's validation behind it: every error is
# path:line:col: error: message, every file gets an OK/FAIL line, and the
# exit status says whether anything failed (CloudAI's always says 0).

setup() {
	KUNAI=${KUNAI:-$PWD/kunai}
	SHARED=${SHARED:-$PWD/../shared}
	CONF=$SHARED/cloudai-compat/conf
	T=$BATS_TEST_TMPDIR
}

# test NAME TEMPLATE [BODY]: a test definition file in $T/tests
mktest() {
	mkdir -p "$T/tests"
	printf 'name = "%s"\ndescription = "d"\ntest_template_name = "%s"\n%s\n' \
		"$1" "$2" "${3:-}" >"$T/tests/$1.toml"
}


@test "every CloudAI example config verifies, exit 0" {
	need_cloudai
	cd "$CONF/.."
	run --separate-stderr "$KUNAI" verify-configs conf
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"OK   conf/system/example_slurm_cluster.toml (system)"* ]]
	[[ "$output" == *"OK   conf/test/nccl_test.toml (test)"* ]]
	[[ "$output" == *"OK   conf/hook/nccl_test.toml (hook scenario)"* ]]
	[[ "$output" == *"OK   conf/test_scenario/nccl_test.toml (scenario)"* ]]
	[[ "$output" == *"OK   conf/system/example_runai_cluster.toml (system)"* ]]
	[ "${lines[-1]}" = "16 files: 16 ok, 0 failed" ]
}

@test "the golden configs verify too" {
	need_cloudai
	run --separate-stderr "$KUNAI" verify-configs "$SHARED/cloudai-compat/golden"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "5 files: 5 ok, 0 failed" ]
}

@test "scenarios verify against --tests-dir and --hook-dir" {
	need_cloudai
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$CONF/test" \
		--hook-dir="$CONF/hook" "$CONF/test_scenario/nccl_test.toml"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "OK   $CONF/test_scenario/nccl_test.toml (scenario)" ]
}

@test "usage errors exit 2" {
	run --separate-stderr "$KUNAI" verify-configs
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"usage: kunai verify-configs"* ]]
	run --separate-stderr "$KUNAI" verify-configs --bogus "$CONF"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unknown option '--bogus'"* ]]
	run --separate-stderr "$KUNAI" verify-configs --tests-dir
	[ "$status" -eq 2 ]
}

@test "a missing path fails, exit 1" {
	run --separate-stderr "$KUNAI" verify-configs "$T/nope.toml"
	[ "$status" -eq 1 ]
	[ "$stderr" = "kunai: $T/nope.toml: No such file or directory" ]
	[ "${lines[-1]}" = "1 file: 0 ok, 1 failed" ]
}

@test "a file that is none of the three kinds is an error at 1:1" {
	printf 'foo = 1\n' >"$T/x.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/x.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "$T/x.toml:1:1: error: cannot tell whether this is a system, test or scenario file"* ]]
	[ "${lines[0]}" = "FAIL $T/x.toml (unknown kind)" ]
}

@test "TOML syntax errors are located" {
	printf 'name = "x"\nscheduler = \n' >"$T/x.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/x.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^$T/x.toml:2:[0-9]+:\ error:\  ]]
}

@test "system: unknown key with did-you-mean, wrong types, all errors in line order" {
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	scheduler = "slurm"
	install_path = "/i"
	output_path = "/o"
	default_partition = "p"
	gpus_per_nod = 8
	monitor_interval = "60"
	max_jobs = 0
	[[partitions]]
	name = "p"
	  [[partitions.groups]]
	  name = "g"
	  nodes = ["node-[010-001]"]
	EOF
	run --separate-stderr "$KUNAI" verify-configs "$T/s.toml"
	[ "$status" -eq 1 ]
	expected="$T/s.toml:6:1: error: unknown key 'gpus_per_nod' (did you mean 'gpus_per_node'?)
$T/s.toml:7:20: error: 'monitor_interval' must be an integer, not a string
$T/s.toml:8:12: error: 'max_jobs' must be at least 1, not 0
$T/s.toml:13:12: error: invalid node list 'node-[010-001]'"
	[ "$stderr" = "$expected" ]
	[ "${lines[0]}" = "FAIL $T/s.toml (system)" ]
}

@test "system: the older [partitions.<name>] form and string booleans are accepted" {
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	scheduler = "slurm"
	install_path = "/i"
	output_path = "/o"
	default_partition = "p1"
	cache_docker_images_locally = "True"
	[partitions.p1]
	name = "p1"
	nodes = ["n[1-4]"]
	  [partitions.p1.groups.g1]
	  nodes = ["n[1-2]"]
	[global_env_vars]
	A = 1
	B = { default = "x" }
	EOF
	run --separate-stderr "$KUNAI" verify-configs "$T/s.toml"
	[ "$status" -eq 0 ]
}

@test "system: unknown scheduler with did-you-mean; missing required keys at 1:1" {
	printf 'name = "k"\nscheduler = "slurmm"\n' >"$T/a.toml"
	printf 'name = "k"\nscheduler = "kubernetes"\ninstall_path = "a"\noutput_path = "b"\n' >"$T/b.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/a.toml" "$T/b.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/a.toml:2:13: error: unknown scheduler 'slurmm'"*"(did you mean 'slurm'?)"* ]]
	[[ "$stderr" == *"$T/b.toml:1:1: error: missing required key 'kube_config_path'"* ]]
	[ "${lines[-1]}" = "2 files: 0 ok, 2 failed" ]
}

@test "test: near-miss cmd_args key, bad values, unknown template" {
	mktest nccl NcclTest '[cmd_args]
minbyte = "1M"
iters = "many"
op = "summ"
R = 1'
	mktest other NcclTst
	run --separate-stderr "$KUNAI" verify-configs "$T/tests"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/tests/nccl.toml:5:1: error: unknown key 'minbyte' (did you mean 'minbytes'?"* ]]
	[[ "$stderr" == *"$T/tests/nccl.toml:6:9: error: 'iters' must be an integer, not \"many\""* ]]
	[[ "$stderr" == *"$T/tests/nccl.toml:7:6: error: 'op' must be one of "*"(did you mean 'sum'?)"* ]]
	[[ "$stderr" != *"'R'"* ]] # other unknown flags pass through, as in CloudAI
	[[ "$stderr" == *"$T/tests/other.toml:3:22: error: unknown test_template_name 'NcclTst' (did you mean 'NcclTest'?)"* ]]
}

@test "test: sweeps are type-checked element by element" {
	mktest nccl NcclTest '[cmd_args]
warmup_iters = ["5", 50, "x"]
iters = []'
	run --separate-stderr "$KUNAI" verify-configs "$T/tests/nccl.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"nccl.toml:5:26: error: 'warmup_iters' must be an integer, not \"x\""* ]]
	[[ "$stderr" == *"nccl.toml:6:9: error: 'iters' is an empty list"* ]]
}

@test "test: test names that would escape the output dir are rejected" {
	mktest x Sleep
	sed -i 's|name = "x"|name = "../x"|' "$T/tests/x.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/tests/x.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"x.toml:1:8: error: test name '../x' must not contain '/'"* ]]
}

@test "scenario: unknown test_name, bad fields, ids, dependency types" {
	mktest sleep Sleep
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	[[Tests]]
	id = "a"
	test_name = "slep"
	[[Tests]]
	id = "b"
	test_name = "sleep"
	iterations = "2"
	time_limit = "1:61:x"
	num_nodes = 0
	extra_cmd_args = { x = "y" }
	dependencies = [{ type = "start_after", id = "a" }]
	[[Tests]]
	id = "a"
	test_name = "sleep"
	[[Tests]]
	id = "x/y"
	test_name = "sleep"
	EOF
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 1 ]
	expected="$T/s.toml:4:13: error: unknown test_name 'slep' (did you mean 'sleep'?)
$T/s.toml:8:14: error: 'iterations' must be an integer, not a string
$T/s.toml:9:14: error: invalid time_limit '1:61:x' (H:M:S, H:M, D-H:M:S, or a number with s, m, h, d or w)
$T/s.toml:10:13: error: 'num_nodes' must be a positive integer, not 0
$T/s.toml:11:1: error: 'extra_cmd_args' cannot be set in a scenario, only in the test definition
$T/s.toml:12:26: error: unknown dependency type 'start_after' (start_post_comp, start_post_init or end_post_comp)
$T/s.toml:14:6: error: duplicate id 'a' (first at line 3)
$T/s.toml:17:6: error: id 'x/y' must not contain '/'"
	[ "$stderr" = "$expected" ]
}

@test "scenario: unknown keys get a did-you-mean; overrides are re-validated" {
	mktest nccl NcclTest '[cmd_args]
docker_image_url = "u"'
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	[[Tests]]
	id = "a"
	test_name = "nccl"
	iteration = 2
	  [Tests.cmd_args]
	  iters = "x"
	EOF
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"s.toml:5:1: error: unknown key 'iteration' (did you mean 'iterations'?)"* ]]
	[[ "$stderr" == *"s.toml:7:11: error: 'iters' must be an integer, not \"x\""* ]]
}

@test "scenario: dependency cycles, self and unknown dependencies" {
	mktest sleep Sleep
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	[[Tests]]
	id = "a"
	test_name = "sleep"
	dependencies = [{ type = "start_post_comp", id = "c" }]
	[[Tests]]
	id = "b"
	test_name = "sleep"
	dependencies = [{ type = "start_post_init", id = "a" }, { type = "start_post_comp", id = "a", delay = 5 }]
	[[Tests]]
	id = "c"
	test_name = "sleep"
	dependencies = [{ type = "end_post_comp", id = "b" }]
	EOF
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"error: dependency cycle: a -> c -> b -> a"* ]]
	sed -i 's/id = "c" }/id = "a" }/; s/id = "b" }/id = "bb" }/' "$T/s.toml"
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"s.toml:5:50: error: test 'a' depends on itself"* ]]
	[[ "$stderr" == *"s.toml:13:48: error: unknown test id 'bb' (did you mean 'b'?)"* ]]
}

@test "scenario: several dependencies of one type and delays are fine" {
	mktest sleep Sleep
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	[[Tests]]
	id = "a"
	test_name = "sleep"
	[[Tests]]
	id = "b"
	test_name = "sleep"
	[[Tests]]
	id = "c"
	test_name = "sleep"
	num_nodes = ["1", 2]
	time_limit = "1-02:03:04"
	nodes = ["node-[001-004]", "a,b"]
	dependencies = [{ type = "start_post_comp", id = "a", delay = 10 }, { type = "start_post_comp", id = "b" }]
	EOF
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 0 ]
}

@test "scenario: an unknown hook lists the known ones" {
	need_cloudai
	mkdir -p "$T/conf/scen"
	cp -R "$CONF/hook" "$CONF/test" "$T/conf/"
	sed 's/^pre_test = .*/pre_test = "nccl_tst"/' "$CONF/test_scenario/nccl_test.toml" \
		>"$T/conf/scen/s.toml"
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/conf/test" "$T/conf/scen/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"s.toml:19:12: error: unknown hook 'nccl_tst' (did you mean 'nccl_test'?); hooks in $T/conf/hook: nccl_test"* ]]
}

@test "duplicate test names in --tests-dir: error at the second, naming the first" {
	mktest a Sleep
	mktest b Sleep
	sed -i 's/name = "b"/name = "a"/' "$T/tests/b.toml"
	printf 'name = "s"\n[[Tests]]\nid = "x"\ntest_name = "a"\n' >"$T/s.toml"
	run --separate-stderr "$KUNAI" verify-configs --tests-dir "$T/tests" "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/tests/b.toml:1:8: error: duplicate test name 'a' (first defined at $T/tests/a.toml:1:8)"* ]]
}

@test "a name two tests dirs define: a warning naming both; each scenario checks against its own dir's" {
	# CloudAI's tree: conf/A/test and conf/B/test both define 'w', differently
	mkdir -p "$T/conf/a/test" "$T/conf/a/test_scenario" "$T/conf/b/test" "$T/conf/b/test_scenario"
	printf 'name = "w"\ndescription = "d"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 1\n' >"$T/conf/a/test/w.toml"
	printf 'name = "w"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\ndocker_image_url = "x"\nsubtest_name = "all_reduce_perf_mpi"\n' \
		>"$T/conf/b/test/w.toml"
	# each scenario overrides a key only its own dir's template has
	printf 'name = "s"\n[[Tests]]\nid = "x"\ntest_name = "w"\n  [Tests.cmd_args]\n  seconds = 2\n' >"$T/conf/a/test_scenario/s.toml"
	printf 'name = "s"\n[[Tests]]\nid = "x"\ntest_name = "w"\n  [Tests.cmd_args]\n  iters = 2\n' >"$T/conf/b/test_scenario/s.toml"
	cd "$T"
	run --separate-stderr "$KUNAI" verify-configs conf
	[ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
	[[ "$stderr" == *"conf/b/test/w.toml:1:8: warning: test name 'w' is defined at conf/a/test/w.toml:1:8 too"* ]]
	[ "${lines[-1]}" = "4 files: 4 ok, 0 failed" ]
	# b's scenario is checked against b's NcclTest, a's against a's Sleep
	printf 'name = "s"\n[[Tests]]\nid = "x"\ntest_name = "w"\n  [Tests.cmd_args]\n  subtest_name = "nope"\n' >"$T/conf/b/test_scenario/s.toml"
	run --separate-stderr "$KUNAI" verify-configs conf
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"conf/b/test_scenario/s.toml:6:18: error: 'subtest_name' must be one of all_reduce_perf_mpi,"* ]]
	[[ "$output" == *"OK   conf/a/test_scenario/s.toml (scenario)"* ]]
	[[ "$output" == *"FAIL conf/b/test_scenario/s.toml (scenario)"* ]]
}

@test "hooks: without --hook-dir or a hook dir beside the scenario's, conf/hook of the working dir (CloudAI's default)" {
	need_cloudai
	# CloudAI's newer layout: conf/common/test_scenario, hooks in conf/hook
	mkdir -p "$T/conf/common"
	cp -R "$CONF/test" "$CONF/test_scenario" "$CONF/system" "$T/conf/common/"
	cp -R "$CONF/hook" "$T/conf/hook"
	cd "$T"
	run --separate-stderr "$KUNAI" verify-configs conf
	[ "$status" -eq 0 ] || { echo "$output $stderr"; false; }
	[[ "$output" == *"OK   conf/common/test_scenario/nccl_test.toml (scenario)"* ]]
	run --separate-stderr "$KUNAI" gen --system-config conf/common/system/example_slurm_cluster.toml \
		--tests-dir conf/common/test --test-scenario conf/common/test_scenario/nccl_test.toml -o out
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	ls out/*/0/pre_test/*/env_vars.sh
	# elsewhere, none: the error names the places looked at
	cd "$T/conf"
	run --separate-stderr "$KUNAI" verify-configs common/test_scenario/nccl_test.toml
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"needs a hook directory (--hook-dir, 'hook' beside the scenario's directory, or conf/hook)"* ]]
}

@test "inline tests need their template, name and description" {
	printf 'name = "s"\n[[Tests]]\nid = "x"\nname = "y"\ntest_template_name = "Sleep"\n' >"$T/s.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"s.toml:2:1: error: missing required key 'description'"* ]]
	printf 'description = "d"\n' >>"$T/s.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/s.toml"
	[ "$status" -eq 0 ]
}

@test "a directory is searched recursively, in sorted order" {
	need_cloudai
	mkdir -p "$T/d/b" "$T/d/a"
	cp "$CONF/system/standalone_system.toml" "$T/d/b/s.toml"
	cp "$CONF/test/sleep.toml" "$T/d/a/t.toml"
	printf 'not toml\n' >"$T/d/a/readme.txt"
	run --separate-stderr "$KUNAI" verify-configs "$T/d"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "OK   $T/d/a/t.toml (test)" ]
	[ "${lines[1]}" = "OK   $T/d/b/s.toml (system)" ]
	[ "${lines[2]}" = "2 files: 2 ok, 0 failed" ]
}

@test "lsf and runai systems are checked like the others" {
	printf 'name = "l"\nscheduler = "lsf"\ninstall_path = "a"\noutput_path = "b"\ndefault_queue = "q"\n' >"$T/l.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/l.toml"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "OK   $T/l.toml (system)" ]
	printf 'app_idd = "x"\n' >>"$T/l.toml"
	run --separate-stderr "$KUNAI" verify-configs "$T/l.toml"
	[ "$status" -eq 1 ]
}

# The checks that need the system run in kunai gen (model_load); on any error
# it writes nothing.
gen() {
	run --separate-stderr "$KUNAI" gen --system-config "$1" --tests-dir "$CONF/test" \
		--test-scenario "$2" -o "$T/out" "${@:3}"
}

@test "gen: node specs are checked against the system's partitions and groups" {
	need_cloudai
	cat >"$T/s.toml" <<-'EOF'
	name = "s"
	[[Tests]]
	id = "a"
	test_name = "sleep"
	nodes = ["partition_1:group_9:2", "partition_3:group_1:max_avail", "partition_1:group_1:x"]
	EOF
	gen "$CONF/system/example_slurm_cluster.toml" "$T/s.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"s.toml:5:10: error: unknown group 'group_9' in partition 'partition_1' (did you mean 'group_1'?)"* ]]
	[[ "$stderr" == *"s.toml:5:35: error: unknown partition 'partition_3' in node spec 'partition_3:group_1:max_avail' (did you mean 'partition_1'?)"* ]]
	[[ "$stderr" == *"s.toml:5:68: error: node count 'x' in 'partition_1:group_1:x' must be a positive integer or max_avail"* ]]
	[ ! -e "$T/out" ]
}

@test "gen: a workload the system's scheduler cannot run is an error" {
	need_cloudai
	gen "$CONF/system/standalone_system.toml" "$CONF/test_scenario/ucc_test.toml"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ucc_test.toml:21:13: error: workload UCCTest (test 'ucc_base_test') cannot run on a standalone system"* ]]
}

@test "gen: CloudAI's example RunAI system writes one request per run, and no secret" {
	need_cloudai
	gen "$CONF/system/example_runai_cluster.toml" "$CONF/test_scenario/sleep.toml"
	[ "$status" -eq 0 ]
	local n s
	n=$(find "$T/out" -name runai.json | wc -l)
	s=$(find "$T/out" -name run.sh | wc -l)
	[ "$n" -ge 1 ]
	[ "$n" -eq "$s" ]
	! grep -r your_app_secret "$T/out"
}

@test "gen: --set values are validated like the files" {
	need_cloudai
	gen "$CONF/system/example_slurm_cluster.toml" "$CONF/test_scenario/sleep.toml" \
		--set Tests.1.iterations=abc --set 'Tests."Tests.sleep5".cmd_args.seconds=x' \
		--set name.x=1 --set system.gpus_per_node=-1
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"kunai: --set name.x: 'name' is a string, not a table"* ]]
	[[ "$stderr" == *"--set system.gpus_per_node:1:1: error: 'gpus_per_node' must be at least 0, not -1"* ]]
	[[ "$stderr" == *"--set Tests.1.iterations:1:1: error: 'iterations' must be an integer, not a string"* ]]
	[[ "$stderr" == *"--set Tests.\"Tests.sleep5\".cmd_args.seconds:1:1: error: 'seconds' must be an integer, not \"x\""* ]]
	[ ! -e "$T/out" ]
}

@test "gen: valid --set overrides, by index and by (dotted) id" {
	need_cloudai
	gen "$CONF/system/example_slurm_cluster.toml" "$CONF/test_scenario/sleep.toml" \
		--set Tests.1.iterations=2 --set Tests.Tests.sleep5.cmd_args.seconds=3 \
		--set system.gpus_per_node=4
	[ "$status" -eq 0 ]
}

@test "a tests folder with a file kunai cannot use: a warning unless the scenario uses it; verify-configs fails it" {
	mktest sleep Sleep
	mktest fio Fioo '[cmd_args]
x = 1'
	printf '# no name, no description\ntest_template_name = "Sleep"\n' >"$T/tests/nameless.toml"
	printf 'name = "s"\n[[Tests]]\nid = "a"\ntest_name = "sleep"\n' >"$T/s.toml"
	printf 'name = "l"\nscheduler = "standalone"\ninstall_path = "i"\noutput_path = "o"\n' >"$T/sys.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$T/sys.toml" --tests-dir "$T/tests" \
		--test-scenario "$T/s.toml" -o "$T/out"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$T/tests/fio.toml:3:22: warning: unknown test_template_name 'Fioo'"*"(the scenario does not use this test; skipped)"* ]]
	[[ "$stderr" == *"$T/tests/nameless.toml:1:1: warning: missing required key 'name'"* ]]
	[ "$(grep -c warning <<<"$stderr")" -eq 2 ]
	[ -f "$T/out/build.ninja" ]
	# used by the scenario: the error it always was, and nothing written
	printf '[[Tests]]\nid = "b"\ntest_name = "fio"\n' >>"$T/s.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$T/sys.toml" --tests-dir "$T/tests" \
		--test-scenario "$T/s.toml" -o "$T/out2"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"$T/tests/fio.toml:3:22: error: unknown test_template_name 'Fioo'"* ]]
	[ ! -e "$T/out2" ]
	# verify-configs checks every file
	run --separate-stderr "$KUNAI" verify-configs "$T/tests"
	[ "$status" -eq 1 ]
	[[ "$output" == *"FAIL $T/tests/fio.toml"* && "$output" == *"FAIL $T/tests/nameless.toml"* ]]
}

@test "time_limit means what it means to CloudAI; Slurm's other forms warn at the line" {
	mktest sleep Sleep
	printf 'name = "l"\nscheduler = "slurm"\ninstall_path = "i"\noutput_path = "o"\ndefault_partition = "p"\n[[partitions]]\nname = "p"\n' >"$T/sys.toml"
	printf 'name = "s"\n[[Tests]]\nid = "a"\ntest_name = "sleep"\ntime_limit = "20:00"\n[[Tests]]\nid = "b"\ntest_name = "sleep"\ntime_limit = "00:60:00"\n[[Tests]]\nid = "c"\ntest_name = "sleep"\ntime_limit = "30"\n' >"$T/s.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$T/sys.toml" --tests-dir "$T/tests" \
		--test-scenario "$T/s.toml" -o "$T/out"
	[ "$status" -eq 0 ]
	grep -qx '#SBATCH --time=20:00:00' "$T/out/a/0/cloudai_sbatch_script.sh"
	grep -qx '#SBATCH --time=01:00:00' "$T/out/b/0/cloudai_sbatch_script.sh"
	grep -qx '#SBATCH --time=00:30:00' "$T/out/c/0/cloudai_sbatch_script.sh"
	[ "$stderr" = "$T/s.toml:13:14: warning: time_limit '30' is Slurm's form, which CloudAI refuses; kunai reads it as Slurm does (1800 s)" ]
}
