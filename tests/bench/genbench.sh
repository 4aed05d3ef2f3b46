#!/bin/sh
# genbench: `kunai gen` on synthetic NCCL campaigns of 1,000 / 10,000 / 100,000
# runs: the first gen and a regeneration with nothing changed (wall time and
# peak RSS), then the no-op `ninja run` on each build dir against a bare
# graph of the same files: one edge per run from its script to its stamp, the
# least any build of these runs must parse and stat. Both share the build
# dir's .ninja_log (their commands are the same `touch $out`), so each no-op
# is measured on an up-to-date graph. No-op times are the best of 7, kunai's
# and the bare graph's taken in turns (the least disturbed by other load;
# medians on a shared machine move by 30%).
# usage: tests/bench/genbench.sh KUNAI MEASURE [SIZES...]
#   MEASURE: tests/bench/measure (wall time and peak RSS of a command)
# TMPDIR chooses the file system (first gens are bound by file creation).
kunai=$1 measure=$2
shift 2
sizes=${*:-1000 10000 100000}
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
printf 'rule report\n  command = true\n' >"$tmp/rules/common.ninja"
printf 'rule run\n  command = touch $out\n  pool = jobs\n' >"$tmp/rules/slurm.ninja"

# wall time (seconds) of a command, from MEASURE
wall() {
	"$measure" "$@" 2>&1 >/dev/null | tail -n 1 | cut -d' ' -f1
}

# best of 7 no-op times of the kunai graph and of the bare one, taken in
# turns so that both see the same load and the same state of the page cache
noops() {
	for i in 1 2 3 4 5 6 7; do
		echo "$(wall ninja -C "$1" run) $(wall ninja -C "$1" -f bare.ninja)"
	done | awk 'NR == 1 || $1 < a { a = $1 } NR == 1 || $2 < b { b = $2 } END { print a, b }'
}

printf '%8s %12s %12s %14s %14s %10s %10s %7s\n' runs 'first gen' 'peak RSS' 'regenerate' 'peak RSS' 'no-op run' 'bare' 'vs bare'
for n in $sizes; do
	cases=$((n / 100))
	iters=100
	[ $cases -ge 1 ] || { cases=1; iters=$n; }
	{
		echo 'name = "bench"'
		i=0
		while [ $i -lt $cases ]; do
			printf '[[Tests]]\nid = "nccl.%d"\ntest_name = "nccl"\nnum_nodes = %d\niterations = %d\ntime_limit = "00:10:00"\n' \
				$i $((i % 16 + 1)) $iters
			i=$((i + 1))
		done
	} >"$tmp/scenario.toml"
	out=$tmp/out$n
	set -- env KUNAI_DATADIR="$tmp" "$kunai" gen --system-config "$tmp/system.toml" --tests-dir "$tmp/tests" \
		--test-scenario "$tmp/scenario.toml" -o "$out"
	first=$("$measure" "$@" 2>&1 >/dev/null | tail -n 1) || { echo "gen failed: $first"; exit 1; }
	regen=$("$measure" "$@" 2>&1 >/dev/null | tail -n 1)
	# the bare graph, over the very files of the build dir
	{
		printf 'rule touch\n  command = touch $out\n'
		sed -n 's/^build \(.*\/kunai\.stamp\): run \([^ ]*\).*/build \1: touch \2/p' "$out/build.ninja"
	} >"$out/bare.ninja"
	ninja -C "$out" -j 32 run >/dev/null || exit 1
	ninja -C "$out" -f bare.ninja >/dev/null || exit 1
	# the first runs wrote every stamp: let writeback finish before timing stats
	sync
	echo "$n $first $regen $(noops "$out")" | awk '{
		printf "%8d %10.3f s %9.1f MB %12.3f s %11.1f MB %8.3f s %8.3f s %+6.0f%%\n",
			$1, $2, $3 / 1024, $4, $5 / 1024, $6, $7, ($6 / $7 - 1) * 100
	}'
	rm -rf "$out"
done
