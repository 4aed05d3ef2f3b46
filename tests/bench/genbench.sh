#!/bin/sh
# genbench: `kunai gen` on synthetic NCCL campaigns of every shape, with
# the rules kunai installs (the source tree's rules/), and the no-op
# `ninja run` of what it wrote.
#
# Shapes, of N runs each (N = each of SIZES):
#   iterations  one test, N iterations
#   sweep       one test sweeping N values
#   tests       N tests of one iteration
#   tests-x100  N/100 tests x 100 iterations
#   chain       N/100 tests x 100 iterations, each start_post_comp on the one before
#   star        N/100 tests x 100 iterations, all start_post_comp on the first
# Per shape and size:
#   first gen   into an empty dir, against `tar -x` of its own output (goal <= 1x);
#               its peak RSS (goal < 200 MB)
#   build.ninja bytes per run (goal <= 200), beside a bare graph's
#   no-op run   `ninja run` once every run is done, against a bare graph of the
#               same stamps and scripts (one `build S: touch SCRIPT` per run, in
#               a file and log of its own): time and memory, goal <= 1.1x
# The build dir is brought to "every run done" by ninja itself, with a
# stand-in kunai at the path local.ninja names that touches the stamp.
# usage: genbench.sh [SIZES...]   (KUNAI, MEASURE, RUNS, BENCH_SMOKE: see lib.sh;
#        SHAPES picks shapes; GENBENCH_FIRST=no skips the first gen's timing,
#        which ext4's inode scan can make minutes a turn at 100,000 runs;
#        TMPDIR chooses the file system)
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${*:-1000 10000 100000}
shapes=${SHAPES:-iterations sweep tests tests-x100 chain star}
[ -z "$BENCH_SMOKE" ] || sizes=100
# first gens are bound by file creation: start each with the disk quiet
sync=sync
[ -z "$BENCH_SMOKE" ] || sync=:
w=$bench_tmp
mkdir -p "$w/c/tests" "$w/bin"

cat >"$w/c/system.toml" <<'T'
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
cat >"$w/c/tests/nccl.toml" <<'T'
name = "nccl"
description = "all_reduce"
test_template_name = "NcclTest"
[cmd_args]
docker_image_url = "nvcr.io#nvidia/pytorch:25.12-py3"
subtest_name = "all_reduce_perf_mpi"
maxbytes = "4G"
iters = 100
T
# the stand-in: what local.ninja calls kunai, writing what each edge promises
printf '#!/bin/sh\n[ "$1" = gen ] && exit 0\nfor a; do :; done\n: >"$a"\n' >"$w/stub"
chmod +x "$w/stub"

# scenario SHAPE N: the scenario TOML on stdout
scenario() {
	echo 'name = "bench"'
	case $1 in
	iterations)
		printf '[[Tests]]\nid = "nccl"\ntest_name = "nccl"\niterations = %d\n' "$2" ;;
	sweep)
		printf '[[Tests]]\nid = "sweep"\ntest_name = "nccl"\n[Tests.cmd_args]\niters = [%s]\n' "$(seq -s, 1 "$2")" ;;
	tests)
		seq 0 $(($2 - 1)) | awk '{ printf "[[Tests]]\nid = \"nccl.%d\"\ntest_name = \"nccl\"\nnum_nodes = %d\n", $1, $1 % 16 + 1 }' ;;
	tests-x100 | chain | star)
		seq 0 $(($2 / 100 - 1)) | awk -v shape=$1 '{
			printf "[[Tests]]\nid = \"nccl.%d\"\ntest_name = \"nccl\"\nnum_nodes = %d\niterations = 100\n", $1, $1 % 16 + 1
			if ($1 > 0 && shape != "tests-x100")
				printf "  [[Tests.dependencies]]\n  type = \"start_post_comp\"\n  id = \"nccl.%d\"\n", shape == "chain" ? $1 - 1 : 0 }' ;;
	esac
}

header
for n in $sizes; do
	for shape in $shapes; do
		scenario "$shape" "$n" >"$w/c/scenario.toml"
		out=$w/out
		# a copy of kunai, so that the stand-in can take its place later
		rm -f "$w/bin/kunai"
		cp "$KUNAI" "$w/bin/kunai"
		gen="cd $w/c && KUNAI_DATADIR=$src $w/bin/kunai gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o $out"
		rm -rf "$out"
		sh -c "$gen" >"$w/log" 2>&1 || bench_fail "$shape $n: gen failed"
		runs=$(grep -c '^build .*/kunai.stamp: run[_a-z0-9]*\( \|$\)' "$out/build.ninja")
		if [ "${GENBENCH_FIRST:-yes}" != no ]; then
			tar -cf "$w/out.tar" -C "$out" .
			pair "rm -rf $out; $sync" "$gen" "rm -rf $w/x; mkdir $w/x; $sync" "tar -xf $w/out.tar -C $w/x"
			rm -rf "$w/x" "$w/out.tar"
			row_pair "$shape $n: first gen" time "tar -x" 1
			row_abs "$shape $n: first gen, peak RSS" mem 200
		fi
		# every run done: the stand-in takes kunai's place (older than
		# build.ninja, so that nothing regenerates)
		cp "$w/stub" "$w/bin/kunai"
		touch -d 2000-01-01 "$w/bin/kunai"
		# (iterations that a pool of depth 1 orders run side by side here:
		# the same commands, so the same log, without their pool)
		sed 's/^\(build [^:]*: \)\(run\|start\)_seq_[0-9_]*\( \|$\)/\1\2\3/' "$out/build.ninja" >"$out/fill.ninja"
		ninja -C "$out" -f fill.ninja -j 64 run >"$w/log" 2>&1 || bench_fail "$shape $n: ninja run failed"
		rm "$out/fill.ninja"
		# (kunai's run edge names no script: gen removes a stamp whose
		# script it changed; the bare graph reruns by the script's mtime)
		sed -n 's/^build \(\(.*\)\/kunai.stamp\): run[_a-z0-9]*\( .*\)\{0,1\}$/build \1: touch \2\/cloudai_sbatch_script.sh/p' \
			"$out/build.ninja" |
			{ printf 'builddir = .bare\nrule touch\n  command = touch $out\n'; cat; } >"$out/bare.ninja"
		ninja -C "$out" -f bare.ninja >"$w/log" 2>&1 || bench_fail "$shape $n: bare graph failed"
		size=$(wc -c <"$out/build.ninja") bare=$(wc -c <"$out/bare.ninja")
		row_value "$shape $n: build.ninja per run" "$((size / runs))" bytes 200 \
			"bare graph $((bare / runs)) bytes"
		ninja -C "$out" run >"$w/log" 2>&1 && grep -q 'no work to do' "$w/log" ||
			bench_fail "$shape $n: the second ninja run had work to do"
		pair : "ninja -C $out run" : "ninja -C $out -f bare.ninja"
		row_pair "$shape $n: no-op ninja run" time "bare graph" 1.1
		row_pair "$shape $n: no-op ninja run, memory" mem "bare graph" 1.1
		rm -rf "$out"
	done
done

# kunai against its peer: CloudAI's dry-run of the same campaign, 1,000
# NcclTest entries (the tests shape) into a fresh dir, when CloudAI is
# installed (CLOUDAI names its command; Debian does not package it)
cloudai=${CLOUDAI:-cloudai}
n=1000
[ -z "$BENCH_SMOKE" ] || n=100
if command -v "$cloudai" >/dev/null 2>&1; then
	scenario tests "$n" >"$w/c/scenario.toml"
	cp "$KUNAI" "$w/bin/kunai"
	pair "rm -rf $w/out; $sync" "cd $w/c && KUNAI_DATADIR=$src $w/bin/kunai gen --system-config system.toml --tests-dir tests --test-scenario scenario.toml -o $w/out" \
		"rm -rf $w/cr; $sync" "cd $w/c && $cloudai dry-run --system-config system.toml --tests-dir tests --test-scenario scenario.toml --output-dir $w/cr"
	row_pair "tests $n: dry run" time "CloudAI dry-run" -
	row_pair "tests $n: dry run, memory" mem "CloudAI dry-run" -
	rm -rf "$w/out" "$w/cr"
else
	printf '%-34s %s\n' "tests $n: dry run vs CloudAI" \
		"skipped: CloudAI is not installed (no '$cloudai' command; CLOUDAI=COMMAND names one)"
fi

# At the bound: one test of as many iterations as a campaign may have runs
# ($KUNAI_MAX_RUNS, default 250,000: kunai gen's message names it), and the
# chain shape of that many runs (tests of 100 iterations, each after the
# one before), generate, and ninja loads and walks them with the usual
# 8 MiB stack (no chain as deep as the count): `ninja -n` of run, of
# report (report.ninja) and of scripts
[ -z "$BENCH_SMOKE" ] || export KUNAI_MAX_RUNS=1200
cp "$KUNAI" "$w/bin/kunai"
printf 'name = "bench"\n[[Tests]]\nid = "nccl"\ntest_name = "nccl"\niterations = 2147483647\n' >"$w/c/scenario.toml"
bound=$(cd "$w/c" && "$w/bin/kunai" gen --system-config system.toml --tests-dir tests \
	--test-scenario scenario.toml -o "$w/out" 2>&1 | sed -n 's/.* more than \([0-9]*\) runs.*/\1/p')
[ -n "$bound" ] || bench_fail "kunai gen did not name its bound"
for shape in iterations chain; do
	scenario "$shape" "$bound" >"$w/c/scenario.toml"
	out=$w/out
	rm -rf "$out"
	(cd "$w/c" && KUNAI_DATADIR=$src "$w/bin/kunai" gen --system-config system.toml --tests-dir tests \
		--test-scenario scenario.toml -o "$out") >"$w/log" 2>&1 || bench_fail "$shape $bound: gen failed"
	# (ninja -n report does not run the nested ninja: report.ninja directly)
	(ulimit -S -s 8192 && ninja -C "$out" -n scripts && ninja -C "$out" -f report.ninja -n report) \
		>"$w/log" 2>&1 || bench_fail "$shape $bound: ninja -n scripts or report failed"
	single : "ulimit -S -s 8192 && ninja -C $out -n run"
	[ "$(grep -c '^\[[0-9]*/[0-9]*\] RUN ' "$w/log")" -eq $((RUNS * bound)) ] ||
		bench_fail "$shape $bound: ninja -n run did not run every run"
	row_abs "$shape $bound (the bound): ninja -n run" time - "8 MiB stack; report, scripts too"
	rm -rf "$out"
done
