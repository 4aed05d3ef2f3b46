#!/usr/bin/env bats
# NeMoLauncher on a real single-node Slurm (tests/slurm/start): the launcher
# runs in a job of one node without GPUs (never the test's size), submits
# the training job as NeMo-Framework-Launcher does ("submitted with Job ID
# N"), and kunai's job script waits for that job: recorded in kunai.subjob,
# its log graded, its state the run's outcome, cancelled with the launcher's
# job on Ctrl-C. The launcher is a stand-in in the install dir (its venv's
# python): the real one needs NeMo's repository and a GPU cluster.
bats_require_minimum_version 1.5.0

COMMIT=599ecfcbbd64fd2de02f2cc093b1610d73854022

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (the test cluster runs its daemons as root)"
	local b out port
	for b in sbatch squeue scancel scontrol; do
		command -v "$b" >/dev/null || skip "no $b (apt-get install slurm-wlm)"
	done
	PATH=$PATH:/usr/sbin:/sbin
	command -v slurmctld >/dev/null && command -v munged >/dev/null || skip "no slurmctld/munged"
	# ports of our own (KUNAI_TEST_SLURM_PORT +16; see run_slurm.bats)
	if [ -n "${KUNAI_TEST_SLURM_PORT:-}" ]; then
		port=$((KUNAI_TEST_SLURM_PORT + 16))
	else
		port=$((24000 + ($$ % 1000) * 4))
	fi
	export SLURM_STATE=/tmp/kunai-slurm-launcher-$$
	out=$(SLURM_LOCAL_CPUS=8 SLURM_LOCAL_PORT=$port "$BATS_TEST_DIRNAME/slurm/start" "$SLURM_STATE" 2>&1) ||
		{ echo "slurm/start: $out" >&3; return 1; }
	export SLURM_CONF=${out##*SLURM_CONF=}
}

teardown_file() {
	[ -n "${SLURM_STATE:-}" ] && [ -d "$SLURM_STATE" ] || return 0
	"$BATS_TEST_DIRNAME/slurm/stop" "$SLURM_STATE" >/dev/null 2>&1
	rm -rf "$SLURM_STATE"
}

# campaign TRAIN: a NeMoLauncher test of 1 node in $C, built in $B; TRAIN is
# the training job's script (the stand-in launcher submits it).
campaign() {
	W=$BATS_TEST_TMPDIR C=$BATS_TEST_TMPDIR/c B=$BATS_TEST_TMPDIR/out
	mkdir -p "$C/tests"
	cat >"$C/system.toml" <<-'T'
	name = "testcluster"
	scheduler = "slurm"
	install_path = "./install"
	output_path = "./results"
	default_partition = "debug"
	gpus_per_node = 8
	[[partitions]]
	name = "debug"
	T
	printf 'name = "nemo"\ndescription = "d"\ntest_template_name = "NeMoLauncher"\n[cmd_args]\ndocker_image_url = "nemo.sqsh"\n' \
		>"$C/tests/nemo.toml"
	printf 'name = "l"\n[[Tests]]\nid = "t"\ntest_name = "nemo"\nnum_nodes = 1\n' >"$C/scenario.toml"
	(cd "$C" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$B") >/dev/null
	# what the installs would leave: the repository and its venv, whose
	# python is the stand-in launcher
	local i=$B/install
	mkdir -p "$i/NeMo-Framework-Launcher__$COMMIT/launcher_scripts" "$i/NeMo-Framework-Launcher__$COMMIT-venv/bin"
	printf '%s\n' "$1" >"$i/train.sh"
	cat >"$i/NeMo-Framework-Launcher__$COMMIT-venv/bin/python" <<-'S'
	#!/bin/bash
	# main.py OVERRIDES: submits the training job and says so, as the launcher does
	for a; do case $a in base_results_dir=*) out=${a#*=} ;; esac; done
	mkdir -p "$out/run"
	id=$(sbatch --parsable -N 1 -o "$out/run/log-%j.out" "$(dirname "$0")/../../train.sh") || exit 1
	echo "Job run submitted with Job ID $id"
	S
	chmod +x "$i/NeMo-Framework-Launcher__$COMMIT-venv/bin/python"
	# the run's own edge, as ninja runs it (its installs, a checkout at
	# NeMo's commit and a venv, are what the stand-in stands for)
	# (the rule execs kunai job itself: the exec is ours below)
	RUN_CMD=$("$NINJA" -C "$B" -t commands t/0/kunai.stamp | tail -n 1)
	RUN_CMD=${RUN_CMD#exec }
	[[ $RUN_CMD == *" job run --scheduler slurm "*" t/0/kunai.stamp" ]]
}

# run_edge: the run's edge in the build dir, in place of the subshell it
# is called in (run, or &), with SIGINT as ninja's child has it: not
# ignored, as it is in a shell's background job
run_edge() {
	cd "$B" && eval "exec env --default-signal=INT $RUN_CMD"
}

jf() {
	sed -n -e "s/^	\"$2\":	\"\(.*\)\",\{0,1\}\$/\1/p" \
		-e "s/^	\"$2\":	\([^\",]*\),\{0,1\}\$/\1/p" "$1"
}

wait_for() {
	local i=0
	while [ ! -s "$1" ]; do
		i=$((i + 1))
		[ $i -le 600 ] || { echo "no $1"; return 1; }
		sleep 0.1
	done
}

@test "NeMoLauncher: the launcher's job is one node without GPUs; the job it submits is waited for, graded, recorded" {
	campaign $'#!/bin/bash\necho "train_step_timing in s: [1.5, 1.25, 1.0]"\necho "reduced_train_loss: 2.5"'
	local s=$B/t/0/cloudai_sbatch_script.sh
	grep -qx '#SBATCH -N 1' "$s"
	grep -qx '#SBATCH --ntasks=1' "$s"
	! grep -q -- '--gpus-per-node\|--gres' "$s"
	! grep -q '^srun' "$s"
	run run_edge
	[ "$status" -eq 0 ] || { echo "$output"; cat "$B/t/0/"*.txt "$B/t/0/run/"*; false; }
	[ -e "$B/t/0/kunai.stamp" ]
	[ "$(jf "$B/t/0/job.json" outcome)" = passed ]
	# the training job is not the launcher's
	local sub
	sub=$(sed -n 's/^job=//p' "$B/t/0/kunai.subjob")
	[ -n "$sub" ]
	[ "$sub" != "$(jf "$B/t/0/job.json" job_id)" ]
	grep -q "submitted with Job ID $sub" "$B/t/0/launcher.txt"
	# its log is the run's output, which the grader reads
	grep -q 'train_step_timing in s: \[1.5, 1.25, 1.0\]' "$B/t/0/stdout.txt"
	(cd "$B" && "$KUNAI" grade t/0/report.json)
	[ "$(jf "$B/t/0/report.json" outcome)" = passed ]
	grep -qx $'\t\t"steps":\t3,' "$B/t/0/report.json"
	grep -qx $'\t\t"step_time_s":\t1.25,' "$B/t/0/report.json"
}

@test "NeMoLauncher: a training job that fails fails the run" {
	campaign $'#!/bin/bash\necho "train_step_timing in s: [1.5]"\nexit 3'
	run run_edge
	[ "$status" -ne 0 ]
	[ "$(jf "$B/t/0/job.json" outcome)" = failed ]
	[ ! -e "$B/t/0/kunai.stamp" ]
}

@test "NeMoLauncher: Ctrl-C cancels the launcher's job and the job it submitted" {
	campaign $'#!/bin/bash\nsleep 300'
	(run_edge) >"$W/job.log" 2>&1 3>&- &
	local npid=$! sub i
	wait_for "$B/t/0/kunai.subjob"
	sub=$(sed -n 's/^job=//p' "$B/t/0/kunai.subjob")
	squeue -h -j "$sub" | grep -q .
	# Ctrl-C reaches ninja's children: kunai job here
	kill -INT "$npid"
	wait "$npid" || true
	for i in $(seq 80); do
		[ -z "$(squeue -h -j "$sub,$(jf "$B/t/0/job.json" job_id)" 2>/dev/null)" ] && break
		sleep 0.25
	done
	[ -z "$(squeue -h -j "$sub,$(jf "$B/t/0/job.json" job_id)" 2>/dev/null)" ]
	[ "$(jf "$B/t/0/job.json" outcome)" = cancelled ]
}
