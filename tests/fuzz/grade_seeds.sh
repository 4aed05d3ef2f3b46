#!/bin/sh
# tests/fuzz/grade_seeds.sh DIR: seed inputs for grade_fuzz in DIR: a byte
# that picks the workload (every one of the first 48, taken modulo the
# number of workloads), then a sample of an output format the graders read
# (nccl-tests, OSU, training logs, JAX, kunai's JSON line, fio, MoE and
# NIXL results, serving benchmarks' JSON and CSV), and large ones (a
# nccl-tests table of 2,000 rows after 1,024 rank lines, a training log of
# 2,000 iterations: about 250 KB each).
set -eu
dir=${1:?usage: tests/fuzz/grade_seeds.sh DIR}
mkdir -p "$dir"
s=$(mktemp -d "${TMPDIR:-/tmp}/kunai-grade-seeds.XXXXXX")
trap 'rm -rf "$s"' EXIT INT TERM

cat >"$s/nccl" <<'EOF'
#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  12346 on     node02 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
           8             2     float     sum      -1    10.08    0.00    0.00       0    10.01    0.00    0.00       0
     1048576        262144     float     sum      -1    20.50   51.15   89.51       0    20.40   51.40   89.95       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 44.87
#  pair   0 <->   1        node01 <-> node02          5.84
EOF
cat >"$s/osu" <<'EOF'
# OSU MPI All-to-All Personalized Exchange Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
1                       1.50              1.20              1.80        1000
1024                    3.25              3.00              3.50        1000
EOF
cat >"$s/train" <<'EOF'
 [2024-05-01 12:00:00] iteration       10/     100 | consumed samples:  640 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 410.2 | lm loss: 7.5E+00 |
Epoch 0: 100%| 100/100 [01:40<00:00, reduced_train_loss=2.31, global_step=99.0, train_step_timing in s=1.02]
train_step_timing in s: [1.1, 1.0, 0.99, 1.01]
Step 10 | step time: 1.23 s | 400.1 TFLOP/s/GPU | GPU utilization: 45.0%
validation loss at iteration 100
EOF
cat >"$s/jax" <<'EOF'
I0501 12:00:00 [PAX STATUS]: train_step() took 1.25 seconds
I0501 12:00:01 [PAX STATUS]: train_step() took 1.24 seconds
I0501 12:00:02 [PAX STATUS]: train_step() took 1.26 seconds
EOF
cat >"$s/kunai" <<'EOF'
{"workload": "gemm", "path": "gpu", "host": "node01", "metrics": {"tflops": 700.5}, "gpu_models": ["NVIDIA H100"], "results": {"fp16": {"tflops_per_gpu": [700.1, 699.9]}}, "failures": [], "result": "passed"}
[RESULT] SUCCESS
EOF
cat >"$s/json" <<'EOF'
{"iterations_results": [[{"latency": 1.5, "bandwidth": 20.1, "size": 4096}]], "jobs": [{"read": {"bw": 1000, "iops": 250}}], "output_throughput": 1234.5, "mean_ttft_ms": 20.5, "median_itl_ms": 3.2, "request_throughput": 10.0}
EOF
cat >"$s/csv" <<'EOF'
Metric,avg,min,max,p99,p90,p50,std
Time To First Token (ms),20.1,10.0,40.2,39.0,30.0,19.5,5.1
Output Token Throughput (tokens/sec),1234.5,,,,,,
EOF
awk 'BEGIN {
	for (r = 0; r < 1024; r++)
		printf "#  Rank %4d Group  0 Pid %6d on node%03d device %d [0000:18:00] NVIDIA H100 80GB HBM3\n", r, 1000 + r, r / 8, r % 8
	print "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
	for (i = 0; i < 2000; i++)
		printf "%12d  %12d     float     sum      -1  %7.2f  %6.2f  %6.2f       0  %7.2f  %6.2f  %6.2f       0\n", 8 * (i % 23 + 1), 2 * (i % 23 + 1), 10 + i % 97, 1.5, 2.5 + i % 7, 10, 1.5, 2.5
	print "# Out of bounds values : 0 OK"
	print "# Avg bus bandwidth    : 5.5"
}' >"$s/nccl-big"
awk 'BEGIN {
	for (i = 1; i <= 2000; i++)
		printf " iteration %6d/   2000 | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | lm loss: %.4E |\n", i, 1200 + i % 50, 400 + i % 20, 8 - i / 400
}' >"$s/train-big"
i=0
while [ $i -lt 48 ]; do
	o=$(printf '%03o' $i)
	for f in "$s"/*; do
		{ printf "\\$o"; cat "$f"; } >"$dir/$(basename "$f")-$i"
	done
	i=$((i + 1))
done
