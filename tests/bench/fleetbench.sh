#!/bin/sh
# tests/bench/fleetbench.sh: what the fleet verdict costs (DESIGN 15).
# usage: fleetbench.sh KUNAI MEASURE [RUNS] [NODES]
#        (default 10000 runs over 2000 nodes; MEASURE: tests/bench/measure)
#
# A campaign of NODES single-node NcclTest cases, RUNS/NODES iterations
# each, every run fabricated as passed (job.json naming its node, a 23-size
# nccl-tests stdout) and one node 40% slow. `kunai report --no-html` grades
# every run, compares every value with its peers and writes the verdict;
# then `kunai report --html-only` draws the index page with the nodes x
# tests matrix from summary.json. Targets: each < 2 s and < 500 MB, and
# the slow node is the one drained.
set -eu
kunai=${1:?usage: fleetbench.sh KUNAI MEASURE [RUNS] [NODES]}
measure=${2:?usage: fleetbench.sh KUNAI MEASURE [RUNS] [NODES]}
runs=${3:-10000}
nodes=${4:-2000}
case $kunai in /*) ;; *) kunai=$PWD/$kunai ;; esac
case $measure in /*) ;; *) measure=$PWD/$measure ;; esac
iters=$(((runs + nodes - 1) / nodes))
w=$(mktemp -d /tmp/kunai-fleetbench.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$w"' EXIT INT TERM

mkdir -p "$w/c/tests"
printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./i"\noutput_path = "./o"\n' >"$w/c/system.toml"
printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf"\n' \
	>"$w/c/tests/nccl.toml"
awk -v n="$nodes" -v it="$iters" 'BEGIN {
	print "name = \"fleetbench\""
	for (i = 1; i <= n; i++)
		printf "[[Tests]]\nid = \"n%05d\"\ntest_name = \"nccl\"\niterations = %d\nnodes = [\"node%05d\"]\n", i, it, i
}' >"$w/c/scenario.toml"
(cd "$w/c" && "$kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$w/b") \
	>/dev/null
# every run dir at once: one awk writes the job.json and stdout.txt files
awk -v n="$nodes" -v it="$iters" -v b="$w/b" 'BEGIN {
	for (i = 1; i <= n; i++)
		for (k = 0; k < it; k++) {
			d = sprintf("%s/n%05d/%d", b, i, k)
			bw = i == 5 ? 290 : 480 + (i * 7 + k) % 10
			printf "{\"dir\": \"n%05d/%d\", \"workload\": \"NcclTest\", \"outcome\": \"passed\", \"exit_code\": 0, \"nodes\": \"node%05d\", \"start_time\": \"2024-05-01T12:00:00Z\", \"end_time\": \"2024-05-01T12:00:30Z\"}\n", i, k, i >(d "/job.json")
			close(d "/job.json")
			f = d "/stdout.txt"
			printf "#  Rank  0 Group  0 Pid  12345 on  node%05d device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n", i >f
			for (s = 8; s <= 33554432; s *= 2)
				printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, 10, bw / 2, bw * (s >= 1048576 ? 1 : 0.5), 10, bw / 2, bw * (s >= 1048576 ? 1 : 0.5) >f
			print "# Out of bounds values : 0 OK" >f
			printf "# Avg bus bandwidth    : %d\n", bw >f
			close(f)
			printf "" >(d "/kunai.stamp")
			close(d "/kunai.stamp")
		}
}'
echo "== fleet verdict: $((nodes * iters)) runs over $nodes nodes"
"$measure" "$kunai" report --no-html "$w/b" >"$w/out" 2>"$w/m0" || { cat "$w/out" "$w/m0"; exit 1; }
"$measure" "$kunai" report --no-html "$w/b" >"$w/out" 2>"$w/m1" || { cat "$w/out" "$w/m1"; exit 1; }
"$measure" "$kunai" report --html-only "$w/b" >/dev/null 2>"$w/m2"
read -r t0 k0 <"$w/m0"
read -r t1 k1 <"$w/m1"
read -r t2 k2 <"$w/m2"
echo "first report (grades every stdout.txt): $t0 s, $((k0 / 1024)) MB"
echo "grading from report.json, peers and the verdict (report --no-html): $t1 s, $((k1 / 1024)) MB (target < 2 s, < 500 MB)"
echo "the HTML with the fleet views (report --html-only): $t2 s, $((k2 / 1024)) MB"
echo "verdict: $(tail -n 1 "$w/out" | cut -c 1-160)"
tail -n 1 "$w/out" | grep -q '^kunai: Drain: node00005 (nccl max_busbw 40% below peers)' ||
	{ echo "fleetbench: the slow node is not the one drained"; exit 1; }
