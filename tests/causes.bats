#!/usr/bin/env bats
# Causes, not exit codes (DESIGN 18): each known failure signature, as the
# real tool prints it, turns into a reason a person acts on; on a real local
# Slurm cluster without pyxis, a test with a container image says pyxis is
# missing everywhere the run is shown, and sbatch's refusal of a partition or
# a gres is a configuration error naming the system TOML's field.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	# ports KUNAI_TEST_SLURM_PORT+16.. (run_slurm.bats takes +0..+7, install.bats
	# +8, scripts.bats +12, terminal.bats +20); with accounting +24..+27, where
	# sacct's exit code is not the job's own
	CONF=$(local_slurm causes 16) || { echo "$CONF" >&3; return 1; }
	CONF_ACCT=$(local_slurm causes-acct 24 --accounting) || { echo "$CONF_ACCT" >&3; return 1; }
	export CONF CONF_ACCT
}

teardown_file() {
	local_slurm_stop causes
	local_slurm_stop causes-acct
}

setup() {
	W=$BATS_TEST_TMPDIR
	C=$W/c
	B=$C/out
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

q() { "$BATS_TEST_DIRNAME/jsonquery" "$@"; }

need_slurm() {
	[ -n "$CONF" ] || skip "no Slurm to start here (as root, apt-get install slurm-wlm munge)"
	export SLURM_CONF=$CONF
}

# bash_test NAME CMD: a BashCmd test definition in $C/tests
bash_test() {
	mkdir -p "$C/tests"
	printf 'name = "%s"\ndescription = "d"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "%s"\n' "$1" "$2" \
		>"$C/tests/$1.toml"
}

@test "each failure signature, with the real message text, gives its cause before the exit code" {
	standalone_campaign "$C"
	mkdir -p "$C/msg"
	# what srun, pyxis, enroot, slurmstepd, PyTorch, NCCL and the shells print
	printf '%s\n' "srun: unrecognized option '--container-image=nvcr.io/nvidia/pytorch:24.01-py3'" \
		'Try "srun --help" for more information' >"$C/msg/pyxis"
	printf '%s\n' 'pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.01-py3' \
		'slurmstepd: error: pyxis: child 15352 failed with error code: 1' \
		'slurmstepd: error: pyxis: failed to import docker image' \
		'slurmstepd: error: pyxis: printing enroot log file:' \
		'slurmstepd: error: pyxis:     [ERROR] URL https://nvcr.io/proxy_auth?scope=repository:nvidia/pytorch:pull returned error code: 401 Unauthorized' \
		"slurmstepd: error: pyxis: couldn't start container" >"$C/msg/pull401"
	printf '%s\n' 'slurmstepd: error: pyxis: failed to import docker image' \
		"slurmstepd: error: pyxis: couldn't start container" >"$C/msg/pull"
	printf '%s\n' 'slurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2024-05-01T12:00:00 DUE TO TIME LIMIT ***' \
		>"$C/msg/timelimit"
	printf '%s\n' 'slurmstepd: error: *** JOB 42 ON node1 CANCELLED AT 2024-05-01T12:00:00 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***' \
		>"$C/msg/nodefail"
	printf '%s\n' 'slurmstepd: error: Detected 1 oom-kill event(s) in StepId=42.0. Some of your processes may have been killed by the cgroup out-of-memory handler.' \
		>"$C/msg/oom"
	printf '%s\n' 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB' \
		>"$C/msg/gpuoom"
	printf '%s\n' 'node1:1234:1250 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<40321> failed : Software caused connection abort' \
		"node1: Test NCCL failure common.cu:1005 'unhandled system error (run with NCCL_DEBUG=INFO for details) / '" \
		>"$C/msg/nccl"
	printf '%s\n' 'bash: line 1: all_reduce_perf: command not found' >"$C/msg/notfound"
	printf '%s\n' 'slurmstepd-vm: error: execve(): all_reduce_perf: No such file or directory' \
		'srun: error: vm: task 0: Exited with exit code 2' >"$C/msg/execve"
	local name tests=""
	for name in pyxis pull401 pull timelimit nodefail oom gpuoom nccl notfound execve; do
		bash_test "$name" "cat $C/msg/$name >&2; exit 1"
		tests="$tests[[Tests]]
id = \"$name\"
test_name = \"$name\"
"
	done
	printf 'name = "causes"\n%s' "$tests" >"$C/scenario.toml"
	cd "$C"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	expect() { # RUN CAUSE: job.json's reason starts with CAUSE and ends with the exit code
		local r
		r=$(jf "$B/$1/0/job.json" reason)
		[[ "$r" == "$2"*"; EXITED: exit code 1" ]] || { echo "$1: $r"; return 1; }
	}
	expect pyxis "srun has no --container-image: pyxis is not installed on this cluster"
	expect pull401 "the container registry refused the credentials (401)"
	expect pull "the container image did not import (pyxis/enroot)"
	expect timelimit "the job hit its time limit: raise the test's time_limit"
	expect nodefail "a node failed under the job"
	expect oom "out of host memory"
	expect gpuoom "out of GPU memory"
	expect nccl "NCCL failed"
	expect notfound "a command was not found"
	expect execve "a command was not found"
	# the line that showed it, with where it was
	[[ "$(jf "$B/pyxis/0/job.json" reason)" == *"[stderr.txt: srun: unrecognized option '--container-image=nvcr.io/nvidia/pytorch:24.01-py3']"* ]]
	# the terminal's table, the report and summary.json say the same
	grep -Eq "^pyxis +0 +failed +(< 1|[0-9]+) s +srun has no --container-image: pyxis is not installed" <<<"$output"
	[[ "$(q "$B/report/summary.json" runs.0.reason)" == "srun has no --container-image: pyxis is not installed"* ]]
	[ "${lines[-1]}" = "kunai: failed: 10 runs: 10 failed" ]
	[ "$(q "$B/report/summary.json" status)" = failed ]
}

@test "no cause is made up: a plain exit code stays the reason, and a passed run has none" {
	standalone_campaign "$C"
	# words of the table in stdout of a run that failed for another reason
	bash_test plain "echo 'grep: pattern: not found'; exit 4"
	printf 'name = "plain"\n[[Tests]]\nid = "plain"\ntest_name = "plain"\n[[Tests]]\nid = "ok"\ntest_name = "ok"\n' \
		>"$C/scenario.toml"
	cd "$C"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	[ "$(jf "$B/plain/0/job.json" reason)" = "EXITED: exit code 4" ]
	[ "$(jf "$B/ok/0/job.json" reason)" = null ]
}

# pyxis_campaign: a NcclTest with a container image on the Slurm system, in $C
pyxis_campaign() {
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
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\ndocker_image_url = "nvcr.io/nvidia/pytorch:24.01-py3"\nsubtest_name = "all_reduce_perf_mpi"\n' \
		>"$C/tests/nccl.toml"
	printf 'name = "p"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\n' >"$C/scenario.toml"
}

@test "Slurm without pyxis: a container image's failure is pyxis missing, in the terminal, kunai status, summary.json and HTML; the exit code is the job's own" {
	need_slurm
	pyxis_campaign
	cd "$C"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	local cause="srun has no --container-image: pyxis is not installed on this cluster"
	grep -q "^nccl  *0  *failed .*  $cause" <<<"$output"
	[[ "${lines[-1]}" == "kunai: failed: 1 run: 1 failed"* ]]
	# the job's own exit code (kunai.exit), which srun's 255 is
	[ "$(head -n 1 "$B/nccl/0/kunai.exit")" = 255 ]
	[ "$(jf "$B/nccl/0/job.json" exit_code)" = 255 ]
	[[ "$(jf "$B/nccl/0/job.json" reason)" == "$cause"*"; FAILED: exit code 255" ]]
	[[ "$(q "$B/report/summary.json" runs.0.reason)" == "$cause"* ]]
	grep -q "<li class=\"failed\"><a href=\"runs/[^\"]*\">nccl iteration 0</a> failed: $cause" "$B/report/index.html"
	run -0 "$KUNAI" status out
	[[ "$output" == *"$cause"* ]]
	[[ "${lines[-1]}" == "failed: 1 run of p: 1 failed, 0 live" ]]
}

@test "Slurm: an unknown partition and a gres the cluster lacks are configuration errors naming the field, never retried" {
	need_slurm
	mkdir -p "$C/tests"
	bash_test quick "echo quick"
	printf 'name = "p"\n[[Tests]]\nid = "q"\ntest_name = "quick"\n' >"$C/scenario.toml"
	system() {
		cat >"$C/system.toml" <<-T
		name = "testcluster"
		scheduler = "slurm"
		install_path = "./install"
		output_path = "./results"
		default_partition = "$1"
		$2
		[[partitions]]
		name = "$1"
		T
	}
	cd "$C"
	system nope ""
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	[ "$(jf "$B/q/0/job.json" state)" = CONFIG_ERROR ]
	[ "$(jf "$B/q/0/job.json" outcome)" = failed ]
	[ "$(jf "$B/q/0/job.json" attempt)" = 1 ]
	[[ "$(jf "$B/q/0/job.json" reason)" == "configuration error: partition 'nope' does not exist on this cluster: set the system TOML's default_partition"*"[sbatch: error: "*"nvalid partition"* ]]
	grep -q "^q  *0  *failed  *-  *configuration error: partition 'nope'" <<<"$output"
	# said once, not by sbatch's prefix twice
	[[ "$output" != *"sbatch: sbatch:"* ]]
	# sbatch's whole answer beside the record: its command, status and stderr
	grep -Eq '^# sbatch --parsable --no-requeue .* cloudai_sbatch_script\.sh \(in .*\): exit status [1-9][0-9]*$' "$B/q/0/sbatch.txt"
	grep -q '^sbatch: error: .*nvalid partition' "$B/q/0/sbatch.txt"
	system debug "gpus_per_node = 8"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	[ "$(jf "$B/q/0/job.json" state)" = CONFIG_ERROR ]
	[[ "$(jf "$B/q/0/job.json" reason)" == "configuration error: the cluster has no GPU gres for --gres=gpu:8: check the system TOML's gpus_per_node"*"[sbatch: error: Invalid generic resource (gres) specification]" ]]
	# this attempt's answer; the one before it moved with its record
	grep -q '^sbatch: error: Invalid generic resource (gres) specification' "$B/q/0/sbatch.txt"
	run -1 grep -q 'nvalid partition' "$B/q/0/sbatch.txt"
	grep -q 'nvalid partition' "$B"/q/0/attempt-*/sbatch.txt
	[ "$(q "$B/report/summary.json" runs.0.outcome)" = failed ]
}

@test "Slurm with accounting: the exit code shown is the job's own (255), not sacct's (127)" {
	[ -n "$CONF_ACCT" ] || skip "no slurmdbd/mariadb (apt-get install slurmdbd mariadb-server)"
	export SLURM_CONF=$CONF_ACCT
	pyxis_campaign
	cd "$C"
	run "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[ "$status" -eq 1 ]
	local id
	id=$(jf "$B/nccl/0/job.json" job_id)
	# sacct says 127 for srun's 255
	[ "$(sacct -n -X -P -j "$id" -o ExitCode)" = "127:0" ]
	[ "$(head -n 1 "$B/nccl/0/kunai.exit")" = 255 ]
	[ "$(jf "$B/nccl/0/job.json" exit_code)" = 255 ]
	[[ "$(jf "$B/nccl/0/job.json" reason)" == "srun has no --container-image: pyxis is not installed"*"; FAILED: exit code 255" ]]
}

@test "a program that said SKIPPED is skipped on the progress line too, as in the table" {
	command -v nvidia-smi >/dev/null && skip "nvidia-smi is here: kunai_health runs instead of skipping"
	standalone_campaign "$C"
	cp "$BATS_TEST_DIRNAME/../conf/test/kunai_health.toml" "$C/tests/"
	printf 'name = "h"\n[[Tests]]\nid = "health"\ntest_name = "kunai_health"\n[[Tests]]\nid = "ok"\ntest_name = "ok"\n' \
		>"$C/scenario.toml"
	cd "$C"
	run -0 "$KUNAI" run --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o out
	[[ "$output" == *"/2] health/0 skipped (the program said SKIPPED)"* ]]
	[[ "$output" == *"/2] ok/0 passed"* ]]
	grep -Eq '^health +0 +skipped .*the program skipped' <<<"$output"
	[ "${lines[-1]}" = "kunai: passed: 2 runs: 1 passed, 1 skipped; passed = ran and gave correct results; no performance reference was checked" ]
}
