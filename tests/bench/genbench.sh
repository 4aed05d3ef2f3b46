#!/bin/sh
# genbench: `kunai gen` on synthetic campaigns of several shapes, and the
# no-op `ninja run` of what it wrote against an independent bare graph.
#
# Shapes (SIZES sets the runs of the first one; the others are fixed):
#   tests-x100  N/100 tests x 100 iterations (N = each of SIZES)
#   tests       10,000 tests x 1 iteration
#   sweep       one test sweeping 10,000 values
#   chain       100 tests x 100 iterations, each start_post_comp on the one before
#   star        1 + 99 tests x 100 iterations, all start_post_comp on the first
# Per shape: the first gen into an empty dir and a regeneration with nothing
# changed (median wall time of RUNS, default 3 — one beyond 10,000 runs —
# and the peak RSS of the largest), build.ninja's size, and the no-op `ninja run` on the build dir
# against a bare graph of as many edges in a dir of its own (short paths,
# its own .ninja_log: the least any build of that many runs parses and
# stats): medians of RUNS+2, taken in turns, with the ratio.
# usage: tests/bench/genbench.sh KUNAI MEASURE [SIZES...]
#   MEASURE: tests/bench/measure (wall time and peak RSS of a command)
# TMPDIR chooses the file system (first gens are bound by file creation).
kunai=$1 measure=$2
shift 2
sizes=${*:-1000 10000 100000}
runs=${RUNS:-3}
tmp=${TMPDIR:-/tmp}/kunai-genbench.$$
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/tests" "$tmp/rules"

cat >"$tmp/system.toml" <<'T'
name = "bench"
scheduler = "slurm"
install_path = "./install"
output_path = "./results"
default_partition = "main"
gpus_per_node = 8
ntasks_per_node = 8
max_jobs = 64
[[partitions]]
name = "main"
T
cat >"$tmp/tests/nccl.toml" <<'T'
name = "nccl"
description = "all_reduce"
test_template_name = "NcclTest"
[cmd_args]
docker_image_url = "nvcr.io#nvidia/pytorch:25.12-py3"
subtest_name = "all_reduce_perf_mpi"
maxbytes = "4G"
iters = 100
T
# rules whose run edge only touches the stamp, so the no-op rebuild is measurable
printf 'rule report\n  command = true\nrule plot\n  command = true\nrule html\n  command = true\nrule phase\n  command = touch $out\nrule install\n  command = touch $out\nrule uninstall\n  command = true\n' >"$tmp/rules/common.ninja"
printf 'rule run\n  command = touch $out\n  pool = jobs\nrule start\n  command = touch $out\n' \
	>"$tmp/rules/slurm.ninja"

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# scenario SHAPE N: the scenario TOML on stdout
scenario() {
	echo 'name = "bench"'
	case $1 in
	tests-x100)
		cases=$(($2 / 100)) iters=100
		[ $cases -ge 1 ] || { cases=1; iters=$2; }
		seq 0 $((cases - 1)) | awk -v it=$iters '{ printf "[[Tests]]\nid = \"nccl.%d\"\ntest_name = \"nccl\"\nnum_nodes = %d\niterations = %d\ntime_limit = \"00:10:00\"\n", $1, $1 % 16 + 1, it }' ;;
	tests)
		seq 0 $(($2 - 1)) | awk '{ printf "[[Tests]]\nid = \"nccl.%d\"\ntest_name = \"nccl\"\nnum_nodes = %d\n", $1, $1 % 16 + 1 }' ;;
	sweep)
		printf '[[Tests]]\nid = "sweep"\ntest_name = "nccl"\n[Tests.cmd_args]\niters = [%s]\n' "$(seq -s, 1 "$2")" ;;
	chain | star)
		seq 0 $(($2 / 100 - 1)) | awk -v shape=$1 '{
			printf "[[Tests]]\nid = \"nccl.%d\"\ntest_name = \"nccl\"\niterations = 100\n", $1
			if ($1 > 0)
				printf "  [[Tests.dependencies]]\n  type = \"start_post_comp\"\n  id = \"nccl.%d\"\n", shape == "chain" ? $1 - 1 : 0 }' ;;
	esac
}

# bare DIR N: a graph of N edges from an input to a stamp, in DIR, built once
bare() {
	mkdir -p "$1"
	(cd "$1" && seq 1 "$2" | sed 's/^/i/' | xargs touch &&
		{ printf 'rule touch\n  command = touch $out\n'; seq 1 "$2" | sed 's/.*/build s&: touch i&/'; } >build.ninja &&
		ninja -j 32 >/dev/null)
}

printf '%-11s %7s %10s %10s %10s %9s %9s %9s %9s %7s\n' shape runs 'first gen' 'peak RSS' regenerate \
	build.ninja 'no-op' bare-graph 'vs bare' 'gen/run'
one() { # one SHAPE N
	scenario "$1" "$2" >"$tmp/scenario.toml"
	out=$tmp/out
	set -- "$1" "$2" env KUNAI_DATADIR="$tmp" "$kunai" gen --system-config "$tmp/system.toml" \
		--tests-dir "$tmp/tests" --test-scenario "$tmp/scenario.toml" -o "$out"
	shape=$1 n=$2
	shift 2
	: >"$tmp/first"
	: >"$tmp/regen"
	# beyond 10,000 runs one first gen is minutes of file creation here: one sample
	r=$runs
	[ "$n" -le 10000 ] || r=1
	i=0
	while [ $i -lt "$r" ]; do
		rm -rf "$out"
		sync
		"$measure" "$@" 2>>"$tmp/first" >/dev/null || { echo "$shape: gen failed: $(tail -n 3 "$tmp/first")"; exit 1; }
		"$measure" "$@" 2>>"$tmp/regen" >/dev/null
		i=$((i + 1))
	done
	runs_made=$(grep -c 'kunai.stamp: run' "$out/build.ninja")
	size=$(wc -c <"$out/build.ninja")
	ninja -C "$out" -j 32 run >/dev/null || exit 1
	bare "$tmp/bare" "$runs_made" || exit 1
	sync
	: >"$tmp/noop"
	i=0
	while [ $i -lt $((runs + 2)) ]; do
		echo "$("$measure" ninja -C "$out" run 2>&1 >/dev/null | tail -n 1 | cut -d' ' -f1)" \
			"$("$measure" ninja -C "$tmp/bare" 2>&1 >/dev/null | tail -n 1 | cut -d' ' -f1)" >>"$tmp/noop"
		i=$((i + 1))
	done
	echo "$shape $runs_made $(cut -d' ' -f1 "$tmp/first" | median) $(cut -d' ' -f2 "$tmp/first" | sort -n | tail -n 1)" \
		"$(cut -d' ' -f1 "$tmp/regen" | median) $size $(cut -d' ' -f1 "$tmp/noop" | median)" \
		"$(cut -d' ' -f2 "$tmp/noop" | median)" | awk '{
		printf "%-11s %7d %8.3f s %7.1f MB %8.3f s %6.2f MB %7.3f s %7.3f s %8.2fx %5.1f us\n",
			$1, $2, $3, $4 / 1024, $5, $6 / 1e6, $7, $8, $7 / $8, $3 / $2 * 1e6 }'
	rm -rf "$out" "$tmp/bare"
}
for n in $sizes; do
	one tests-x100 "$n"
done
one tests 10000
one sweep 10000
one chain 10000
one star 10000
