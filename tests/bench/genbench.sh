#!/bin/sh
# genbench: `kunai gen` on synthetic NCCL campaigns of 1,000 / 10,000 / 100,000
# runs (time, peak RSS), then the no-op `ninja run` on each generated build dir
# against a bare build.ninja with one edge per run.
# usage: tests/bench/genbench.sh KUNAI [SIZES...]
kunai=$1
shift
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
cat >"$tmp/rules/common.ninja" <<'T'
rule grade
  command = true
rule report
  command = true
T
printf 'rule run\n  command = touch $out\n  pool = jobs\n' >"$tmp/rules/slurm.ninja"

now() { date +%s.%N; }
# peak RSS in MB of a command, via /proc (GNU time may be absent)
measure() {
	"$@" >/dev/null 2>"$tmp/err" &
	pid=$!
	peak=0
	while kill -0 $pid 2>/dev/null; do
		r=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2>/dev/null)
		[ -n "$r" ] && [ "$r" -gt "$peak" ] && peak=$r
		sleep 0.01
	done
	wait $pid
}

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
	t0=$(now)
	KUNAI_DATADIR=$tmp "$kunai" gen --system-config "$tmp/system.toml" --tests-dir "$tmp/tests" \
		--test-scenario "$tmp/scenario.toml" -o "$out" >/dev/null || { cat "$tmp/err"; exit 1; }
	t1=$(now)
	# peak memory of a regeneration over the existing dir (no file rewritten)
	measure env KUNAI_DATADIR=$tmp "$kunai" gen --system-config "$tmp/system.toml" --tests-dir "$tmp/tests" \
		--test-scenario "$tmp/scenario.toml" -o "$out"
	t2=$(now)
	ninja -C "$out" run >/dev/null
	t3=$(now)
	ninja -C "$out" run >/dev/null
	t4=$(now)
	# bare graph: one edge per run, each with one input and a stamp
	bare=$tmp/bare$n
	mkdir -p "$bare"
	{
		printf 'rule touch\n  command = touch $out\n'
		i=0
		while [ $i -lt $n ]; do printf 'build s%d.stamp: touch s%d.in\n' $i $i; i=$((i + 1)); done
	} >"$bare/build.ninja"
	(cd "$bare" && i=0 && while [ $i -lt $n ]; do : >s$i.in; i=$((i + 1)); done)
	ninja -C "$bare" >/dev/null
	t5=$(now)
	ninja -C "$bare" >/dev/null
	t6=$(now)
	awk -v n=$n -v g="$t0 $t1" -v r="$t1 $t2" -v k="$t3 $t4" -v b="$t5 $t6" -v peak=$peak 'BEGIN {
		split(g, G, " "); split(r, R, " "); split(k, K, " "); split(b, B, " ")
		printf "gen %6d runs: %.3f s first, %.3f s regenerate (peak RSS %.1f MB); no-op ninja run %.3f s vs bare %.3f s (%+.0f%%)\n",
			n, G[2] - G[1], R[2] - R[1], peak / 1024, K[2] - K[1], B[2] - B[1], ((K[2] - K[1]) / (B[2] - B[1]) - 1) * 100
	}'
	rm -rf "$out" "$bare"
done
