#!/usr/bin/env bats
# The job scripts kunai writes, against CloudAI's own (../shared/cloudai-compat).
#
# For every golden file, each `#SBATCH` directive, `export` line and `srun`
# command line must have its equivalent in kunai's script, in the same order.
# "Equivalent" is checked on what the shell would run, not on bytes: both
# lines are split into words by bash itself (eval "set -- LINE") with kunai's
# path variables set to the placeholder paths of the golden file, and the word
# lists must be equal. These are the intended differences, normalised here:
#
#  1. Paths. CloudAI embeds absolute paths; kunai's script embeds none (the
#     same campaign gives the same bytes anywhere, DESIGN.md semantics 1). It
#     is submitted from its run directory and sets RUN_DIR (the run dir),
#     BUILD_DIR and INSTALL_DIR when it runs, and RUN_DIR_Q (RUN_DIR quoted
#     for the inner shell of `bash -c`). Here RUN_DIR is the golden's case dir
#     (__OUTPUT_DIR__/output) and INSTALL_DIR its install dir.
#  2. #SBATCH --output/--error are relative (stdout.txt, stderr.txt): sbatch
#     resolves them against the submit dir, which is the run dir.
#  3. The job name is stable (<scenario>.<id>.<iteration>[.<step>], with
#     <account>- in front when an account is set), never a timestamp, so the
#     --job-name lines are not compared, only required.
#  4. Quoting. kunai quotes every value from TOML for the shell ('...' or
#     "..." around words that need it); CloudAI pastes them raw. Word
#     splitting makes the two agree wherever CloudAI's line was correct.
#  5. Cached images. With cache_docker_images_locally = true kunai always
#     points --container-image at <install>/<cache name>.sqsh (what a CloudAI
#     run uses after `cloudai install`); the golden files were made without
#     an install, so they show the URL. The golden URL is mapped here.
#  6. Lines kunai adds, not compared: the RUN_DIR/BUILD_DIR/INSTALL_DIR/
#     RUN_DIR_Q block, `mkdir -p` of metadata/ and hook dirs, `KUNAI_RC=$?`
#     after the main command and `exit $KUNAI_RC` (the job's exit status is
#     the test command's, or 1 when a pre hook failed; CloudAI's is whatever
#     ran last), and the hostfile written by the script itself.
#  7. Hook success checks (SUCCESS_i=...) test the hook's exit status and all
#     of its workload's patterns (NCCL: "# Out of bounds values" and "# Avg
#     bus bandwidth" present, "Test failure"/"Test NCCL failure" absent);
#     CloudAI greps "Avg bus bandwidth" only. Their lines are not compared;
#     PRE_TEST_SUCCESS, `if` and `fi` are.
#
# tests/cases/slurm/NAME/ holds cases of kunai's own (the cproc way): inputs
# (system.toml, tests/, scenario.toml, optional hook/) and expected.sbatch, the
# script of the case's only run (plus expected.env_vars.sh when present).
# UPDATE=1 rewrites the expected files for review with git diff.
bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	export GOLDEN="$SHARED/cloudai-compat/golden"
	export DRYRUN="$SHARED/cloudai-compat/dryrun"
	export CONF="$SHARED/cloudai-compat/conf"
}

# the Slurm test cluster, if a test started one
teardown() {
	if [ -n "${SLURM_STATE:-}" ]; then
		"$BATS_TEST_DIRNAME/slurm/stop" "$SLURM_STATE" >/dev/null 2>&1
		rm -rf "$SLURM_STATE"
	fi
}

# gen OUT SYSTEM TESTS_DIR SCENARIO [HOOK_DIR]: kunai gen into OUT.
gen() {
	local out=$1 sys=$2 tests=$3 scen=$4 hooks=${5:-}
	if [ -n "$hooks" ]; then
		"$KUNAI" gen --system-config "$sys" --tests-dir "$tests" --test-scenario "$scen" \
			--hook-dir "$hooks" -o "$out"
	else
		"$KUNAI" gen --system-config "$sys" --tests-dir "$tests" --test-scenario "$scen" -o "$out"
	fi
}

# words RUN INSTALL LINE: the words bash makes of LINE, each as [word] (its
# newlines shown as \n), with kunai's variables set to RUN and INSTALL.
words() {
	(
		RUN_DIR=$1 INSTALL_DIR=$2 BUILD_DIR=/build
		RUN_DIR_Q=$(printf %q "$RUN_DIR")
		eval "set -- $3"
		for w in "$@"; do
			printf '[%s]' "${w//$'\n'/\\n}"
		done
	)
}

# lines FILE: the #SBATCH (no job name), export and srun lines of FILE, each
# normalised to its words; --output/--error made relative (difference 2).
lines() {
	local file=$1 run=$2 install=$3 line
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in
		'#SBATCH --job-name='*) ;;
		'#SBATCH '*)
			line=${line//=$run\//=}
			printf '%s\n' "$line"
			;;
		'export SLURM_JOB_MASTER_NODE='* | PRE_TEST_SUCCESS=* | 'if '* | fi) printf '%s\n' "$line" ;;
		export\ * | srun\ *)
			words "$run" "$install" "$line"
			printf '\n'
			;;
		esac
	done <"$file"
}

# compare CLOUDAI KUNAI RUN INSTALL [SED]: the normalised lines must agree;
# SED maps a golden image URL to kunai's cached path (difference 5).
compare() {
	local cloudai=$1 kunai=$2 run=$3 install=$4 sed=${5:-}
	lines "$cloudai" "$run" "$install" | sed "${sed:-s/^//}" >"$BATS_TEST_TMPDIR/cloudai.lines"
	lines "$kunai" "$run" "$install" >"$BATS_TEST_TMPDIR/kunai.lines"
	grep -q '^#SBATCH --job-name=[^ ]' "$kunai"
	diff -u "$BATS_TEST_TMPDIR/cloudai.lines" "$BATS_TEST_TMPDIR/kunai.lines"
}

# golden NAME SED: generate golden/NAME.test.toml on golden/system.toml as
# the only case of a scenario and compare with golden/NAME.sbatch.
golden() {
	local name=$1 sed=$2 t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	cp "$GOLDEN/$name.test.toml" "$t/tests/"
	printf 'name = "golden"\n[[Tests]]\nid = "%s"\ntest_name = "%s"\n' "$name" "$name" >"$t/scenario.toml"
	run gen "$t/out" "$GOLDEN/system.toml" "$t/tests" "$t/scenario.toml"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	compare "$GOLDEN/$name.sbatch" "$t/out/$name/0/cloudai_sbatch_script.sh" \
		__OUTPUT_DIR__/output __OUTPUT_DIR__/install "$sed"
}


# golden_sed NAME: the map of golden/NAME.sbatch's image URL to kunai's cached
# image (difference 5)
golden_sed() {
	case $1 in
	nccl | ucc) echo 's|--container-image=nvcr.io#nvidia/pytorch:24.02-py3|--container-image=__OUTPUT_DIR__/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh|' ;;
	slurm_container) echo 's|--container-image=https://docker/url|--container-image=__OUTPUT_DIR__/install/docker__url__notag.sqsh|' ;;
	esac
}

@test "golden nccl.sbatch: every directive and srun line has its equivalent" {
	need_cloudai
	golden nccl 's|--container-image=nvcr.io#nvidia/pytorch:24.02-py3|--container-image=__OUTPUT_DIR__/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh|'
}

@test "golden sleep.sbatch: every directive and srun line has its equivalent" {
	need_cloudai
	golden sleep ''
}

@test "golden ucc.sbatch: every directive and srun line has its equivalent" {
	need_cloudai
	golden ucc 's|--container-image=nvcr.io#nvidia/pytorch:24.02-py3|--container-image=__OUTPUT_DIR__/install/nvcr.io_nvidia__pytorch__24.02-py3.sqsh|'
}

@test "golden slurm_container.sbatch: every directive and srun line has its equivalent" {
	need_cloudai
	golden slurm_container 's|--container-image=https://docker/url|--container-image=__OUTPUT_DIR__/install/docker__url__notag.sqsh|'
}

@test "tests/cases/cloudai: the expected scripts agree with CloudAI's golden ones" {
	need_cloudai
	local n
	for n in nccl sleep ucc slurm_container; do
		compare "$GOLDEN/$n.sbatch" "tests/cases/cloudai/$n/expected.sbatch" \
			__OUTPUT_DIR__/output __OUTPUT_DIR__/install "$(golden_sed "$n")"
	done
}

@test "dry run of nccl_test.toml with pre/post hooks: Tests.all_reduce matches CloudAI's" {
	need_cloudai
	local t=$BATS_TEST_TMPDIR
	run gen "$t/out" "$CONF/system/example_slurm_cluster.toml" "$CONF/test" \
		"$CONF/test_scenario/nccl_test.toml" "$CONF/hook"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	compare "$DRYRUN/nccl_test_scenario/Tests.all_reduce/0/cloudai_sbatch_script.sh" \
		"$t/out/Tests.all_reduce/0/cloudai_sbatch_script.sh" __SCENARIO_ROOT__/Tests.all_reduce/0 __INSTALL_DIR__
	# env_vars.sh has CloudAI's export K="V" form, byte for byte here
	cmp "$DRYRUN/nccl_test_scenario/Tests.all_reduce/0/env_vars.sh" "$t/out/Tests.all_reduce/0/env_vars.sh"
	cmp "$DRYRUN/nccl_test_scenario/Tests.all_reduce/0/pre_test/nccl_test_all_gather/env_vars.sh" \
		"$t/out/Tests.all_reduce/0/pre_test/nccl_test_all_gather/env_vars.sh"
	[ -f "$t/out/Tests.all_reduce/0/post_test/nccl_test_all_gather/env_vars.sh" ]
}

@test "dry run of sleep.toml: Tests.sleep5 matches CloudAI's" {
	need_cloudai
	local t=$BATS_TEST_TMPDIR
	run gen "$t/out" "$CONF/system/example_slurm_cluster.toml" "$CONF/test" "$CONF/test_scenario/sleep.toml"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	compare "$DRYRUN/sleep_scenario/Tests.sleep5/0/cloudai_sbatch_script.sh" \
		"$t/out/Tests.sleep5/0/cloudai_sbatch_script.sh" __SCENARIO_ROOT__/Tests.sleep5/0 __INSTALL_DIR__
}

@test "scripts are byte-identical from two working directories and parse as bash" {
	need_cloudai
	local t=$BATS_TEST_TMPDIR f
	mkdir -p "$t/a/b"
	gen "$t/one" "$CONF/system/example_slurm_cluster.toml" "$CONF/test" \
		"$CONF/test_scenario/nccl_test.toml" "$CONF/hook" >/dev/null
	(cd "$t/a/b" && gen ../../two "$CONF/system/example_slurm_cluster.toml" "$CONF/test" \
		"$CONF/test_scenario/nccl_test.toml" "$CONF/hook") >/dev/null
	for f in $(cd "$t/one" && find . -name '*.sh' | sort); do
		cmp "$t/one/$f" "$t/two/$f"
		bash -n "$t/one/$f"
		! grep -q "$t" "$t/one/$f"
	done
}

@test "tests/cases/slurm and tests/cases/cloudai: kunai's own expected scripts" {
	local d name t out got n=0 bad=0
	for d in tests/cases/slurm/*/ tests/cases/cloudai/*/; do
		name=$(basename "$d")
		t=$BATS_TEST_TMPDIR/$name
		if [ -d "$d/hook" ]; then
			gen "$t" "$d/system.toml" "$d/tests" "$d/scenario.toml" "$d/hook" >"$t.log" 2>&1 ||
				{ cat "$t.log"; bad=$((bad + 1)); continue; }
		else
			gen "$t" "$d/system.toml" "$d/tests" "$d/scenario.toml" >"$t.log" 2>&1 ||
				{ cat "$t.log"; bad=$((bad + 1)); continue; }
		fi
		got=$(cd "$t" && find . -name cloudai_sbatch_script.sh -not -path '*_test/*')
		[ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ] || { echo "$name: not one run: $got"; bad=$((bad + 1)); continue; }
		out=$t/$(dirname "$got")
		bash -n "$out/cloudai_sbatch_script.sh" || bad=$((bad + 1))
		for f in sbatch env_vars.sh; do
			local src=$out/cloudai_sbatch_script.sh
			[ "$f" = sbatch ] || src=$out/env_vars.sh
			if [ -n "${UPDATE:-}" ]; then
				[ "$f" = sbatch ] || [ -f "$d/expected.$f" ] || continue
				cp "$src" "$d/expected.$f"
			elif [ -f "$d/expected.$f" ]; then
				diff -u "$d/expected.$f" "$src" || bad=$((bad + 1))
			fi
		done
		n=$((n + 1))
	done
	echo "$n cases, $bad failures"
	[ "$bad" -eq 0 ]
	[ "$n" -gt 0 ]
}

@test "standalone run.sh: hooks, output files and exit status when run by hand" {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests" "$t/hook/test"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./install"\noutput_path = "./results"\n' \
		>"$t/system.toml"
	cat >"$t/tests/main.toml" <<-'TOML'
	name = "main"
	description = "prints its environment and fails with 3"
	test_template_name = "BashCmd"
	[cmd_args]
	cmd = "echo \"main $GREETING\"; exit 3"
	[extra_env_vars]
	GREETING = "it's ${KUNAI_UNSET_Y:-here} and $(echo sub) `echo bq` \\$(x)"
	TOML
	cat >"$t/hook/test/probe.toml" <<-'TOML'
	name = "probe"
	description = "passes unless HOOK_RC says otherwise"
	test_template_name = "BashCmd"
	[cmd_args]
	cmd = "echo probe; exit ${HOOK_RC:-0}"
	TOML
	printf 'name = "probe"\n[[Tests]]\nid = "probe.1"\ntest_name = "probe"\n' >"$t/hook/probe.toml"
	printf 'name = "local"\npre_test = "probe"\n[[Tests]]\nid = "main"\ntest_name = "main"\n' >"$t/scenario.toml"
	run gen "$t/out" "$t/system.toml" "$t/tests" "$t/scenario.toml" "$t/hook"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	# run from elsewhere: the script finds its own directory
	run bash "$t/out/main/0/run.sh"
	[ "$status" -eq 3 ]
	# $(...) and backquotes run as in CloudAI's export line, \$ is literal
	[ "$(cat "$t/out/main/0/stdout.txt")" = "main it's here and sub bq \$(x)" ]
	[ "$(cat "$t/out/main/0/pre_test/probe/stdout.txt")" = probe ]
	# a failed pre hook skips the command: status 1, no output from it
	echo 'export HOOK_RC=4' >>"$t/out/main/0/pre_test/probe/env_vars.sh"
	run bash "$t/out/main/0/run.sh"
	[ "$status" -eq 1 ]
	[ ! -s "$t/out/main/0/stdout.txt" ]
}

@test "sbatch runs the scripts on the test Slurm cluster from a build dir with a space" {
	[ "${HAVE_SLURM:-no}" = yes ] && [ "$(id -u)" -eq 0 ] || skip "needs Slurm (configure) and root"
	local s=/tmp/kunai-slurm-scripts-$$ t
	t=$s/camp
	export SLURM_LOCAL_PORT=$((${KUNAI_TEST_SLURM_PORT:-6925} + 12))
	SLURM_STATE=$s
	run "$BATS_TEST_DIRNAME/slurm/start" "$s"
	[ "$status" -eq 0 ] || { echo "slurm/start failed: $output"; false; }
	eval "$(printf '%s\n' "$output" | tail -n 1)"
	mkdir -p "$t/tests" "$t/hook/test"
	printf 'name = "local"\nscheduler = "slurm"\ninstall_path = "./install"\noutput_path = "./results"\ndefault_partition = "debug"\n[[partitions]]\nname = "debug"\n[global_env_vars]\nGREETING = "it'"'"'s ${KUNAI_UNSET_X:-here} `echo bq` $(echo sub) \\\\$(x)"\n' >"$t/system.toml"
	printf 'name = "bash"\ndescription = "b"\ntest_template_name = "BashCmd"\n[cmd_args]\ncmd = "echo \\"main $GREETING\\"; exit 3"\n' >"$t/tests/bash.toml"
	printf 'name = "probe"\ndescription = "p"\ntest_template_name = "Sleep"\n[cmd_args]\nseconds = 1\n' >"$t/hook/test/probe.toml"
	printf 'name = "probe"\n[[Tests]]\nid = "probe.1"\ntest_name = "probe"\n' >"$t/hook/probe.toml"
	printf 'name = "loc"\npre_test = "probe"\n[[Tests]]\nid = "b"\ntest_name = "bash"\ntime_limit = "00:02:00"\n' >"$t/scenario.toml"
	(cd "$t" && gen "out dir" system.toml tests scenario.toml hook) >/dev/null
	mkdir -p "$t/out dir/install"
	echo 'echo "node = \"$(hostname)\""' >"$t/out dir/install/slurm-metadata.sh"
	run bash -c 'cd "$1" && sbatch --wait cloudai_sbatch_script.sh' _ "$t/out dir/b/0"
	[ "$status" -eq 3 ]
	[ "$(cat "$t/out dir/b/0/stdout.txt")" = "main it's here bq sub \$(x)" ]
	grep -q ":node 0:rank 0." "$t/out dir/b/0/mapping-stdout.txt" || { cat "$t/out dir/b/0/"*.txt "$t/out dir/b/0/cloudai_sbatch_script.sh"; false; }
	ls "$t/out dir/b/0/metadata/"node-*.toml
	[ -f "$t/out dir/b/0/pre_test/probe/stdout.txt" ]
}
