#!/usr/bin/env bats
# kunai's own workloads (workloads/): every CPU path runs and passes; every
# failure path (a forced wrong result, a missing GPU that was expected, a bad
# flag) is caught; the JSON line and nccl-tests rows parse with the tools the
# grader uses; the CUDA sources compile when nvcc is here; the nocuda twins
# still build; and kunai gen writes scripts that run them.
bats_require_minimum_version 1.5.0

setup() {
	W=$BATS_TEST_TMPDIR
	Q="$BATS_TEST_DIRNAME/jsonquery"
	P="$BATS_TEST_DIRNAME/ncclparse"
	# mpirun as root (containers, CI); under ASan the programs set their own
	# options (__asan_default_options in workloads/wl.c and mpi_gpu.c)
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

need_mpi() {
	[ -x workloads/allreduce ] || skip "MPI workloads not built (configure found no mpicc)"
	command -v mpirun >/dev/null || skip "no mpirun"
}

no_gpu() {
	if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
		skip "this machine has a GPU: the no-GPU failure cannot be staged"
	fi
}

# run_wl OUT PROG ARGS...: run a program, stdout to OUT, status in $status
run_wl() {
	out=$1
	shift
	set +e
	"$@" >"$out" 2>"$out.err"
	status=$?
	set -e
}

# mpi OUT PROG ARGS...: the same under mpirun -np 2
mpi() {
	out=$1
	shift
	set +e
	mpirun --oversubscribe -np 2 "$@" >"$out" 2>"$out.err"
	status=$?
	set -e
}

last() { tail -n 1 "$1"; }

# the JSON line (the one line starting with '{'), parsed with cJSON
json() { grep '^{' "$1" >"$1.json" && "$Q" "$1.json" "$2"; }

passed() { # passed OUT: exit 0, SUCCESS last, JSON says so
	[ "$status" -eq 0 ] || { cat "$1" "$1.err"; return 1; }
	[ "$(last "$1")" = "[RESULT] SUCCESS" ] || { cat "$1"; return 1; }
	[ "$(json "$1" result)" = SUCCESS ]
	[ "$(json "$1" failures.#)" = 0 ]
}

failed() { # failed OUT: exit 1, FAILURE last, JSON says so
	[ "$status" -eq 1 ] || { echo "status $status"; cat "$1" "$1.err"; return 1; }
	case $(last "$1") in "[RESULT] FAILURE: "*) ;; *) cat "$1"; return 1 ;; esac
	[ "$(json "$1" result)" = FAILURE ]
}

@test "every program answers --help with its usage and exit 0" {
	mpi_progs=
	[ -x workloads/allreduce ] && mpi_progs="allreduce ddp_smoke bisection"
	for p in gemm train_smoke health $mpi_progs; do
		run workloads/$p --help
		[ "$status" -eq 0 ]
		[[ "$output" == "usage: $p"* ]]
	done
}

@test "a bad flag is a usage error: exit 2, the reason on stderr and a FAILURE line" {
	run_wl "$W/o" workloads/gemm --sise 10
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: unknown option '--sise'" ]
	grep -q "gemm: unknown option '--sise' (see gemm --help)" "$W/o.err"
	run_wl "$W/o" workloads/train_smoke --epochs 0
	[ "$status" -eq 2 ]
	grep -q "epochs '0'" "$W/o"
	# --name=V names the flag, not the flag and its value
	run_wl "$W/o" workloads/gemm --size=0
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: --size '0': expected an integer from 1 to 65536" ]
	run_wl "$W/o" workloads/health --expect-gpus=x
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: --expect-gpus needs an integer from 0 to 64" ]
	run_wl "$W/o" workloads/gemm --max-spread
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: --max-spread needs a value" ]
}

@test "MPI programs: a bad flag is a usage error on every rank, named as typed (-b, --minbytes)" {
	need_mpi
	mpi "$W/o" workloads/allreduce -b 0
	[ "$status" -eq 2 ]
	[ "$(cat "$W/o")" = "[RESULT] FAILURE: usage: -b '0': expected a byte count like 8, 1K, 32M" ]
	mpi "$W/o" workloads/bisection --minbytes=0
	[ "$status" -eq 2 ]
	[ "$(cat "$W/o")" = "[RESULT] FAILURE: usage: --minbytes '0': expected a byte count like 8, 1K, 32M" ]
	mpi "$W/o" workloads/allreduce -b 1M -e 1K
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: --minbytes 1048576 is larger than --maxbytes 1024" ]
	mpi "$W/o" workloads/ddp_smoke --timeout 0
	[ "$status" -eq 2 ]
	[ "$(last "$W/o")" = "[RESULT] FAILURE: usage: --timeout '0': expected a number from 1 to 1e+07" ]
}

@test "gemm: the CPU path multiplies fp64 and fp32 exactly and reports GFLOP/s" {
	run_wl "$W/o" workloads/gemm --expect-gpus 0 --m 200 --n 333 --k 129 --threads 3
	passed "$W/o"
	[ "$(json "$W/o" path)" = cpu ]
	[ "$(json "$W/o" results.fp64.wrong)" = 0 ]
	[ "$(json "$W/o" results.fp32.wrong)" = 0 ]
	awk -v g="$(json "$W/o" metrics.fp64_gflops)" 'BEGIN { exit !(g > 0) }'
	grep -q '^\[GEMM\] cpu fp32: .* GFLOP/s' "$W/o"
}

@test "gemm: a wrong element of C fails the run" {
	run_wl "$W/o" workloads/gemm --expect-gpus 0 --size 128 --force-wrong
	failed "$W/o"
	grep -q 'cpu fp64: 1 of 16384 elements differ from the exact product' "$W/o"
	[ "$(json "$W/o" results.fp32.wrong)" = 1 ]
}

@test "gemm: precisions without a CPU path make the run SKIPPED, exit 0" {
	run_wl "$W/o" workloads/gemm --expect-gpus 0 --precision bf16,fp16
	[ "$status" -eq 0 ]
	[ "$(last "$W/o")" = "[RESULT] SKIPPED: no requested precision has a CPU path (fp64, fp32)" ]
	[ "$(json "$W/o" result)" = SKIPPED ]
}

@test "train_smoke: the CPU path learns (loss < 0.7 x start, accuracy >= 0.9)" {
	run_wl "$W/o" workloads/train_smoke --expect-gpus 0
	passed "$W/o"
	awk -v s="$(json "$W/o" loss_start)" -v e="$(json "$W/o" loss_end)" 'BEGIN { exit !(e < 0.7 * s) }'
	[ "$(json "$W/o" epoch_loss.#)" = 5 ]
}

@test "train_smoke: scrambled labels fail the run" {
	run_wl "$W/o" workloads/train_smoke --expect-gpus 0 --force-wrong
	failed "$W/o"
	grep -q 'accuracy 0\.[0-8][0-9]* is below 0.90' "$W/o"
}

@test "health: without nvidia-smi it is SKIPPED, or FAILURE when GPUs are expected" {
	run_wl "$W/o" workloads/health --nvidia-smi "$W/none"
	[ "$status" -eq 0 ]
	[[ "$(last "$W/o")" == "[RESULT] SKIPPED: nvidia-smi not available"* ]]
	run_wl "$W/o" workloads/health --nvidia-smi "$W/none" --expect-gpus 8
	failed "$W/o"
	grep -q 'expected 8 GPUs: nvidia-smi not available' "$W/o"
}

@test "health: gates on a (fake) nvidia-smi: count, ECC, remapping, throttling, PCIe width" {
	cat >"$W/nvidia-smi" <<'EOF'
#!/bin/sh
case "$1" in
--query-gpu=*)
	echo "0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 81559, Enabled, 0, 0, [N/A], 35, 70.1, 1980, 1980, 5, 5, 16, 16, 550.54.15, 0x0000000000000000"
	echo "1, 00000000:2A:00.0, NVIDIA H100 80GB HBM3, 81559, Enabled, 0, 0, [N/A], 36, 71.0, 1980, 1980, 5, 5, ${WIDTH:-16}, 16, 550.54.15, ${EVENTS:-0x0000000000000000}" ;;
--query-remapped-rows=*)
	echo "00000000:18:00.0, 0, 0, ${PENDING:-0}, 0"
	echo "00000000:2A:00.0, 0, 0, 0, 0" ;;
*) exit 1 ;;
esac
EOF
	chmod +x "$W/nvidia-smi"
	run_wl "$W/o" workloads/health --nvidia-smi "$W/nvidia-smi" --expect-gpus 2 --no-dmesg
	passed "$W/o"
	[ "$(json "$W/o" gpus)" = 2 ]
	[ "$(json "$W/o" devices.1.name)" = "NVIDIA H100 80GB HBM3" ]
	run_wl "$W/o" workloads/health --nvidia-smi "$W/nvidia-smi" --expect-gpus 2 --no-dmesg --force-wrong
	failed "$W/o"
	grep -q 'GPU 0: 1 uncorrected ECC errors' "$W/o"
	WIDTH=8 EVENTS=0x48 PENDING=2 run_wl "$W/o" workloads/health --nvidia-smi "$W/nvidia-smi" --expect-gpus 4 \
		--no-dmesg
	failed "$W/o"
	grep -q 'expected 4 GPUs, nvidia-smi lists 2' "$W/o"
	grep -q 'GPU 0: 2 row remappings pending' "$W/o"
	grep -q 'GPU 1: throttled (hw_slowdown, hw_thermal_slowdown)' "$W/o"
	grep -q 'GPU 1: PCIe link x8 is narrower than its x16' "$W/o"
}

@test "an expected GPU that is absent is a FAILURE, never a silent CPU run" {
	no_gpu
	for p in gemm train_smoke; do
		run_wl "$W/o" workloads/$p --expect-gpus 1
		failed "$W/o"
		grep -q 'expected 1 GPU, found 0' "$W/o"
	done
}

@test "allreduce: MPI_Allreduce on 2 ranks in nccl-tests' format, read by the grader's parser" {
	need_mpi
	mpi "$W/o" workloads/allreduce --expect-gpus 0 -b 1K -e 1M -f 4 -n 5 -w 1
	passed "$W/o"
	[ "$(json "$W/o" ranks)" = 2 ]
	[ "$(json "$W/o" path)" = mpi ]
	run "$P" "$W/o"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rows 6"* ]]
	[[ "$output" == *"wrong 0"* ]]
	[[ "$output" == *"footer_avg 1"* ]]
	[[ "$output" == *"has_oob 1"*"oob 0"* ]]
	grep -q '^# Out of bounds values : 0 OK$' "$W/o"
	grep -q '^# Avg bus bandwidth    : ' "$W/o"
}

@test "allreduce: a corrupted result is counted wrong and fails the run" {
	need_mpi
	mpi "$W/o" workloads/allreduce --expect-gpus 0 -b 4K -e 4K -n 2 -w 1 --force-wrong
	failed "$W/o"
	grep -q '^# Out of bounds values : 2 FAILED$' "$W/o"
	run "$P" "$W/o"
	[[ "$output" == *"wrong 2"* ]]
	[[ "$output" == *"oob 2"* ]]
}

@test "allreduce: --min-busbw above what was reached fails" {
	need_mpi
	mpi "$W/o" workloads/allreduce --expect-gpus 0 -b 1K -e 1K -n 2 -w 1 --min-busbw 1e6
	failed "$W/o"
	grep -q 'is below --min-busbw 1e+06' "$W/o"
}

@test "ddp_smoke: data-parallel on 2 ranks, ranks agree; one epoch is valid (no first == last bug)" {
	need_mpi
	mpi "$W/o" workloads/ddp_smoke --expect-gpus 0
	passed "$W/o"
	[ "$(json "$W/o" checksum_spread)" = 0 ]
	mpi "$W/o" workloads/ddp_smoke --expect-gpus 0 --epochs 1 --steps 10
	passed "$W/o"
	[ "$(json "$W/o" epoch_loss.#)" = 1 ]
}

@test "ddp_smoke: a rank out of step fails the parameter check" {
	need_mpi
	mpi "$W/o" workloads/ddp_smoke --expect-gpus 0 --force-wrong
	failed "$W/o"
	grep -q 'parameters differ between ranks' "$W/o"
}

@test "bisection: 2 ranks exchange; a corrupted element fails; odd rank counts are refused" {
	need_mpi
	mpi "$W/o" workloads/bisection --expect-gpus 0 -b 1M -e 4M -n 3 -w 1
	passed "$W/o"
	grep -q '^# Bisection bandwidth  : ' "$W/o"
	[ "$(json "$W/o" pairs.#)" = 1 ]
	run "$P" "$W/o"
	[[ "$output" == *"rows 3"* ]]
	mpi "$W/o" workloads/bisection --expect-gpus 0 -b 1M -e 1M -n 2 --force-wrong
	failed "$W/o"
	set +e
	mpirun --oversubscribe -np 3 workloads/bisection --expect-gpus 0 >"$W/o" 2>/dev/null
	status=$?
	set -e
	failed "$W/o"
	grep -q 'needs an even number of ranks' "$W/o"
}

@test "MPI programs: an expected GPU that is absent fails on every rank" {
	need_mpi
	no_gpu
	for p in allreduce ddp_smoke bisection; do
		mpi "$W/o" workloads/$p --expect-gpus 1
		failed "$W/o"
		grep -q 'rank 1 on .*: expected 1 GPU, found 0' "$W/o"
	done
}

@test "the CUDA sources compile with nvcc" {
	[ -n "${NVCC:-}" ] || skip "no nvcc (configure found no CUDA toolkit)"
	for f in workloads/*_cuda.cu; do
		"$NVCC" $NVCC_FLAGS -c -o "$W/$(basename "$f" .cu).o" "$f"
	done
}

@test "the nocuda twins build: the CPU paths run without CUDA and say so" {
	cc=${CC:-cc}
	for p in gemm train_smoke; do
		extra=
		[ $p = train_smoke ] && extra="workloads/mlp.c workloads/mlp_nocuda.c"
		[ $p = gemm ] && extra=workloads/gemm_nocuda.c
		$cc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -pthread -o "$W/$p" workloads/$p.c workloads/wl.c \
			workloads/gpu_nocuda.c $extra -lcjson -lm
		run_wl "$W/o" "$W/$p" --expect-gpus 1
		failed "$W/o"
		grep -q 'built without CUDA' "$W/o"
	done
	if [ -n "${MPICC:-}" ]; then
		"$MPICC" -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -o "$W/allreduce" workloads/allreduce.c \
			workloads/mpi_gpu.c workloads/wl.c workloads/gpu_nocuda.c workloads/nccl_nocuda.c -lcjson -lm
		mpi "$W/o" "$W/allreduce" -b 1K -e 1K -n 1
		passed "$W/o"
		grep -q 'built without CUDA' "$W/o"
	fi
}

@test "kunai gen: the acceptance scenario's scripts run kunai's programs, with no absolute path" {
	run "$KUNAI" gen --system-config conf/system/local.toml --tests-dir conf/test \
		--test-scenario conf/scenario/acceptance.toml -o "$W/acc"
	[ "$status" -eq 0 ]
	for t in health gemm train_smoke allreduce ddp_smoke; do
		grep -qF '"${KUNAI_WORKLOADS:-$(kunai --datadir)/workloads}"/'$t "$W/acc/$t/0/run.sh"
	done
	grep -qF 'mpirun --oversubscribe -np 2 "${KUNAI_WORKLOADS' "$W/acc/allreduce/0/run.sh"
	if grep -rqF "$PWD" "$W/acc"/*/0/run.sh; then return 1; fi
	# start_post_comp: each test waits for the one before (a test of one run
	# by that run's stamp, P26), and `ninja allreduce` still names it
	grep -q '^build ddp_smoke/0/kunai.stamp: run .*|| allreduce/0/kunai.stamp$' "$W/acc/build.ninja"
	grep -q '^build allreduce: phony allreduce/0/kunai.stamp$' "$W/acc/build.ninja"
}

@test "kunai gen: on Slurm, one rank per GPU under srun --mpi, one task per node for the rest" {
	run "$KUNAI" gen --system-config conf/system/slurm_example.toml --tests-dir conf/test \
		--test-scenario conf/scenario/nccl_multinode.toml -o "$W/mn"
	[ "$status" -eq 0 ]
	s="$W/mn/allreduce/0/1/cloudai_sbatch_script.sh"
	grep -q 'srun --export=ALL --mpi=pmix --ntasks=16 -N2 bash -c ".*/allreduce --expect-gpus 8 ' "$s"
	grep -q 'srun --export=ALL --ntasks=4 -N4 bash -c ".*/health --expect-gpus 8' \
		"$W/mn/health/0/cloudai_sbatch_script.sh"
	grep -q -- '--ntasks=32 -N4 .*/bisection --expect-gpus 8' "$W/mn/bisection/0/cloudai_sbatch_script.sh"
	if grep -q 'mpirun' "$s"; then return 1; fi
}

@test "the workloads' test definitions and scenarios verify" {
	run "$KUNAI" verify-configs conf
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
}
