#!/bin/sh
# tests/bench/reportbench.sh: what `ninja report` costs.
# usage: reportbench.sh KUNAI [N] [P]   (N runs, default 10000; P runs with
#        plots, default 1000; NINJA=ninja)
#
# 1. `kunai report` on N fabricated NcclTest runs (job.json and a 23-size
#    nccl-tests stdout each, with a reference): the first report grades every
#    run; the second finds every report.json fresh. Without and with the HTML
#    pages. Target: < 2 s.
# 2. `ninja report` on a P-run campaign: the report edge, a gnuplot plot per
#    run and the HTML, from nothing; then a no-op (nothing may change but
#    .ninja_log). Target: < 10 s.
set -eu
kunai=${1:?usage: reportbench.sh KUNAI [N] [P]}
n=${2:-10000}
p=${3:-1000}
case $kunai in /*) ;; *) kunai=$PWD/$kunai ;; esac
NINJA=${NINJA:-ninja}
w=$(mktemp -d /tmp/kunai-reportbench.XXXXXX)
trap 'rm -rf "$w"' EXIT INT TERM

now() { date +%s.%N; }
secs() { awk "BEGIN { printf \"%.2f\", $2 - $1 }"; }

# campaign DIR RUNS: one NcclTest with RUNS iterations, generated and every
# run fabricated as passed
campaign() {
	mkdir -p "$1/c/tests"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./i"\noutput_path = "./o"\n' \
		>"$1/c/system.toml"
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\n' >"$1/c/tests/nccl.toml"
	printf 'subtest_name = "all_reduce_perf"\n[references]\nmax_busbw = [300, -0.1, inf, "GB/s"]\n' \
		>>"$1/c/tests/nccl.toml"
	printf 'name = "bench"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\niterations = %s\n' "$2" >"$1/c/scenario.toml"
	(cd "$1/c" && "$kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml \
		-o "$1/b") >/dev/null
	awk 'BEGIN {
		print "#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3"
		print "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
		for (s = 8; s <= 33554432; s *= 2)
			printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, 10 + s / 1e5, s / 1e6, s / 9e5, 10 + s / 1e5, s / 1e6, s / 9e5
		print "# Out of bounds values : 0 OK"
		print "# Avg bus bandwidth    : 123.4"
	}' >"$1/stdout.txt"
	i=0
	while [ "$i" -lt "$2" ]; do
		d=$1/b/nccl/$i
		printf '{"dir": "nccl/%s", "workload": "NcclTest", "outcome": "passed", "exit_code": 0, "nodes": "node01", "start_time": "2024-05-01T12:00:00Z", "end_time": "2024-05-01T12:00:30Z"}\n' "$i" >"$d/job.json"
		cp "$1/stdout.txt" "$d/stdout.txt"
		: >"$d/kunai.stamp"
		i=$((i + 1))
	done
}

echo "== kunai report on $n runs (NcclTest, 23 sizes, a reference)"
campaign "$w/r" "$n"
t0=$(now)
"$kunai" report --no-html "$w/r/b" >/dev/null
t1=$(now)
"$kunai" report --no-html "$w/r/b" >/dev/null
t2=$(now)
"$kunai" report "$w/r/b" >/dev/null
t3=$(now)
echo "first report (grades every run): $(secs "$t0" "$t1") s"
echo "second report (every report.json fresh): $(secs "$t1" "$t2") s (target < 2 s)"
echo "second report with the HTML pages: $(secs "$t2" "$t3") s"
rm -rf "$w/r"

echo "== ninja report on $p runs: report, $p gnuplot plots, HTML"
command -v gnuplot >/dev/null || echo "(no gnuplot: the plots are placeholders)"
campaign "$w/p" "$p"
t0=$(now)
"$NINJA" -C "$w/p/b" report >/dev/null
t1=$(now)
touch "$w/mark"
sleep 1
"$NINJA" -C "$w/p/b" report >/dev/null
t2=$(now)
changed=$(find "$w/p/b" -newer "$w/mark" -type f ! -name .ninja_log | wc -l)
echo "from nothing: $(secs "$t0" "$t1") s (target < 10 s)"
echo "no-op: $(secs "$t1" "$t2") s (including 1 s of sleep), $changed files changed (want 0)"
