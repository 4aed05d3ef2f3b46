#!/bin/sh
# tests/bench/gradebench.sh: memory and time of large outputs and long lists,
# each printed beside its goal (issue P14: memory linear in every input).
# usage: gradebench.sh KUNAI MEASURE [ROWS [RANKS [ENTRIES]]]
#   MEASURE: tests/bench/measure (wall time and peak RSS of a command)
#   ROWS     result rows in one nccl-tests stdout (default 100000)
#   RANKS    "# Rank" lines in one nccl-tests stdout (default 16384: 2,048
#            nodes x 8 GPUs)
#   ENTRIES  extra_container_mounts of one test definition (default 100000)
# 1. `kunai grade` of one NcclTest run whose stdout holds ROWS result rows;
# 2. the same with RANKS rank lines (and a 23-size table): both < 2 s and
#    < 200 MB;
# 3. `kunai gen` of a Slurm campaign whose test has ENTRIES container
#    mounts: < 500 MB.
# Each figure is the fastest of RUNS runs (default 3: a shared machine's
# load only ever adds) and the largest peak RSS of them. Small sizes make a
# smoke run (e.g. 2000 256 2000 with RUNS=1: under a second). Exit 1 when a
# command fails or a figure misses its goal.
set -eu
# (make bench passes KUNAI and MEASURE in the environment, as lib.sh reads
# them; BENCH_SMOKE=1, make bench-smoke: the small sizes, one run, no verdict)
kunai=${1:-${KUNAI:?usage: gradebench.sh KUNAI MEASURE [ROWS [RANKS [ENTRIES]]]}}
measure=${2:-${MEASURE:?usage: gradebench.sh KUNAI MEASURE [ROWS [RANKS [ENTRIES]]]}}
smoke=${BENCH_SMOKE:-}
rows=${3:-100000}
ranks=${4:-16384}
entries=${5:-100000}
[ -z "$smoke" ] || { rows=2000 ranks=256 entries=2000 RUNS=1; }
case $kunai in /*) ;; *) kunai=$PWD/$kunai ;; esac
case $measure in /*) ;; *) measure=$PWD/$measure ;; esac
w=$(mktemp -d "${TMPDIR:-/tmp}/kunai-gradebench.XXXXXX")
trap 'rm -rf "$w"' EXIT INT TERM
runs=${RUNS:-3}
fails=0

# best: the least time and the largest RSS of the "seconds KB" lines of
# $w/m.all, into $w/m
best() {
	awk 'NR == 1 || $1 < s { s = $1 } $2 > kb { kb = $2 } END { print s, kb }' "$w/m.all" >"$w/m"
}

# check WHAT MAX_S MAX_MB: reads "seconds KB" from $w/m and prints the
# figures beside the goal
check() {
	read -r s kb <"$w/m"
	mb=$((kb / 1024))
	verdict=ok
	if [ -n "$smoke" ]; then
		verdict=-
	elif { [ "$2" != - ] && awk "BEGIN { exit !($s >= $2) }"; } || [ "$mb" -ge "$3" ]; then
		verdict=MISSED
		fails=$((fails + 1))
	fi
	if [ "$2" = - ]; then
		printf '%-44s %6.2f s            %5d MB (goal < %d MB): %s\n' "$1" "$s" "$mb" "$3" "$verdict"
	else
		printf '%-44s %6.2f s (goal < %s s)  %5d MB (goal < %d MB): %s\n' "$1" "$s" "$2" "$mb" "$3" "$verdict"
	fi
}

printf '%-34s %-26s %-34s %8s  %s\n' figure kunai peer ratio goal
# one NcclTest run, generated on a standalone system; its stdout comes later
mkdir -p "$w/g/tests"
printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./i"\noutput_path = "./o"\n' >"$w/g/system.toml"
printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf"\n' \
	>"$w/g/tests/nccl.toml"
printf 'name = "bench"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\n' >"$w/g/scenario.toml"
(cd "$w/g" && "$kunai" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$w/b") >/dev/null
printf '{"dir": "nccl/0", "workload": "NcclTest", "outcome": "passed", "exit_code": 0, "nodes": "node01", "start_time": "2024-05-01T12:00:00Z", "end_time": "2024-05-01T12:00:30Z"}\n' \
	>"$w/b/nccl/0/job.json"

# grade WHAT: grades the run from the stdout.txt in place, RUNS times
grade() {
	: >"$w/m.all"
	i=0
	while [ $i -lt "$runs" ]; do
		rm -f "$w/b/nccl/0/report.json"
		if ! (cd "$w/b" && "$measure" "$kunai" grade nccl/0/report.json) 2>"$w/m.err" >/dev/null ||
			[ ! -s "$w/b/nccl/0/report.json" ]; then
			echo "gradebench: kunai grade failed on $1:" >&2
			cat "$w/m.err" >&2
			exit 1
		fi
		tail -n 1 "$w/m.err" >>"$w/m.all"
		i=$((i + 1))
	done
	best
	check "$1" 2 200
}

header='#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong'
awk -v n="$rows" -v h="$header" 'BEGIN {
	print "#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3"
	print h
	for (i = 0; i < n; i++) {
		s = 8 * (i % 23 + 1)
		printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, 10 + i % 97, s / 1e6, s / 9e5, 10 + i % 89, s / 1e6, s / 9e5
	}
	print "# Out of bounds values : 0 OK"
	print "# Avg bus bandwidth    : 123.4"
}' >"$w/b/nccl/0/stdout.txt"
grade "grade: NCCL stdout of $rows result rows"

awk -v n="$ranks" -v h="$header" 'BEGIN {
	for (r = 0; r < n; r++)
		printf "#  Rank %5d Group  0 Pid %6d on node%04d device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, 10000 + r, r / 8, r % 8, 24 + r % 8
	print h
	for (s = 8; s <= 33554432; s *= 2)
		printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, 10 + s / 1e5, s / 1e6, s / 9e5, 10 + s / 1e5, s / 1e6, s / 9e5
	print "# Out of bounds values : 0 OK"
	print "# Avg bus bandwidth    : 123.4"
}' >"$w/b/nccl/0/stdout.txt"
grade "grade: NCCL stdout of $ranks rank lines"

# a Slurm campaign whose one test mounts ENTRIES directories
mkdir -p "$w/l/tests"
printf 'name = "cluster"\nscheduler = "slurm"\ninstall_path = "./i"\noutput_path = "./o"\ndefault_partition = "main"\n[[partitions]]\nname = "main"\n' \
	>"$w/l/system.toml"
awk -v n="$entries" 'BEGIN {
	print "name = \"nccl\"\ndescription = \"d\"\ntest_template_name = \"NcclTest\""
	print "extra_container_mounts = ["
	for (i = 0; i < n; i++)
		printf "  \"/lustre/data/set%06d:/data/set%06d\",\n", i, i
	print "]\n[cmd_args]\ndocker_image_url = \"nvcr.io#nvidia/pytorch:25.12-py3\"\nsubtest_name = \"all_reduce_perf_mpi\""
}' >"$w/l/tests/nccl.toml"
printf 'name = "bench"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\n' >"$w/l/scenario.toml"
(cd "$w/l" && "$measure" "$kunai" gen --system-config system.toml --tests-dir tests \
	--test-scenario scenario.toml -o "$w/lb") 2>"$w/m.err" >/dev/null || {
	echo "gradebench: kunai gen failed on the long list:" >&2
	cat "$w/m.err" >&2
	exit 1
}
tail -n 1 "$w/m.err" >"$w/m"
kb=$(($(wc -c <"$w/l/tests/nccl.toml") / 1024))
check "gen: $entries list entries ($kb KB of TOML)" - 500
[ "$fails" -eq 0 ]
