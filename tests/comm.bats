#!/usr/bin/env bats
# CloudAI's communication templates DeepEP and MoEBenchmark, and the DeepEP
# matrix that MoEBenchmark's run hands to NcclTest/UCCTest (use_deepep_matrix).
#
# tests/cases/comm/NAME/ holds a case of kunai's own (inputs on
# tests/cases/comm/system.toml) and expected/, the scripts of its runs;
# UPDATE=1 rewrites them for review with git diff.
#
# Against CloudAI's reference scripts (CLOUDAI_REF_DATA, e.g. a copy of its
# tests/ref_data; skipped, named, when unset) the comparison is the one of
# scripts.bats (its differences 1-6 hold), plus these intended differences:
#  C1. DeepEP's head node: CloudAI's lines that find it (nodes=, head_node=,
#      echo) are kunai's own; only their exports are compared.
#  C2. MoEBenchmark's config.yaml: CloudAI writes it when it generates;
#      kunai's script writes it when the job starts (a here-document), from
#      the same settings in the same order. Not compared.
#  C3. (none now) $LD_LIBRARY_PATH and $CPATH in a backend's variables:
#      the batch shell expands them in both (the host's values); compared
#      with values of their own, so an escaped one differs.
#  N1. NIXL: CloudAI exports SLURM_JOB_MASTER_NODE twice; kunai once.
#      CloudAI's reference mixes __OUTPUT_DIR__/install and __INSTALL_DIR__
#      for one install dir; mapped to the latter. Its mapping and metadata
#      sruns run outside the container (as CloudAI's do); kunai's NIXL
#      variables are exported before the test's own (CloudAI's after).
#  N2. wait_etcd_for: kunai waits that long for etcd; CloudAI waits 60 s
#      whatever it says.
#  C5. Blanks inside a word (bash -c "..."): CloudAI's joins leave double
#      and trailing ones; squeezed here on both sides.
#  C4. The etcd lifecycle: CloudAI's wait and stop exit the job when etcd
#      does not come up or go down; kunai's stop only warns, so the job's
#      status stays the benchmark's. The etcd srun line is compared.
bats_require_minimum_version 1.5.0
load helpers

CASES=$BATS_TEST_DIRNAME/cases/comm

# gen_case NAME OUT: kunai gen of case NAME into OUT.
gen_case() {
	"$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$CASES/$1/tests" \
		--test-scenario "$CASES/$1/scenario.toml" -o "$2"
}

@test "tests/cases/comm: each case's scripts are the expected ones" {
	local d name t f n=0
	for d in "$CASES"/*/; do
		name=$(basename "$d")
		t=$BATS_TEST_TMPDIR/$name
		run gen_case "$name" "$t"
		[ "$status" -eq 0 ] || { echo "$name: $output"; return 1; }
		if [ -n "${UPDATE:-}" ]; then
			rm -rf "$d/expected"
			(cd "$t" && find . -name cloudai_sbatch_script.sh) | while read -r f; do
				mkdir -p "$d/expected/$(dirname "$f")"
				cp "$t/$f" "$d/expected/$f"
			done
		fi
		for f in $(cd "$d/expected" && find . -type f | sort); do
			diff -u "$d/expected/$f" "$t/$f"
			bash -n "$t/$f"
			n=$((n + 1))
		done
	done
	[ "$n" -ge 5 ]
}

@test "use_deepep_matrix: the NCCL and UCC runs read the MoE run's matrix files, edges in the graph" {
	local t=$BATS_TEST_TMPDIR/b
	gen_case moe_chain "$t"
	cd "$t"
	# the MoE run makes the matrices; each reader names its own as an input
	ninja -t query moe/0/nccl_matrix.txt | grep -q 'input: run'
	ninja -t query nccl/0/kunai.stamp | grep -qx '    | moe/0/nccl_matrix.txt'
	ninja -t query ucc/0/kunai.stamp | grep -qx '    | moe/0/ucc_matrix.txt'
	ninja -t graph nccl/0/kunai.stamp | grep -q '"moe/0/nccl_matrix.txt"'
	# mounted where CloudAI mounts them, the variable set for alltoallv_perf
	grep -q '\$BUILD_DIR/moe/0/nccl_matrix.txt:/tmp/matrix.txt,\$BUILD_DIR/moe/0:/cloudai_moe_benchmark_prev:ro' \
		nccl/0/cloudai_sbatch_script.sh
	grep -qx 'export ALLTOALLV_MATRIX_FILE=/tmp/matrix.txt' nccl/0/cloudai_sbatch_script.sh
	grep -q -- '--gen file:name=/opt/hpcx/ucc/tools/perf/generator/input_matrices.txt' ucc/0/cloudai_sbatch_script.sh
	# no matrix is a path with the build dir in it
	! grep -rq "$t" nccl/0 ucc/0 moe/0
}

@test "MoEBenchmark: the batch shell expands \$LD_LIBRARY_PATH and \$CPATH of a backend's variables, as CloudAI's" {
	local t=$BATS_TEST_TMPDIR/b line
	gen_case moe_chain "$t"
	line=$(grep '^srun .*benchmark.py' "$t/moe/0/cloudai_sbatch_script.sh")
	# the words srun gets from the batch shell, the host's values in them
	(
		srun() { printf '%s\n' "$@"; }
		RUN_DIR=$t/moe/0 RUN_DIR_Q=$t/moe/0 INSTALL_DIR=/i LD_LIBRARY_PATH=/host/lib CPATH=/host/include
		eval "$line"
	) >"$t/words"
	grep -q ' LD_LIBRARY_PATH=/opt/nccl-ep-build/lib:/host/lib python ' "$t/words"
	grep -q ' CPATH=/usr/local/ucx-nixl/include:/usr/local/nixl/include:/usr/local/nixl/include/gpu/ucx:/host/include ' "$t/words"
	grep -q ' CPLUS_INCLUDE_PATH=[^ ]*:/host/include python ' "$t/words"
	! grep -q '\$' "$t/words"
}

@test "use_deepep_matrix: the MoE run leaves its newest nested matrix at the top of its dir" {
	local t=$BATS_TEST_TMPDIR/b r
	gen_case moe_chain "$t"
	r=$t/moe/0
	mkdir -p "$r/results/benchmark_16_ranks_x_standard"
	echo old >"$r/results/benchmark_16_ranks_x_standard/nccl_matrix.txt"
	echo ucc >"$r/results/benchmark_16_ranks_x_standard/ucc_matrix.txt"
	# the script's lines after the test srun, the test's status 3
	sed -n '/^KUNAI_TEST_RC=/,/^(exit/p' "$r/cloudai_sbatch_script.sh" | grep -v etcd >"$t/tail.sh"
	run bash -c "RUN_DIR='$r'; false || (exit 3); $(cat "$t/tail.sh")"
	[ "$status" -eq 3 ]
	[ "$(cat "$r/nccl_matrix.txt")" = old ]
	[ "$(cat "$r/ucc_matrix.txt")" = ucc ]
}

@test "use_deepep_matrix: UCCTest with its own gen needs no MoE run; NcclTest does, a located error" {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	printf 'name = "u"\ndescription = "u"\ntest_template_name = "UCCTest"\n[cmd_args]\ndocker_image_url = "x"\ncollective = "alltoallv"\ngen = "matrix:kind=random"\nuse_deepep_matrix = true\n' \
		>"$t/tests/u.toml"
	printf 'name = "s"\n[[Tests]]\nid = "u"\ntest_name = "u"\n' >"$t/scenario.toml"
	run "$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/o"
	[ "$status" -eq 0 ]
	grep -q -- "--gen matrix:kind=random -m cuda" "$t/o/u/0/cloudai_sbatch_script.sh"
	! grep -q cloudai_moe_benchmark_prev "$t/o/u/0/cloudai_sbatch_script.sh"
	# a DeepEP case in the chain serves as well as a MoE one
	printf 'name = "d"\ndescription = "d"\ntest_template_name = "DeepEP"\n[cmd_args]\ndocker_image_url = "x"\n' >"$t/tests/d.toml"
	printf 'name = "n"\ndescription = "n"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "alltoallv_perf_mpi"\nuse_deepep_matrix = true\n' \
		>"$t/tests/n.toml"
	printf 'name = "s"\n[[Tests]]\nid = "n"\ntest_name = "n"\n' >"$t/scenario.toml"
	run "$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/o2"
	[ "$status" -eq 1 ]
	[[ "$output" == *"n.toml:6:21: error: use_deepep_matrix = true needs a MoEBenchmark or DeepEP test before 'n'"* ]]
	[ ! -e "$t/o2" ]
	printf 'name = "s"\n[[Tests]]\nid = "d"\ntest_name = "d"\n[[Tests]]\nid = "n"\ntest_name = "n"\n  [[Tests.dependencies]]\n  type = "start_post_comp"\n  id = "d"\n' \
		>"$t/scenario.toml"
	run "$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" -o "$t/o3"
	[ "$status" -eq 0 ]
	grep -q '\$BUILD_DIR/d/0/nccl_matrix.txt:/tmp/traffic_matrix.txt' "$t/o3/n/0/cloudai_sbatch_script.sh"
}

@test "DeepEP and MoEBenchmark: bad cmd_args are located errors" {
	local t=$BATS_TEST_TMPDIR
	mkdir -p "$t/tests"
	cat >"$t/tests/d.toml" <<-'T'
		name = "d"
		description = "d"
		test_template_name = "DeepEP"
		[cmd_args]
		subtest_name = "test_other"
		num_tokens = "many"
	T
	cat >"$t/tests/m.toml" <<-'T'
		name = "m"
		description = "m"
		test_template_name = "MoEBenchmark"
		[cmd_args]
		docker_image_url = "x"
		mode = "fast"
		deepep_versions = "legacy"
		data_type = "fp16"
	T
	printf 'name = "s"\n[[Tests]]\nid = "d"\ntest_name = "d"\n[[Tests]]\nid = "m"\ntest_name = "m"\n' >"$t/scenario.toml"
	run --separate-stderr "$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" \
		--test-scenario "$t/scenario.toml" -o "$t/o"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"d.toml:5:16: error: 'subtest_name' must be one of test_internode, test_intranode, test_low_latency, test_ep"* ]]
	[[ "$stderr" == *"d.toml:6:14: error: 'num_tokens' must be an integer"* ]]
	[[ "$stderr" == *"d.toml:"*"missing required key 'docker_image_url' in cmd_args"* ]]
	[[ "$stderr" == *"m.toml:6:8: error: 'mode' must be one of standard, low_latency"* ]]
	[[ "$stderr" == *"m.toml:7:19: error: 'deepep_versions' must be a list"* ]]
	[[ "$stderr" == *"m.toml:8:13: error: 'data_type' must be one of bfloat16, fp8"* ]]
}

# ref_words RUN INSTALL LINE: the words of LINE as scripts.bats makes them,
# with the batch host's $LD_LIBRARY_PATH and $CPATH (C3).
ref_words() {
	(
		RUN_DIR=$1 INSTALL_DIR=$2 BUILD_DIR=/build
		RUN_DIR_Q=$(printf %q "$RUN_DIR")
		LD_LIBRARY_PATH=/host/lib CPATH=/host/include
		NIXL_ETCD_ENDPOINTS='$NIXL_ETCD_ENDPOINTS'
		unset SLURM_JOB_MASTER_NODE head_node_ip
		scontrol() { :; }
		uuidgen() { echo UUID; }
		eval "set -- $3"
		for w in "$@"; do
			while [[ $w == *"  "* ]]; do w=${w//  / }; done
			printf '[%s]' "${w% }"
		done
	)
}

# ref_lines FILE RUN INSTALL: its #SBATCH (no job name or --output/--error
# paths), export and srun lines, as words.
ref_lines() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'#SBATCH --job-name='* | '#SBATCH --output='* | '#SBATCH --error='*) ;;
		'#SBATCH '*) printf '%s\n' "$line" ;;
		export\ * | srun\ *)
			# a background srun (etcd) is compared as its words
			[[ "$line" =~ ^(.*[^ ])\ +\&$ ]] && line="${BASH_REMATCH[1]} __BACKGROUND__"
			ref_words "$2" "$3" "$line"
			printf '\n'
			;;
		esac
	done <"$1"
}

# ref_compare NAME TEST_TOML INSTALL [SED [NODES]]: kunai's script of
# TEST_TOML on NODES (2) nodes of CloudAI's test system against ref_data/NAME.sbatch (INSTALL:
# its install dir; SED: maps its image URL to kunai's cached image).
ref_compare() {
	local name=$1 t=$BATS_TEST_TMPDIR install=$3
	local sed=${4:-"s|--container-image=docker/image:url|--container-image=$install/docker__image__url.sqsh|"}
	[ -n "${CLOUDAI_REF_DATA:-}" ] || skip "CLOUDAI_REF_DATA is unset (CloudAI's tests/ref_data)"
	[ -f "$CLOUDAI_REF_DATA/$name.sbatch" ] || skip "no $name.sbatch in $CLOUDAI_REF_DATA"
	[ -f "$SHARED/cloudai-compat/golden/system.toml" ] || skip "CloudAI's test system is absent ($SHARED)"
	mkdir -p "$t/tests"
	printf '%s\n' "$2" >"$t/tests/t.toml"
	printf 'name = "ref"\n[[Tests]]\nid = "t"\ntest_name = "t"\nnum_nodes = %s\n' "${5:-2}" >"$t/scenario.toml"
	"$KUNAI" gen --system-config "$SHARED/cloudai-compat/golden/system.toml" --tests-dir "$t/tests" \
		--test-scenario "$t/scenario.toml" -o "$t/out"
	# an export CloudAI repeats (N1) counts once
	sed "$sed" "$CLOUDAI_REF_DATA/$name.sbatch" >"$t/ref.sbatch"
	ref_lines "$t/ref.sbatch" __OUTPUT_DIR__/output "$install" | awk '!/^\[export\]/ || !seen[$0]++' \
		>"$t/cloudai.lines"
	ref_lines "$t/out/t/0/cloudai_sbatch_script.sh" __OUTPUT_DIR__/output "$install" >"$t/kunai.lines"
	diff -u "$t/cloudai.lines" "$t/kunai.lines"
}

@test "DeepEP against CloudAI's ref_data/deepep-benchmark.sbatch" {
	ref_compare deepep-benchmark 'name = "t"
description = "t"
test_template_name = "DeepEP"
[cmd_args]
docker_image_url = "docker/image:url"
subtest_name = "test_internode"' __OUTPUT_DIR__/install
}

@test "MoEBenchmark against CloudAI's ref_data/moe-benchmark.sbatch" {
	ref_compare moe-benchmark 'name = "t"
description = "t"
test_template_name = "MoEBenchmark"
[cmd_args]
docker_image_url = "docker/image:url"
deepep_versions = ["legacy", "elastic", "nixl_ep", "uccl_ep", "nccl_ep", "deepep_hybrid"]' __INSTALL_DIR__
}

@test "NIXLBench against CloudAI's ref_data/nixl_bench.sbatch" {
	ref_compare nixl_bench 'name = "t"
description = "t"
test_template_name = "NIXLBench"
[cmd_args]
docker_image_url = "url.com/docker:2"
path_to_benchmark = "./nixlbench"
backend = "UCX"' __INSTALL_DIR__ 's|--container-image=url.com/docker:2|--container-image=__INSTALL_DIR__/url.com__docker__2.sqsh|; s|__OUTPUT_DIR__/install|__INSTALL_DIR__|g'
}

@test "NixlPerftest against CloudAI's ref_data/nixl-perftest.sbatch" {
	ref_compare nixl-perftest 'name = "t"
description = "t"
test_template_name = "NixlPerftest"
[cmd_args]
docker_image_url = "url.com/docker:tag"
subtest = "sequential-ct-perftest"
num_user_requests = 2
batch_size = 1
num_prefill_nodes = 1
num_decode_nodes = 1
model = "model-name"' __OUTPUT_DIR__/install 's|--container-image=url.com/docker:tag|--container-image=__OUTPUT_DIR__/install/url.com__docker__tag.sqsh|' 1
}

@test "NIXLKVBench against CloudAI's ref_data/nixl-kvbench.sbatch" {
	ref_compare nixl-kvbench 'name = "t"
description = "t"
test_template_name = "NIXLKVBench"
[cmd_args]
docker_image_url = "url.com/docker:tag"
backend = "UCX"
kvbench_script = "path/to/kvbench_script.sh"
python_executable = "path/to/python"' __OUTPUT_DIR__/install 's|--container-image=url.com/docker:tag|--container-image=__OUTPUT_DIR__/install/url.com__docker__tag.sqsh|'
}

# ep_lines FILE RUN INSTALL: the lines of a NIXL EP launcher; srun lines as
# their words (ref_words), the others as text with the run dir's files
# named as CloudAI's absolute paths, quoted or not (E1), kunai's comment
# lines left out.
ep_lines() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'# kunai:'* | '# BUILD_DIR'*) ;;
		srun\ *)
			[[ "$line" =~ ^(.*[^ ])\ +\&$ ]] && line="${BASH_REMATCH[1]} __BACKGROUND__"
			ref_words "$2" "$3" "$line"
			printf '\n'
			;;
		*) printf '%s\n' "$line" | sed -e 's|"\$RUN_DIR/\([^"]*\)"|'"$2"'/\1|g' -e 's|"'"$2"'/\([^"]*\)"|'"$2"'/\1|g' ;;
		esac
	done <"$1"
}

#  E1. NixlEP: CloudAI writes nixl-ep-plan.json and nixl-ep-launch.sh when it
#      generates, with absolute paths; kunai's batch script writes them (here
#      documents) when the job starts and passes the launcher RUN_DIR,
#      RUN_DIR_Q, BUILD_DIR and INSTALL_DIR, so its paths are "$RUN_DIR/...".
#      The launcher is compared line by line (srun lines as words).
@test "NixlEP against CloudAI's ref_data/nixl-ep.sbatch and nixl-ep-launch.sh" {
	local t=$BATS_TEST_TMPDIR sed='s|--container-image=docker.io/nvidia/nixl-ep:latest|--container-image=__INSTALL_DIR__/docker.io_nvidia__nixl-ep__latest.sqsh|'
	[ -n "${CLOUDAI_REF_DATA:-}" ] || skip "CLOUDAI_REF_DATA is unset (CloudAI's tests/ref_data)"
	[ -f "$CLOUDAI_REF_DATA/nixl-ep.sbatch" ] || skip "no nixl-ep.sbatch in $CLOUDAI_REF_DATA"
	[ -f "$CLOUDAI_REF_DATA/nixl-ep-launch.sh" ] || skip "no nixl-ep-launch.sh in $CLOUDAI_REF_DATA"
	[ -f "$SHARED/cloudai-compat/golden/system.toml" ] || skip "CloudAI's test system is absent ($SHARED)"
	mkdir -p "$t/tests"
	cat >"$t/tests/t.toml" <<-'T'
		name = "t"
		description = "t"
		test_template_name = "NixlEP"
		[cmd_args]
		docker_image_url = "docker.io/nvidia/nixl-ep:latest"
		elastic_script = "/workspace/nixl/examples/device/ep/tests/elastic/elastic.py"
		plan = "[[0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 4, -6, 7], [0, 1, 2, 3, 4, 5, 6, 7]]"
		num_processes_per_node = 4
		service_startup_timeout_seconds = 90
		store_port = 9999
		num_tokens = 256
		num_experts_per_rank = 4
		hidden_dim = 8192
		num_topk = 6
		disable_ll_nvlink = true
		kineto = true
		[extra_env_vars]
		LD_LIBRARY_PATH = "/workspace/rdma_core/lib:$LD_LIBRARY_PATH"
	T
	printf 'name = "ref"\n[[Tests]]\nid = "t"\ntest_name = "t"\nnum_nodes = 3\n' >"$t/scenario.toml"
	"$KUNAI" gen --system-config "$SHARED/cloudai-compat/golden/system.toml" --tests-dir "$t/tests" \
		--test-scenario "$t/scenario.toml" -o "$t/out"
	local s=$t/out/t/0/cloudai_sbatch_script.sh
	# the batch script, without the here documents (E1)
	sed "$sed" "$CLOUDAI_REF_DATA/nixl-ep.sbatch" >"$t/ref.sbatch"
	ref_lines "$t/ref.sbatch" __OUTPUT_DIR__/output __INSTALL_DIR__ >"$t/cloudai.lines"
	sed "/<<'KUNAI_NIXL_EP_PLAN'/,/^KUNAI_NIXL_EP_PLAN\$/d; /<<'KUNAI_NIXL_EP_LAUNCH'/,/^KUNAI_NIXL_EP_LAUNCH\$/d" "$s" >"$t/kunai.sbatch"
	ref_lines "$t/kunai.sbatch" __OUTPUT_DIR__/output __INSTALL_DIR__ >"$t/kunai.lines"
	diff -u "$t/cloudai.lines" "$t/kunai.lines"
	grep -qx 'RUN_DIR=$RUN_DIR RUN_DIR_Q=$RUN_DIR_Q BUILD_DIR=$BUILD_DIR INSTALL_DIR=$INSTALL_DIR bash "$RUN_DIR/nixl-ep-launch.sh"' "$s"
	# the launcher, line by line
	sed -n "/<<'KUNAI_NIXL_EP_LAUNCH'/,/^KUNAI_NIXL_EP_LAUNCH\$/p" "$s" | sed '1d;$d' >"$t/launch.sh"
	sed "$sed" "$CLOUDAI_REF_DATA/nixl-ep-launch.sh" >"$t/ref.launch"
	ep_lines "$t/ref.launch" __OUTPUT_DIR__/output __INSTALL_DIR__ >"$t/cloudai.launch"
	ep_lines "$t/launch.sh" __OUTPUT_DIR__/output __INSTALL_DIR__ >"$t/kunai.launch"
	diff -u "$t/cloudai.launch" "$t/kunai.launch"
	[ "$(wc -l <"$t/kunai.launch")" -gt 100 ]
	# the plan as json.dumps(plan, indent=2) writes it
	sed -n "/<<'KUNAI_NIXL_EP_PLAN'/,/^KUNAI_NIXL_EP_PLAN\$/p" "$s" | sed '1d;$d' >"$t/plan.json"
	[ "$(head -3 "$t/plan.json" | tr -d '\n')" = '[  [    0,' ]
	[ "$(grep -c '^  \[$' "$t/plan.json")" -eq 4 ]
	grep -qx '    -6,' "$t/plan.json"
}

@test "NixlEP: bad plans and placements are located errors" {
	local t=$BATS_TEST_TMPDIR p
	mkdir -p "$t/tests"
	ep() { # ep ID PLAN NPPN [MORE]
		printf 'name = "%s"\ndescription = "d"\ntest_template_name = "NixlEP"\n[cmd_args]\ndocker_image_url = "x"\nplan = %s\nnum_processes_per_node = %s\n%s' \
			"$1" "$2" "$3" "${4:-}" >"$t/tests/$1.toml"
		printf '[[Tests]]\nid = "%s"\ntest_name = "%s"\nnum_nodes = 2\n' "$1" "$1" >>"$t/scenario.toml"
	}
	printf 'name = "s"\n' >"$t/scenario.toml"
	ep json "'[[0, 1]'" 2
	ep empty "'  '" 2
	ep flat "'[0, 1]'" 2
	ep nophase "'[]'" 2
	ep float "'[[0, 1.0]]'" 2
	ep sweep "['[[0, 1]]', '[[]]']" 1
	ep big "'[[0, 1, 2, 3, 4]]'" 2
	ep neg "'[[-1]]'" 1
	ep port "'[[0]]'" 1 'store_port = 70000'
	ep nppn "'[[0]]'" 0
	ep many "'[[$(seq -s, 0 16384)]]'" 9
	run --separate-stderr "$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" \
		--test-scenario "$t/scenario.toml" -o "$t/o"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"json.toml:6:1: error: plan must be valid JSON"* ]]
	[[ "$stderr" == *"empty.toml:6:1: error: plan must not be empty."* ]]
	[[ "$stderr" == *"flat.toml:6:1: error: Each plan phase must be a non-empty list of ranks."* ]]
	[[ "$stderr" == *"nophase.toml:6:1: error: plan must decode to a non-empty list of phases."* ]]
	[[ "$stderr" == *"float.toml:6:1: error: Each plan rank must be an integer."* ]]
	[[ "$stderr" == *"sweep.toml:6:"*"Each plan phase must be a non-empty list of ranks."* ]]
	[[ "$stderr" == *"scenario.toml:"*"The plan requires 5 total workers, but 2 nodes with capacity 2 only provide 4. (test 'big')"* ]]
	[[ "$stderr" == *"scenario.toml:"*"NIXL EP plan does not launch any non-negative ranks. (test 'neg')"* ]]
	[[ "$stderr" == *"port.toml:8:1: error: 'store_port' must lie within 1..65535"* ]]
	[[ "$stderr" == *"nppn.toml:7:1: error: 'num_processes_per_node' must be at least 1"* ]]
	[[ "$stderr" == *"many.toml:6:1: error: a plan holds at most 16384 ranks in all (kunai's bound)"* ]]
	[ ! -e "$t/o" ]
}

# ep_stubs DIR: srun (runs the command, stdout and stderr appended to its
# --output, truncated first unless --open-mode=append; `hostname` prints
# 127.0.0.1), scontrol, and elastic, a stand-in for python + elastic.py:
# the first launch (no --tcp-server) prints a summary, ends phase 0, waits
# for rank 2's summary in its log and ends phase 1; a later one prints rank
# 2's summary. FAIL=1: the first launch dies at once.
ep_stubs() {
	mkdir -p "$1"
	cat >"$1/srun" <<-'S'
	#!/bin/bash
	out=/dev/null append=
	while [ $# -gt 0 ]; do
		case $1 in
		--output=*) out=${1#--output=} ;;
		--open-mode=append) append=1 ;;
		-*) ;;
		*) break ;;
		esac
		shift
	done
	[ "$1" = hostname ] && set -- echo 127.0.0.1
	[ -n "$append" ] || : >"$out"
	exec "$@" >>"$out" 2>&1
	S
	printf '#!/bin/sh\necho node1\n' >"$1/scontrol"
	cat >"$1/elastic" <<-'S'
	#!/bin/bash
	case " $* " in
	*" --tcp-server 127.0.0.1 "*)
		echo "[rank 2] Dispatch + combine bandwidth: 30 GB/s, avg_t=3 us, min_t=2 us, max_t=4 us"
		exit 0 ;;
	esac
	[ "${FAIL:-0}" = 1 ] && exit 1
	echo "[rank 0] Dispatch + combine bandwidth: 10 GB/s, avg_t=5 us, min_t=4 us, max_t=6 us"
	echo "-> end phase 0"
	for i in $(seq 100); do grep -q 'rank 2' nixl-ep-node-0.log && break; sleep 0.1; done
	echo "-> end phase 1"
	S
	chmod +x "$1"/*
}

@test "NixlEP: the launcher runs the phases in order; a first launch that dies fails the job" {
	local t=$BATS_TEST_TMPDIR r
	ep_stubs "$t/bin"
	mkdir -p "$t/tests"
	printf 'name = "ep"\ndescription = "d"\ntest_template_name = "NixlEP"\n[cmd_args]\ndocker_image_url = "x"\npython_executable = "elastic"\nplan = "[[0, 1], [0, 1, 2, 3]]"\nnum_processes_per_node = 4\n' \
		>"$t/tests/ep.toml"
	printf 'name = "s"\n[[Tests]]\nid = "ep"\ntest_name = "ep"\nnum_nodes = 1\n' >"$t/scenario.toml"
	"$KUNAI" gen --system-config "$CASES/system.toml" --tests-dir "$t/tests" --test-scenario "$t/scenario.toml" \
		-o "$t/o" >/dev/null
	r=$t/o/ep/0
	(cd "$r" && PATH=$t/bin:$PATH SLURM_JOB_ID=7 SLURM_JOB_NODELIST=node1 timeout 60 bash cloudai_sbatch_script.sh >out.txt 2>&1)
	[ "$(head -n 1 "$r/kunai.exit")" = 0 ]
	[ "$(sed -n 2,3p "$r/kunai.exit" | paste -sd,)" = job=7,nodes=node1 ]
	grep -q 'Detected completion of phase 0' "$r/out.txt"
	grep -q 'All NIXL EP launches completed successfully' "$r/out.txt"
	[ "$(grep -c '^-> end phase' "$r/nixl-ep-node-0.log")" -eq 2 ]
	grep -q 'rank 2' "$r/nixl-ep-node-0.log"
	[ "$(tr -d ' \n' <"$r/nixl-ep-plan.json")" = '[[0,1],[0,1,2,3]]' ]
	[ -x "$r/nixl-ep-launch.sh" ]
	! (cd "$r" && FAIL=1 PATH=$t/bin:$PATH SLURM_JOB_ID=7 SLURM_JOB_NODELIST=node1 timeout 60 bash cloudai_sbatch_script.sh >out.txt 2>&1)
	[ "$(head -n 1 "$r/kunai.exit")" = 1 ]
	grep -q 'Primary NIXL EP launch exited before phase 0 completed' "$r/out.txt"
	grep -q 'kunai: no NIXL EP bandwidth summary in nixl-ep-node-0.log' "$r/out.txt"
}

# passed_job DIR: a passed job.json as the runner writes it, and its stamp
passed_job() {
	mkdir -p "$1"
	printf '{"dir": "x", "scheduler": "slurm", "workload": null, "job_id": "7", "state": "EXITED",
 "exit_code": 0, "signal": null, "outcome": "passed", "reason": null, "nodes": "n1,n2", "attempt": 1}\n' >"$1/job.json"
	touch "$1/kunai.stamp"
}

@test "kunai grade: MoEBenchmark's and NixlPerftest's results files in the run dir" {
	local Q=$BATS_TEST_DIRNAME/jsonquery B=$BATS_TEST_TMPDIR/b
	gen_case moe_chain "$B"
	passed_job "$B/moe/0"
	echo 'Bus BW (GB/s): 120.5' >"$B/moe/0/stdout.txt"
	(cd "$B" && "$KUNAI" grade moe/0/report.json)
	[ "$("$Q" "$B/moe/0/report.json" outcome)" = failed ]
	[[ "$("$Q" "$B/moe/0/report.json" reason)" == "MoEBenchmark: no results.json in "* ]]
	mkdir -p "$B/moe/0/results/benchmark_16_ranks_20260101_standard"
	echo '[{"backend": "legacy", "operation": "dispatch", "bus_bw_avg": 120.5, "separate_rdma_bw": 40}]' \
		>"$B/moe/0/results/benchmark_16_ranks_20260101_standard/results.json"
	(cd "$B" && "$KUNAI" grade moe/0/report.json)
	[ "$("$Q" "$B/moe/0/report.json" outcome)" = passed ]
	[ "$("$Q" "$B/moe/0/report.json" metrics.legacy_dispatch_bus_bw)" = 120.5 ]
	[ "$("$Q" "$B/moe/0/report.json" metrics.legacy_dispatch_rdma_bw)" = 40 ]

	B=$BATS_TEST_TMPDIR/p
	gen_case nixl_perftest "$B"
	passed_job "$B/pt/0"
	: >"$B/pt/0/stdout.txt"
	echo '{"iterations_results": [[{"size": 2, "latency": 10, "isolated_latency": 9, "mean_bw": 40}]]}' \
		>"$B/pt/0/results.json"
	(cd "$B" && "$KUNAI" grade pt/0/report.json)
	[ "$("$Q" "$B/pt/0/report.json" outcome)" = passed ]
	[ "$("$Q" "$B/pt/0/report.json" metrics.default)" = 40 ]
	printf '{"iterations_results": 3}' >"$B/pt/0/results.json"
	(cd "$B" && "$KUNAI" grade pt/0/report.json)
	[ "$("$Q" "$B/pt/0/report.json" outcome)" = failed ]
	[[ "$("$Q" "$B/pt/0/report.json" reason)" == "NixlPerftest: results.json is not an object"* ]]
}
