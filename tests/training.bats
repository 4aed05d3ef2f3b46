#!/usr/bin/env bats
# CloudAI's training workloads (NeMoLauncher, ...) against CloudAI's own
# reference scripts (its tests/ref_data/, kept out of this repository: point
# CLOUDAI_REF_DATA at a copy, default $SHARED/cloudai-compat/ref_data).
#
# The comparison is on words, as in scripts.bats (whose intended differences
# 1-4 hold here too), plus these, normalised here:
#
#  N1. NeMoLauncher is no srun command: CloudAI runs the launcher on the
#      submit host and its reference is that command alone; kunai runs the
#      same command in a batch script of one node without GPUs and then
#      waits for the job the launcher submitted (tests/run_launcher.bats).
#      Only the launcher command's words are compared.
#  N2. Environment variables: CloudAI sets them on the command line
#      (VAR="..." before the python) and passes them as +env_vars.K="V",
#      which the shell expands first; kunai exports them in the script
#      (literally, as every kunai export) and passes +env_vars.K=V
#      unexpanded. Those words are compared by name only.
#  N3. cluster.job_name_prefix is kunai's stable job name, not a timestamp.
#  N5. NeMoRun's helper cloudai_nemorun.py: CloudAI mounts the folder of its
#      own source tree that holds it at /cloudai_workspace; kunai mounts the
#      install dir, where the helper is installed. Mapped here.
#  N6. MegatronRun: CloudAI's empty switch values leave double blanks inside
#      bash -c "..." (squeezed here). A mount of "$PWD" (CloudAI's launch
#      dir, expanded by its shell) is ${KUNAI_LAUNCH_DIR:-$BUILD_DIR} in
#      kunai's script (the runner hands the job the launch dir): compared
#      here as CloudAI writes it, $PWD (tests/live.bats runs both).
#  N4. Hydra lists: CloudAI's shell strips the quotes of stages=["training"]
#      (Hydra reads [training] as the same list); kunai passes the TOML
#      value as written. Double quotes inside [...] are dropped here.
bats_require_minimum_version 1.5.0

setup_file() {
	export REF="${CLOUDAI_REF_DATA:-$SHARED/cloudai-compat/ref_data}"
	export GOLDEN="$SHARED/cloudai-compat/golden"
}

# words RUN INSTALL TEXT: one line per word bash makes of TEXT (command
# substitution stubbed out), with kunai's path variables set.
words() {
	(
		RUN_DIR=$1 INSTALL_DIR=$2 BUILD_DIR='$PWD'
		RUN_DIR_Q=$(printf %q "$RUN_DIR")
		scontrol() { :; }
		eval "set -- $3"
		for w in "$@"; do printf '%s\n' "$w"; done
	)
}

# launcher_words FILE: the words of the launcher command, N2 and N3 applied.
launcher_words() {
	sed -e 's/^{ //' -e 's/; } 2>&1 | tee .*//' "$1" |
		awk '/bin\/python/ {on = 1} on {print} on && !/\\$/ {exit}' >"$BATS_TEST_TMPDIR/cmd"
	words __OUTPUT_DIR__/output __OUTPUT_DIR__/install "$(cat "$BATS_TEST_TMPDIR/cmd")" |
		sed -e 's/^\(+env_vars\.[A-Za-z_0-9]*\)=.*/\1/' -e 's/^cluster\.job_name_prefix=.*/cluster.job_name_prefix/' \
			-e '/=\[/s/"//g'
}

@test "NeMoLauncher: the launcher command has CloudAI's words (ref_data/nemo-launcher.sbatch)" {
	[ -f "$REF/nemo-launcher.sbatch" ] || skip "CloudAI's reference scripts are absent ($REF)"
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	# CloudAI's test: NeMoLauncherCmdArgs() defaults and one environment variable
	cat >"$t/tests/nl.toml" <<-'T'
	name = "nemo-launcher"
	description = "nemo-launcher"
	test_template_name = "NeMoLauncher"
	[extra_env_vars]
	VAR = '$(scontrol show hostname \"${SLURM_STEP_NODELIST}\" | head -n1)'
	T
	printf 'name = "tc"\n[[Tests]]\nid = "nl"\ntest_name = "nemo-launcher"\n' >"$t/scenario.toml"
	sed 's/^cache_docker_images_locally = true/cache_docker_images_locally = false/' "$GOLDEN/system.toml" >"$t/system.toml"
	run "$KUNAI" gen --system-config "$t/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# N2: CloudAI's VAR="..." prefix line is not a launcher word
	grep -v '^VAR=' "$REF/nemo-launcher.sbatch" >"$t/ref"
	launcher_words "$t/ref" >"$t/cloudai.words"
	launcher_words "$t/out/nl/0/cloudai_sbatch_script.sh" >"$t/kunai.words"
	diff -u "$t/cloudai.words" "$t/kunai.words"
	grep -q '^export VAR=' "$t/out/nl/0/cloudai_sbatch_script.sh"
}

# lines FILE RUN INSTALL: the #SBATCH (no job name, --output/--error made
# relative), export, srun, PRE_TEST_SUCCESS, if and fi lines of FILE, the
# shell lines as their words (scripts.bats's normalisation, differences 1-7).
lines() {
	local file=$1 run=$2 install=$3 line
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in
		'#SBATCH --job-name='*) ;;
		'#SBATCH '*) printf '%s\n' "${line//=$run\//=}" ;;
		'export SLURM_JOB_MASTER_NODE='* | PRE_TEST_SUCCESS=* | 'if '* | fi) printf '%s\n' "$line" ;;
		export\ * | srun\ *)
			words "$run" "$install" "$line" | tr '\n' ' '
			printf '\n'
			;;
		esac
	done <"$file"
}

# nemo_run REF [PRE]: CloudAI's NeMoRun test of its reference scripts (its
# extra_env_vars in $ENV_TOML), with an NCCL pre-test hook when PRE is set.
nemo_run() {
	local ref=$1 pre=${2:-} t=$BATS_TEST_TMPDIR
	[ -f "$REF/$ref" ] || skip "CloudAI's reference scripts are absent ($REF)"
	mkdir -p "$t/tests" "$t/hook/test"
	cat >"$t/tests/nr.toml" <<-T
	name = "nemo-run"
	description = "nemo-run"
	test_template_name = "NeMoRun"
	[cmd_args]
	docker_image_url = "nvcr.io/nvidia/nemo:24.09"
	task = "pretrain"
	recipe_name = "llama_3b"
	${ENV_TOML:-}
	T
	printf 'name = "tc"\n' >"$t/scenario.toml"
	if [ -n "$pre" ]; then
		cp "$GOLDEN/nccl.test.toml" "$t/hook/test/"
		printf 'name = "nccl"\n[[Tests]]\nid = "nccl.1"\ntest_name = "nccl"\n' >"$t/hook/nccl.toml"
		printf 'pre_test = "nccl"\n' >>"$t/scenario.toml"
	fi
	printf '[[Tests]]\nid = "nr"\ntest_name = "nemo-run"\n' >>"$t/scenario.toml"
	run "$KUNAI" gen --system-config "$GOLDEN/system.toml" --tests-dir "$t/tests" --hook-dir "$t/hook" \
		--test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	lines "$REF/$ref" __OUTPUT_DIR__/output __OUTPUT_DIR__/install |
		sed -e 's|\[__CLOUDAI_DIR__/src/cloudai/workloads/nemo_run:/cloudai_workspace\]|[__OUTPUT_DIR__/install:/cloudai_workspace]|' \
			-e 's|__CLOUDAI_DIR__/src/cloudai/workloads/nemo_run:/cloudai_workspace|__OUTPUT_DIR__/install:/cloudai_workspace|' \
			-e 's|--container-image=nvcr.io/nvidia/nemo:24.09|--container-image=__OUTPUT_DIR__/install/nvcr.io_nvidia__nemo__24.09.sqsh|' \
			-e 's|--container-image=nvcr.io#nvidia/pytorch:24.02-py3|--container-image=__OUTPUT_DIR__/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh|' \
			>"$t/cloudai.lines"
	lines "$t/out/nr/0/cloudai_sbatch_script.sh" __OUTPUT_DIR__/output __OUTPUT_DIR__/install >"$t/kunai.lines"
	diff -u "$t/cloudai.lines" "$t/kunai.lines"
}

@test "NeMoRun: every directive, export and srun line of ref_data/nemo-run-no-hook.sbatch" {
	nemo_run nemo-run-no-hook.sbatch
}

@test "NeMoRun: ENABLE_VBOOST=1 adds CloudAI's vboost srun (ref_data/nemo-run-vboost.sbatch)" {
	ENV_TOML=$'[extra_env_vars]\nENABLE_VBOOST = "1"' nemo_run nemo-run-vboost.sbatch
}

@test "NeMoRun: with an NCCL pre-test hook (ref_data/nemo-run-pre-test.sbatch)" {
	nemo_run nemo-run-pre-test.sbatch pre
}

# mb_words FILE: the words of the Megatron-Bridge launcher line of FILE.
mb_words() {
	grep '^NEMORUN_HOME=' "$1" | sed 's/ >>"$LOG" 2>&1.*//' >"$BATS_TEST_TMPDIR/cmd"
	words __OUTPUT_DIR__/output __INSTALL_DIR__ "$(cat "$BATS_TEST_TMPDIR/cmd")"
}

@test "MegatronBridge: the launcher command has CloudAI's words (ref_data/megatron-bridge.sbatch)" {
	[ -f "$REF/megatron-bridge.sbatch" ] || skip "CloudAI's reference scripts are absent ($REF)"
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	cat >"$t/tests/mb.toml" <<-'T'
	name = "megatron-bridge"
	description = "Megatron-Bridge benchmark"
	test_template_name = "MegatronBridge"
	extra_container_mounts = []
	[cmd_args]
	container_image = "/images/megatron_bridge_image.sqsh"
	hf_token = "dummy_token"
	model_family_name = "qwen3"
	model_recipe_name = "30b_a3b"
	num_gpus = 8
	[extra_env_vars]
	CUDA_VISIBLE_DEVICES = "0,1,2,3"
	NCCL_DEBUG = "INFO"
	[[git_repos]]
	url = "https://github.com/NVIDIA-NeMo/Megatron-Bridge.git"
	commit = "main"
	mount_as = "/opt/Megatron-Bridge"
	T
	printf 'name = "tc"\n[[Tests]]\nid = "mb"\ntest_name = "megatron-bridge"\ntime_limit = "00:20:00"\n' >"$t/scenario.toml"
	run "$KUNAI" gen --system-config "$GOLDEN/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	mb_words "$REF/megatron-bridge.sbatch" |
		sed 's|^__OUTPUT_DIR__/output/megatron_bridge_image.sqsh$|/images/megatron_bridge_image.sqsh|' >"$t/cloudai.words"
	mb_words "$t/out/mb/0/cloudai_sbatch_script.sh" >"$t/kunai.words"
	diff -u "$t/cloudai.words" "$t/kunai.words"
}

@test "MegatronRun: every directive, export and srun line of ref_data/megatron-run.sbatch" {
	[ -f "$REF/megatron-run.sbatch" ] || skip "CloudAI's reference scripts are absent ($REF)"
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	# CloudAI's test writes absolute paths of its working directory: /cwd here
	cat >"$t/tests/mr.toml" <<-'T'
	name = "megatron-run"
	description = "megatron-run"
	test_template_name = "MegatronRun"
	extra_container_mounts = ["$PWD"]
	[cmd_args]
	docker_image_url = "nvcr.io/nvidia/megatron:24.09"
	run_script = "/cwd/run.py"
	save = "/cwd"
	load = "/cwd"
	tokenizer_model = "/cwd/model.m"
	T
	printf 'name = "tc"\n[[Tests]]\nid = "mr"\ntest_name = "megatron-run"\n' >"$t/scenario.toml"
	sed 's/^cache_docker_images_locally = true/cache_docker_images_locally = false/' "$GOLDEN/system.toml" >"$t/system.toml"
	run "$KUNAI" gen --system-config "$t/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	lines "$REF/megatron-run.sbatch" __OUTPUT_DIR__/output __OUTPUT_DIR__/install |
		sed -e 's|__CLOUDAI_DIR__|/cwd|g' -e "s|,$PWD |,\$PWD |g" | tr -s ' ' >"$t/cloudai.lines"
	lines "$t/out/mr/0/cloudai_sbatch_script.sh" __OUTPUT_DIR__/output __OUTPUT_DIR__/install >"$t/kunai.lines"
	diff -u "$t/cloudai.lines" "$t/kunai.lines"
}

# JaxToolbox (GPT, Grok): intended differences, normalised here:
#  J1. CloudAI writes run.sh when it generates; kunai's batch script writes
#      the same file (a quoted here-document) into the run dir when it runs.
#      run.sh is compared on its own (its shell words, logical line by line).
#  J2. After the srun, kunai copies profile_stderr_*.txt and error-*.txt to
#      stdout (for the grader) and keeps the srun's exit status.
#  J3. Values CloudAI pastes into run.sh as shell text ('[1, 8, 1]',
#      \"bfloat16\") are split into the words the shell makes of them and
#      quoted by kunai ('"bfloat16"'); the words are the same. CloudAI's empty
#      line for absent extra_srun_args is left out.
# joined FILE: FILE with backslash-continued lines joined.
joined() {
	awk '{ if (sub(/\\$/, "")) { buf = buf $0; next } print buf $0; buf = "" }' "$1"
}

# run_words FILE: each logical line of a run.sh as its words (control lines
# and redirections as written).
run_words() {
	local line redir
	joined "$1" | while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in
		'') ;;
		if\ * | else | fi) printf '%s\n' "$line" ;;
		*)
			redir=
			case $line in
			*' 2>&1') redir=" >${line##*>}" line=${line% >*} ;;
			esac
			printf '%s%s\n' "$(words __OUTPUT_DIR__/output __OUTPUT_DIR__/install "$line" | tr '\n' ' ')" "$redir"
			;;
		esac
	done
}

# jax NAME TEMPLATE REF [PRE]: CloudAI's acceptance test of NAME (its
# defaults, COMBINE_THRESHOLD=1) against ref_data/REF and NAME.run.
jax() {
	local name=$1 tmpl=$2 ref=$3 pre=${4:-} t=$BATS_TEST_TMPDIR
	[ -f "$REF/$ref" ] || skip "CloudAI's reference scripts are absent ($REF)"
	mkdir -p "$t/tests" "$t/hook/test"
	cat >"$t/tests/$name.toml" <<-T
	name = "$name"
	description = "$name"
	test_template_name = "$tmpl"
	[cmd_args]
	fdl_config = "fdl/config"
	docker_image_url = "https://docker/url"
	output_path = "/some/output/path"
	[extra_env_vars]
	COMBINE_THRESHOLD = "1"
	T
	printf 'name = "tc"\n' >"$t/scenario.toml"
	if [ -n "$pre" ]; then
		cp "$GOLDEN/nccl.test.toml" "$t/hook/test/"
		printf 'name = "nccl"\n[[Tests]]\nid = "nccl.1"\ntest_name = "nccl"\n' >"$t/hook/nccl.toml"
		printf 'pre_test = "nccl"\n' >>"$t/scenario.toml"
	fi
	printf '[[Tests]]\nid = "%s"\ntest_name = "%s"\n' "$name" "$name" >>"$t/scenario.toml"
	sed 's/^cache_docker_images_locally = true/cache_docker_images_locally = false/' "$GOLDEN/system.toml" >"$t/system.toml"
	run "$KUNAI" gen --system-config "$t/system.toml" --tests-dir "$t/tests" --hook-dir "$t/hook" \
		--test-scenario "$t/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	local sb=$t/out/$name/0/cloudai_sbatch_script.sh
	# J1, J2: the here-document and the log copy out of the script
	sed -e "/^ *cat >\"\$RUN_DIR\/run.sh\" <<'KUNAI_RUN_SH'/,/^KUNAI_RUN_SH\$/d" -e '/^chmod +x/d' \
		-e '/^KUNAI_JAX_RC=/,/^(exit \$KUNAI_JAX_RC)/d' "$sb" >"$t/kunai.sbatch"
	sed -n "/<<'KUNAI_RUN_SH'\$/,/^KUNAI_RUN_SH\$/p" "$sb" | sed '1d;$d' >"$t/kunai.run"
	joined "$REF/$ref" >"$t/ref.joined"
	joined "$t/kunai.sbatch" >"$t/kunai.joined"
	lines "$t/ref.joined" __OUTPUT_DIR__/output __OUTPUT_DIR__/install >"$t/cloudai.lines"
	lines "$t/kunai.joined" __OUTPUT_DIR__/output __OUTPUT_DIR__/install >"$t/kunai.lines"
	diff -u "$t/cloudai.lines" "$t/kunai.lines"
	grep -q '/opt/paxml/workspace/run.sh$' "$t/kunai.joined"
	run_words "$REF/$name.run" >"$t/cloudai.run.words"
	run_words "$t/kunai.run" >"$t/kunai.run.words"
	diff -u "$t/cloudai.run.words" "$t/kunai.run.words"
	[ "$(wc -l <"$t/kunai.run.words")" -gt 20 ]
}

@test "JaxToolboxGPT: CloudAI's sbatch lines and run.sh words (ref_data/gpt-no-hook.sbatch, gpt.run)" {
	jax gpt JaxToolboxGPT gpt-no-hook.sbatch
}

@test "JaxToolboxGPT: with an NCCL pre-test hook (ref_data/gpt-pre-test.sbatch)" {
	jax gpt JaxToolboxGPT gpt-pre-test.sbatch pre
}

@test "JaxToolboxGrok: CloudAI's sbatch lines and run.sh words (ref_data/grok-no-hook.sbatch, grok.run)" {
	jax grok JaxToolboxGrok grok-no-hook.sbatch
}

@test "JaxToolboxGrok: with an NCCL pre-test hook (ref_data/grok-pre-test.sbatch)" {
	jax grok JaxToolboxGrok grok-pre-test.sbatch pre
}

@test "NeMoRun: without CloudAI's cloudai_nemorun.py in the install dir the batch script stops, located" {
	local t=$BATS_TEST_TMPDIR d=$BATS_TEST_DIRNAME/cases/slurm/nemo_run line
	run "$KUNAI" gen --system-config "$d/system.toml" --tests-dir "$d/tests" --test-scenario "$d/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	line=$(grep '^\[ -f "$INSTALL_DIR"/cloudai_nemorun.py \]' "$t"/out/*/0/cloudai_sbatch_script.sh)
	mkdir "$t/install"
	run bash -c "INSTALL_DIR='$t/install'; $line; echo reached"
	[ "$status" -eq 1 ]
	[[ $output == "llama.toml:1:8: error: NeMoRun needs cloudai_nemorun.py in the install dir (kunai ships no Python: copy CloudAI's src/cloudai/workloads/nemo_run/cloudai_nemorun.py there)" ]]
	touch "$t/install/cloudai_nemorun.py"
	run bash -c "INSTALL_DIR='$t/install'; $line; echo reached"
	[ "$status" -eq 0 ]
	[ "$output" = reached ]
}

@test "JaxToolbox: the batch script writes a valid run.sh, runs it in the loaded container and copies the logs to stdout" {
	local t=$BATS_TEST_TMPDIR d=$BATS_TEST_DIRNAME/cases/slurm/jax_gpt
	run "$KUNAI" gen --system-config "$d/system.toml" --tests-dir "$d/tests" --test-scenario "$d/scenario.toml" -o "$t/out"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# stand-ins: srun runs nothing but the test's run.sh step, whose logs it fakes
	mkdir "$t/bin"
	cat >"$t/bin/srun" <<-'S'
	#!/bin/bash
	err=
	for a in "$@"; do
		case $prev in -e) err=$a ;; esac
		prev=$a
	done
	echo "srun $*" >>"$RUN_DIR/srun.log"
	[ "${!#}" = /opt/paxml/workspace/run.sh ] || exit 0
	bash -n "$RUN_DIR/run.sh" || exit 9
	echo '[PAX STATUS]: E2E time: Elapsed time for <_main>: 9 seconds' >"$RUN_DIR/profile_stderr_0.txt"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo "[PAX STATUS]: train_step() took 0.5 seconds"; done >"${err//%[jnt]/0}"
	echo 'E2E time: Elapsed time for <_main>: 9 seconds' >>"${err//%[jnt]/0}"
	exit 3
	S
	printf '#!/bin/sh\necho node1\n' >"$t/bin/scontrol"
	chmod +x "$t/bin/srun" "$t/bin/scontrol"
	local rd=$t/out/gpt/0
	run env PATH="$t/bin:$PATH" RUN_DIR="$rd" SLURM_SUBMIT_DIR="$rd" bash "$rd/cloudai_sbatch_script.sh"
	# the srun's status is the job's
	[ "$status" -eq 3 ] || { echo "$output"; return 1; }
	[ -x "$rd/run.sh" ] && bash -n "$rd/run.sh"
	[ "$(grep -c 'paxml.main' "$rd/run.sh")" -eq 4 ]
	grep -q -- '--container-name=cont true$' "$rd/srun.log"
	[[ $output == *"==> profile_stderr_0.txt <=="* ]]
	[[ $output == *"==> error-0-0-0.txt <=="*"train_step() took 0.5 seconds"* ]]
}
