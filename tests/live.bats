#!/usr/bin/env bats
# Live values (doc/manual.md, "Variables in values"): the environment values
# and container mounts of CloudAI's AI Dynamo test and UCC generator scenario
# (tests/cases/live/), run in a shell, give kunai's job what CloudAI's lines
# (tests/cases/live/cloudai.lines) give CloudAI's, with stand-in scontrol and
# srun on PATH: $(...), backquotes, ${...}, \$ and $PWD, the launch dir.
bats_require_minimum_version 1.5.0

setup() {
	CASE=$BATS_TEST_DIRNAME/cases/live
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/bin"
	# scontrol show hostname LIST: one host per line (gpu-[01-02] only)
	cat >"$T/bin/scontrol" <<-'S'
	#!/bin/sh
	[ "$1 $2" = "show hostname" ] && [ "$3" = "gpu-[01-02]" ] && printf 'gpu-01\ngpu-02\n'
	S
	# srun ...: each mount of --container-mounts= on a line of its own
	cat >"$T/bin/srun" <<-'S'
	#!/bin/sh
	for a; do
		case $a in --container-mounts=*) printf 'mount %s\n' "${a#--container-mounts=}" | sed 's/,/\nmount /g' ;; esac
	done
	S
	chmod +x "$T/bin/scontrol" "$T/bin/srun"
}

# values DIR RUN INSTALL LAUNCH LINES: runs LINES (export and srun lines) in
# bash from DIR, as a job of the test cluster, and prints each exported name
# with its value (in the order of LINES) and each mount.
values() {
	(
		cd "$1" || exit 1
		export PATH=$T/bin:$PATH SLURM_JOB_NODELIST='gpu-[01-02]' PYTHONPATH=/site
		RUN_DIR=$2 INSTALL_DIR=$3 BUILD_DIR=$(dirname "$(dirname "$2")") KUNAI_LAUNCH_DIR=$4
		RUN_DIR_Q=$(printf %q "$RUN_DIR")
		export KUNAI_LAUNCH_DIR
		while IFS= read -r l; do
			eval "$l" || exit 1
			case $l in export\ * | '[ '*' ] || export '*)
				n=${l#*export }
				n=${n%%=*}
				printf '%s=[%s]\n' "$n" "${!n}"
				;;
			esac
		done <<<"$5"
	)
}

@test "live values: kunai's job sees CloudAI's exported values and mounts, \$PWD the launch dir" {
	cp -R "$CASE" "$T/launch"
	(cd "$T/launch" && "$KUNAI" gen --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$T/out") >/dev/null
	local run n=0 cl kl
	for run in dynamo/0 Tests.alltoallv/0; do
		# CloudAI's lines of this run, its paths filled in
		cl=$(sed -n "/^\[${run//\//\\/}\]\$/,/^\[/p" "$CASE/cloudai.lines" | grep -E '^(export|srun) ' |
			sed -e "s|__RUN__|$T/out/$run|g" -e "s|__INSTALL__|$T/out/install|g")
		# kunai's: the same names' export lines, and its first srun line
		kl=$(grep -E "^export ($(printf '%s\n' "$cl" | sed -n 's/^export \([A-Z_]*\)=.*/\1/p' | paste -sd'|'))=" \
			"$T/out/$run/cloudai_sbatch_script.sh")
		[[ "$cl" != *srun* ]] || kl+=$'\n'$(grep -m1 '^srun ' "$T/out/$run/cloudai_sbatch_script.sh")
		# CloudAI's job runs in its launch dir, kunai's in the run dir
		values "$T/launch" "$T/out/$run" "$T/out/install" "$T/launch" "$cl" >"$T/cloudai.out"
		values "$T/out/$run" "$T/out/$run" "$T/out/install" "$T/launch" "$kl" >"$T/kunai.out"
		diff -u "$T/cloudai.out" "$T/kunai.out"
		n=$((n + $(wc -l <"$T/kunai.out")))
	done
	# the values are what the job needs: the node list, the launch dir's file
	values "$T/out/dynamo/0" "$T/out/dynamo/0" "$T/out/install" "$T/launch" \
		"$(grep -E '^export (DYNAMO_NODELIST|MASTER|LITERAL_DOLLAR|LAUNCH_CONF)=' "$T/out/dynamo/0/cloudai_sbatch_script.sh")" >"$T/d.out"
	diff -u - "$T/d.out" <<-E
	MASTER=[gpu-01]
	LITERAL_DOLLAR=[\$SLURM_JOB_NODELIST]
	DYNAMO_NODELIST=[gpu-01,gpu-02,]
	LAUNCH_CONF=[$T/launch/conf]
	E
	grep -qx "mount $T/launch/conf/common/test_scenario/ucc_generator_file.txt:/opt/hpcx/ucc/tools/perf/generator/input_matrices.txt" "$T/kunai.out"
	[ "$n" -eq 16 ]
}

@test "live values: env_vars.sh, sourced where the command runs, gives CloudAI's export K=\"V\" values" {
	cp -R "$CASE" "$T/launch"
	(cd "$T/launch" && "$KUNAI" gen --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$T/out") >/dev/null
	local run cl kl
	for run in dynamo/0 Tests.alltoallv/0; do
		# CloudAI writes f'export {key}="{value}"' there, for the same values
		cl=$(sed -n "/^\[${run//\//\\/}\]\$/,/^\[/p" "$CASE/cloudai.lines" | grep '^export ' |
			grep -v '^export SLURM_JOB_MASTER_NODE=' | sed 's/^export \([A-Z_]*\)=\(.*\)$/export \1="\2"/')
		# (a value that runs a command is guarded: computed here unless
		# the job script's batch shell has computed it)
		kl=$(grep -E "^(\[ [^]]* \] \|\| )?export ($(printf '%s\n' "$cl" | sed -n 's/^export \([A-Z_]*\)=.*/\1/p' | paste -sd'|'))=" \
			"$T/out/$run/env_vars.sh")
		# both in the same place: a container's working dir
		mkdir -p "$T/container"
		values "$T/container" "$T/out/$run" "$T/out/install" "$T/launch" "$cl" >"$T/cloudai.out"
		values "$T/container" "$T/out/$run" "$T/out/install" "$T/launch" "$kl" >"$T/kunai.out"
		diff -u "$T/cloudai.out" "$T/kunai.out"
		[ "$(wc -l <"$T/kunai.out")" -ge 3 ]
		[ "$run" != dynamo/0 ] || {
			grep -qx 'DYNAMO_NODELIST=\[gpu-01,gpu-02,\]' "$T/kunai.out"
			grep -qx "LAUNCH_CONF=\[$T/container/conf\]" "$T/kunai.out"
		}
	done
}

@test "live values: two checkouts write the same scripts; the launch dir is local.ninja's alone" {
	cp -R "$CASE" "$T/one"
	cp -R "$CASE" "$T/two"
	(cd "$T/one" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$T/o1") >/dev/null
	(cd "$T/two" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$T/o2") >/dev/null
	diff -r -x local.ninja -x kunai.json -x .kunai "$T/o1" "$T/o2"
	! grep -rq "$T/one" "$T/o1" --exclude=local.ninja --exclude=kunai.json --exclude-dir=.kunai
	grep -qx "launch_dir = $T/one" "$T/o1/local.ninja"
	grep -q -- '--launch-dir \$launch_dir$' "$BATS_TEST_DIRNAME/../rules/slurm.ninja"
}

@test "live values: a missing mount source under \$PWD is a located warning" {
	cp -R "$CASE" "$T/launch"
	rm "$T/launch/conf/common/test_scenario/ucc_generator_file.txt"
	run --separate-stderr bash -c 'cd "$1" && "$2" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$3"' _ "$T/launch" "$KUNAI" "$T/out"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"scenario.toml:21:3: warning: container mount source '\$PWD/conf/common/test_scenario/ucc_generator_file.txt' does not exist in the launch dir"* ]]
}

# job_in_containers RUN_DIR: runs RUN_DIR's job script as Slurm would on
# the test cluster: its batch shell has scontrol (the stand-in of setup),
# each srun step runs as in a container, where scontrol is not (a stand-in
# that fails as a missing command does) and mount targets are their
# sources. Only the main step (--output=.../node-%n-stdout.txt) runs; its
# output goes to RUN_DIR/node-0-stdout.txt.
job_in_containers() {
	local f n
	mkdir -p "$T/container-bin" "$T/batch-bin"
	printf '#!/bin/sh\necho "scontrol: command not found" >&2\nexit 127\n' >"$T/container-bin/scontrol"
	cat >"$T/batch-bin/srun" <<-'S'
	#!/bin/bash
	mounts= out=
	while [ $# -gt 0 ]; do
		case $1 in
		--container-mounts=*) mounts=${1#*=} ;;
		--output=*) out=${1#*=} ;;
		-*) ;;
		*) break ;;
		esac
		shift
	done
	[[ $out == */node-%n-stdout.txt ]] || exit 0
	words=()
	for w; do
		IFS=, read -ra ms <<<"$mounts"
		for m in "${ms[@]}"; do
			[[ $m == *:* ]] && w=${w//"${m#*:}"/"${m%%:*}"}
		done
		words+=("$w")
	done
	PATH=$CONTAINER_PATH "${words[@]}" >"${out//%n/0}"
	S
	for f in curl squeue scancel sleep; do printf '#!/bin/sh\nexit 0\n' >"$T/batch-bin/$f"; done
	# scontrol show hostname A,B,...: one host per line
	printf '#!/bin/sh\n[ "$1 $2" = "show hostname" ] && echo "$3" | tr , "\\n"\n' >"$T/batch-bin/scontrol"
	chmod +x "$T"/container-bin/* "$T"/batch-bin/*
	(
		cd "$1" || exit 1
		# the job's nodes: its -N, or its --nodelist
		n=$(sed -n 's/^#SBATCH -N //p' cloudai_sbatch_script.sh)
		SLURM_JOB_NODELIST=$(sed -n 's/^#SBATCH --nodelist=//p' cloudai_sbatch_script.sh)
		[ -n "$SLURM_JOB_NODELIST" ] || SLURM_JOB_NODELIST=$(seq -f gpu-%02g -s , "$n")
		export SLURM_SUBMIT_DIR=$1 SLURM_JOB_NODELIST SLURM_JOB_ID=1
		export CONTAINER_PATH=$T/container-bin:$PATH PATH=$T/batch-bin:$PATH
		# its own exit status is the success check's (no markers here)
		bash cloudai_sbatch_script.sh >/dev/null 2>&1 || true
	)
}

# ai_dynamo.sh's stand-in in INSTALL_DIR: prints the node list it gets.
dynamo_standin() {
	mkdir -p "$1"
	printf '#!/bin/bash\nprintf "DYNAMO_NODELIST=[%%s]\\n" "$DYNAMO_NODELIST"\n' >"$1/ai_dynamo.sh"
}

@test "live values: AI Dynamo's worker gets the node list its batch shell computed, not one from the container" {
	cp -R "$CASE" "$T/launch"
	(cd "$T/launch" && "$KUNAI" gen --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$T/out") >/dev/null
	dynamo_standin "$T/out/install"
	job_in_containers "$T/out/dynamo/0"
	# what CloudAI's worker sees: the batch shell's export
	diff -u - "$T/out/dynamo/0/node-0-stdout.txt" <<<'DYNAMO_NODELIST=[gpu-01,gpu-02,]'
	# env_vars.sh still computes it where no job script did (a hook, by hand)
	grep -qx "\[ \"\${KUNAI_ENV_RUN-}\" = dynamo/0 \] || export DYNAMO_NODELIST=\"\$(scontrol show hostname \$SLURM_JOB_NODELIST | tr -s '\\\\n' ',')\"" \
		"$T/out/dynamo/0/env_vars.sh"
	grep -qx 'export KUNAI_ENV_RUN=dynamo/0' "$T/out/dynamo/0/cloudai_sbatch_script.sh"
}

@test "live values: CloudAI's AI Dynamo scripts on Slurm give each worker the full node list (CLOUDAI_CONF)" {
	[ -d "${CLOUDAI_CONF:-}/experimental/ai_dynamo" ] ||
		skip "CLOUDAI_CONF (a copy of CloudAI's conf/) is not set"
	local s n=0 f
	for s in "$CLOUDAI_CONF"/experimental/ai_dynamo/test_scenario/*.toml; do
		[[ $s != *k8s* ]] || continue
		rm -rf "$T/out"
		"$KUNAI" gen --system-config "$CLOUDAI_CONF/common/system/example_slurm_cluster.toml" \
			--tests-dir "$CLOUDAI_CONF/experimental/ai_dynamo/test" --test-scenario "$s" -o "$T/out" 2>/dev/null
		for f in "$T"/out/*/*/cloudai_sbatch_script.sh; do
			dynamo_standin "$T/out/install_dir"
			job_in_containers "$(dirname "$f")"
			# every node of its allocation, as CloudAI's batch shell lists them
			diff -u - "$(dirname "$f")/node-0-stdout.txt" <<<"DYNAMO_NODELIST=[$(seq -f gpu-%02g -s , \
				"$(sed -n 's/^#SBATCH -N //p' "$f")"),]"
			n=$((n + 1))
		done
	done
	echo "$n scripts"
	[ "$n" -eq 8 ]
}
