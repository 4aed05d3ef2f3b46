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
#      same command inside its batch script and then waits for the job the
#      launcher submitted. Only the launcher command's words are compared.
#  N2. Environment variables: CloudAI sets them on the command line
#      (VAR="..." before the python) and passes them as +env_vars.K="V",
#      which the shell expands first; kunai exports them in the script
#      (literally, as every kunai export) and passes +env_vars.K=V
#      unexpanded. Those words are compared by name only.
#  N3. cluster.job_name_prefix is kunai's stable job name, not a timestamp.
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
		RUN_DIR=$1 INSTALL_DIR=$2
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
