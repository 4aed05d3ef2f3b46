#!/usr/bin/env bats
# Memory linear in every input (issue P14): large outputs and long lists run
# under an address-space bound that growing an array one element at a time
# blew through (20,000 nccl-tests rows took 12.5 GB, 16,384 "# Rank" lines
# 3.1 GB, 20,000 extra_container_mounts 9.4 GB). The full-size figures are
# tests/bench/gradebench.sh's (make bench).
bats_require_minimum_version 1.5.0

# 1 GB of address space: a hundred times what these inputs need now
LIMIT_KB=1048576

setup() {
	W=$BATS_TEST_TMPDIR
	Q=$BATS_TEST_DIRNAME/jsonquery
	# ASan reserves terabytes of address space: no ulimit -v under it
	case ${SANFLAGS:-} in *address*) skip "sanitizer build: ulimit -v does not apply under ASan" ;; esac
}

# campaign: one NcclTest run generated on a standalone system, passed
campaign() {
	mkdir -p "$W/g/tests"
	printf 'name = "local"\nscheduler = "standalone"\ninstall_path = "./i"\noutput_path = "./o"\n' >"$W/g/system.toml"
	printf 'name = "nccl"\ndescription = "d"\ntest_template_name = "NcclTest"\n[cmd_args]\nsubtest_name = "all_reduce_perf"\n' \
		>"$W/g/tests/nccl.toml"
	printf 'name = "m"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\n' >"$W/g/scenario.toml"
	(cd "$W/g" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$W/b") >/dev/null
	printf '{"dir": "nccl/0", "workload": "NcclTest", "outcome": "passed", "exit_code": 0, "start_time": "2024-05-01T12:00:00Z", "end_time": "2024-05-01T12:00:30Z"}\n' \
		>"$W/b/nccl/0/job.json"
}

# grade_bounded: kunai grade of the run under the bound
grade_bounded() {
	run -0 sh -c 'ulimit -v "$1" && cd "$2" && exec "$3" grade nccl/0/report.json' sh "$LIMIT_KB" "$W/b" "$KUNAI"
}

@test "20,000 nccl-tests result rows grade within 1 GB of address space" {
	campaign
	awk 'BEGIN {
		print "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
		for (i = 0; i < 20000; i++)
			printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", 8 * (i % 23 + 1), 2 * (i % 23 + 1), 10 + i % 97, 1.5, 2.5 + i % 7, 10, 1.5, 2.5
		print "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 5.5"
	}' >"$W/b/nccl/0/stdout.txt"
	grade_bounded
	for k in outcome metrics.results metrics.max_busbw; do "$Q" "$W/b/nccl/0/report.json" "$k"; done >"$W/got"
	printf 'passed\n20000\n8.5\n' | diff -u - "$W/got"
}

@test "16,384 '# Rank' lines grade within 1 GB of address space" {
	campaign
	awk 'BEGIN {
		for (r = 0; r < 16384; r++)
			printf "#  Rank %5d Group  0 Pid %6d on node%04d device %2d [0000:18:00] NVIDIA H100 80GB HBM3\n", r, 1000 + r, r / 8, r % 8
		print "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
		print "     1048576        262144     float     sum      -1    20.50   51.15   89.51       0    20.40   51.40   89.95       0"
		print "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 89.7"
	}' >"$W/b/nccl/0/stdout.txt"
	grade_bounded
	for k in outcome metrics.max_busbw; do "$Q" "$W/b/nccl/0/report.json" "$k"; done >"$W/got"
	printf 'passed\n89.95\n' | diff -u - "$W/got"
}

@test "a test with 20,000 extra_container_mounts generates within 1 GB of address space" {
	mkdir -p "$W/l/tests"
	printf 'name = "c"\nscheduler = "slurm"\ninstall_path = "./i"\noutput_path = "./o"\ndefault_partition = "main"\n[[partitions]]\nname = "main"\n' \
		>"$W/l/system.toml"
	awk 'BEGIN {
		print "name = \"nccl\"\ndescription = \"d\"\ntest_template_name = \"NcclTest\"\nextra_container_mounts = ["
		for (i = 0; i < 20000; i++)
			printf "  \"/lustre/set%05d:/data/set%05d\",\n", i, i
		print "]\n[cmd_args]\ndocker_image_url = \"nvcr.io#nvidia/pytorch:25.12-py3\"\nsubtest_name = \"all_reduce_perf_mpi\""
	}' >"$W/l/tests/nccl.toml"
	printf 'name = "m"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\n' >"$W/l/scenario.toml"
	run -0 sh -c 'ulimit -v "$1" && cd "$2" && exec "$3" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o ../b' \
		sh "$LIMIT_KB" "$W/l" "$KUNAI"
	# every mount reached the job script, in order
	grep -o '/lustre/set[0-9]*:/data/set[0-9]*' "$W/b/nccl/0/cloudai_sbatch_script.sh" | sed -n '1p;20000p' >"$W/got"
	printf '/lustre/set00000:/data/set00000\n/lustre/set19999:/data/set19999\n' | diff -u - "$W/got"
}

@test "kunai report holds a compact record per run: 2,000 runs within 48 MB of address space, first and again" {
	# the runs' full reports (series included) took 55 KB a run, 110 MB here
	campaign
	printf 'iterations = 2000\n' >>"$W/g/scenario.toml"
	(cd "$W/g" && "$KUNAI" gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o "$W/b") >/dev/null
	awk -v b="$W/b" 'BEGIN {
		out = "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
		for (s = 8; s <= 33554432; s *= 2)
			out = out sprintf("%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", s, s / 4, 10 + s / 1e5, s / 1e6, s / 9e5, 10 + s / 1e5, s / 1e6, s / 9e5)
		out = out "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.4"
		for (i = 0; i < 2000; i++) {
			d = b "/nccl/" i
			printf "{\"dir\": \"nccl/%d\", \"workload\": \"NcclTest\", \"outcome\": \"passed\", \"exit_code\": 0, \"nodes\": \"node01\", \"start_time\": \"2024-05-01T12:00:00Z\", \"end_time\": \"2024-05-01T12:00:30Z\"}\n", i >(d "/job.json")
			print out >(d "/stdout.txt")
			close(d "/job.json"); close(d "/stdout.txt")
		}
	}'
	run -0 sh -c 'ulimit -v "$1" && exec "$2" report --no-html "$3"' sh 49152 "$KUNAI" "$W/b"
	[[ "$output" == *"2000 runs: 2000 passed"* ]]
	[ "$(grep -c '^nccl/[0-9]*,nccl,[0-9]*,,passed,node01,,,8,' "$W/b/report/csv/NcclTest_per_size.csv")" -eq 2000 ]
	cp -R "$W/b/report" "$W/first"
	touch "$W/mark"
	sleep 1
	# nothing changed: the same lines, no file written
	run -0 sh -c 'ulimit -v "$1" && exec "$2" report --no-html "$3"' sh 49152 "$KUNAI" "$W/b"
	[[ "$output" == *"2000 runs: 2000 passed"* ]]
	find "$W/b" -newer "$W/mark" -type f >"$W/written"
	[ ! -s "$W/written" ] || { cat "$W/written"; false; }
	# one run's result changes: every output made again, as from nothing
	printf '# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.5\n' >"$W/b/nccl/1999/stdout.txt"
	run -0 "$KUNAI" report --no-html "$W/b"
	! diff -r "$W/first" "$W/b/report" >/dev/null
	cp -R "$W/b/report" "$W/second"
	rm -rf "$W/b/report" "$W/b/.kunai/report.stamp"
	run -0 "$KUNAI" report --no-html "$W/b"
	diff -r "$W/second" "$W/b/report"
}
