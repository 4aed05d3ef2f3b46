/* grade_family_test: the graders of CloudAI's workload families (Fio, NIXL,
 * DeepEP, training, JaxToolbox, ChakraReplay, the serving ones, NixlEP,
 * MoEBenchmark, NixlPerftest) on
 * fabricated output and run dirs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/results.h"
#include "reports/grade/parse.h"
#include "reports/grade/grade.h"
#include "tap.h"
#include "grade_helpers.h"
#include "gen/base/util.h"

static void
test_serve(const char *tmp)
{
	struct arena a = {0};
	struct plan_arg args[] = {{"workloads", "aiperf.sh"}, {"aiperf_accuracy.cli", "--model {model}"}};
	static size_t runs[] = {0};
	struct plan_test t = {"dyn", "AIDynamo", NULL, 0, runs, 1, NULL, 0, NULL, {0}};
	struct plan_run r = {"dyn/0", "dyn", 0, 0, 0, args, 2};
	struct plan p = {"s", "slurm", NULL, &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0};
	static const char passed[] = "{\"outcome\": \"passed\", \"exit_code\": 0}";

	buf_printf(&dir, "%s/dyn/0", tmp);
	put(dir.data, "job.json", passed);
	put(dir.data, "aiperf_report.csv",
	    "Metric,avg,min,max,p99,p90,p50,std\n"
	    "Time to First Token (ms),45.5,20.1,90.0,88.0,70.0,44.0,3.0\n"
	    "Inter Token Latency (ms),\"1,234.5\",1.0,9.0,8.5,7.5,6.5,0.5\n"
	    "\n"
	    "Metric,Value\n"
	    "Output Token Throughput (tokens/sec),2048.25\n"
	    "Request Throughput (requests/sec),12.5\n"
	    "Request Count (count),50\n");
	put(dir.data, "accuracy_results.csv", "Task,Correct,Total,Accuracy\nabstract_algebra,35,100,35.00%\nOVERALL,59,100,59.00%\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "AIDynamo with its aiperf report passes (%s)", rep.reason ? rep.reason : "");
	ok(near(metric(&rep, "ttft_avg"), 45.5) && near(metric(&rep, "ttft_p99"), 88) && near(metric(&rep, "ttft_p50"), 44) &&
	       near(metric(&rep, "itl_avg"), 1234.5) && near(metric(&rep, "itl_p90"), 7.5),
	   "TTFT and ITL average and percentiles (a quoted 1,234.5 read as CloudAI reads it)");
	ok(near(metric(&rep, "output_token_throughput"), 2048.25) && near(metric(&rep, "request_throughput"), 12.5) &&
	       near(metric(&rep, "request_count"), 50),
	   "throughput, request rate and count from aiperf's second table");
	ok(near(metric(&rep, "accuracy"), 0.59), "accuracy: the OVERALL row, as a fraction");

	t.workload = "DynamoMocker";
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "no benchmark_report.csv"),
	   "DynamoMocker without benchmark_report.csv fails (%s)", rep.reason ? rep.reason : "");

	t.workload = "Aiconfigurator";
	put(dir.data, "report.json", "{\"ttft_ms\": 120.5, \"tpot_ms\": 9.25, \"tokens_per_s_per_gpu\": 800,"
	                              " \"tokens_per_s_per_user\": \"fast\", \"oom\": false}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED && near(metric(&rep, "ttft_ms"), 120.5) && near(metric(&rep, "tpot_ms"), 9.25) &&
	       near(metric(&rep, "tokens_per_s_per_gpu"), 800) && metric(&rep, "tokens_per_s_per_user") < 0,
	   "Aiconfigurator's numbers from report.json (a string is no number)");
	put(dir.data, "report.json", "not json");
	put(dir.data, "stdout.txt", "predicting\n{\"ttft_ms\": 7}\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(near(metric(&rep, "ttft_ms"), 7), "else the last JSON line of stdout");
	put(dir.data, "stdout.txt", "crashed\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED, "no results at all: failed (%s)", rep.reason ? rep.reason : "");
	buf_free(&dir);
	arena_free(&a);
}

/* Two nodes' GEMM lines (GPU path), references per GPU model: the slow
 * GPU is named with its node, index and the numbers. */
static void
test_fio(void)
{
	static const char rw[] =
		"fio-smoke: (g=0): rw=randrw, bs=(R) 128KiB-128KiB, ioengine=psync, iodepth=1\n"
		"fio-smoke: (groupid=0, jobs=1): err= 0: pid=42: Mon Jan  1 00:00:00 2024\n"
		"  read: IOPS=12.3k, BW=1536MiB/s (1611MB/s)(80.0MiB/52msec)\n"
		"    slat (nsec): min=900, max=4000, avg=1200.50, stdev=10.00\n"
		"    clat (usec): min=50, max=900, avg=75.25, stdev=30.00\n"
		"     lat (usec): min=55, max=905, avg= 80.50, stdev=30.10\n"
		"    clat percentiles (usec):\n"
		"     |  1.00th=[   50],  5.00th=[   53], 10.00th=[   59], 50.00th=[   71],\n"
		"     | 99.00th=[  135], 99.50th=[  140], 99.90th=[  326], 99.95th=[  326],\n"
		"  write: IOPS=950, BW=118.8KiB/s (121kB/s)(80.0MiB/519msec); 0 zone resets\n"
		"    clat (msec): min=1, max=9, avg= 2.50, stdev= 0.50\n"
		"Run status group 0 (all jobs):\n"
		"   READ: bw=1536MiB/s (1611MB/s), io=80.0MiB (83.9MB), run=52-52msec\n";
	struct fio_op ops[4];
	size_t n = fio_parse(rw, strlen(rw), ops, 4);

	ok(n == 2, "fio: two operations (%zu)", n);
	ok(n == 2 && strcmp(ops[0].name, "read") == 0 && near(ops[0].iops, 12300) && near(ops[0].bw_mib, 1536),
	   "fio: read IOPS=12.3k, 1536 MiB/s");
	ok(n == 2 && near(ops[0].lat_usec, 80.5), "fio: lat wins over clat, padded avg read (%g)", ops[0].lat_usec);
	ok(n == 2 && near(ops[1].bw_mib, 118.8 / 1024) && near(ops[1].lat_usec, 2500),
	   "fio: write KiB/s and clat in msec converted (%g MiB/s, %g us)", ops[1].bw_mib, ops[1].lat_usec);
	ok(n == 2 && near(ops[0].p50_usec, 71) && near(ops[0].p99_usec, 135) && near(ops[0].p999_usec, 326) &&
	       ops[1].p50_usec < 0,
	   "fio: clat percentiles p50, p99, p99.9 of the operation above them");
	ok(fio_parse("", 0, ops, 4) == 0, "fio: empty output has no summary");
	ok(fio_parse("  write: IOPS=, BW=\n", 20, ops, 4) == 0, "fio: a truncated summary line is not one");
	ok(fio_parse("  write: IOPS=5, BW=3parsecs/s\n", 31, ops, 4) == 0, "fio: an unknown unit is not a summary");
}

/* nixlbench's table, both layouts CloudAI reads, and output without one */
static void
test_nixl(void)
{
	static const char six[] =
		"Block Size (B)      Batch Size     Avg Lat. (us)  Avg Prep (us)  P99 Prep (us)  B/W (GB/Sec)\n"
		"--------------------------------------------------------------------------------\n"
		"4096                1              3.25           0.50           0.90           1.2600\n"
		"1048576             1              45.00          0.50           0.90           23.3000\n";
	static const char ten[] =
		"Block Size (B)      Batch Size     B/W (GB/Sec)   Avg Lat. (us)  a  b  c  d  e  f\n"
		"65536               4              12.5           20.25          1  2  3  4  5  6\n";
	grader_fn *g = grader_find("nixl");
	struct arena a = {0};
	struct run_report rep;

	ok(g != NULL, "nixl: a grader");
	if (!g)
		return;
	memset(&rep, 0, sizeof(rep));
	rep.outcome = OUTCOME_PASSED;
	g(&a, NULL, ".", six, strlen(six), &rep);
	ok(rep.n_metrics == 4 && rep.outcome == OUTCOME_PASSED, "nixl: two rows, latency and bandwidth each");
	ok(rep.n_metrics == 4 && near(rep.metrics[2].value, 45.0) && near(rep.metrics[3].value, 23.3) &&
	       near(rep.metrics[3].x, 1048576) && strcmp(rep.metrics[3].unit, "GB/s") == 0,
	   "nixl: 6 columns: latency third, bandwidth last, per block size");
	memset(&rep, 0, sizeof(rep));
	rep.outcome = OUTCOME_PASSED;
	g(&a, NULL, ".", ten, strlen(ten), &rep);
	ok(rep.n_metrics == 2 && near(rep.metrics[0].value, 20.25) && near(rep.metrics[1].value, 12.5),
	   "nixl: 10 columns: bandwidth third, latency fourth");
	memset(&rep, 0, sizeof(rep));
	rep.outcome = OUTCOME_PASSED;
	g(&a, NULL, ".", "4096 1 3.25 0 0 1.26\n", 21, &rep);
	ok(rep.n_metrics == 0 && rep.outcome == OUTCOME_FAILED, "nixl: rows without the header are not results");
	arena_free(&a);
}

/* DeepEP's tuning summaries (two nodes' rank 0) and low-latency lines */
static void
test_deepep(void)
{
	static const char out[] =
		"[tuning] SMs 24, NVL chunk 8, RDMA chunk 16: 40.00 GB/s (RDMA), 130.00 GB/s (NVL)\n"
		"[tuning] Best dispatch (BF16): SMs 16, NVL chunk 20, RDMA chunk 16: 43.24 GB/s (RDMA), 141.14 GB/s (NVL)\n"
		"[tuning] Best dispatch (BF16): SMs 16, NVL chunk 20, RDMA chunk 16: 42.76 GB/s (RDMA), 140.86 GB/s (NVL)\n"
		"[tuning] Best combine: SMs 24, NVL chunk 16: 36.64 GB/s (NVL)\n"
		"[rank 0] Dispatch + combine bandwidth: 45.00 GB/s, avg_t=100.00 us\n"
		"[rank 1] Dispatch + combine bandwidth: 47.00 GB/s, avg_t=98.00 us\n"
		"[rank 0] Dispatch bandwidth: 40.50 GB/s, avg_t=10 us | Combine bandwidth: 50.25 GB/s, avg_t=12 us\n";
	grader_fn *g = grader_find("deepep");
	struct arena a = {0};
	struct run_report rep;

	ok(g != NULL, "deepep: a grader");
	if (!g)
		return;
	memset(&rep, 0, sizeof(rep));
	rep.outcome = OUTCOME_PASSED;
	g(&a, NULL, ".", out, strlen(out), &rep);
	ok(near(metric(&rep, "dispatch_rdma_bw"), 43.0) && near(metric(&rep, "dispatch_nvl_bw"), 141.0),
	   "deepep: the nodes' best dispatch, averaged (%g, %g)", metric(&rep, "dispatch_rdma_bw"),
	   metric(&rep, "dispatch_nvl_bw"));
	ok(near(metric(&rep, "combine_nvl_bw"), 36.64) && metric(&rep, "combine_rdma_bw") < 0,
	   "deepep: intranode combine has NVL only");
	ok(near(metric(&rep, "ll_dispatch_combine_bw"), 46.0) && near(metric(&rep, "ll_dispatch_bw"), 40.5) &&
	       near(metric(&rep, "ll_combine_bw"), 50.25),
	   "deepep: low-latency bandwidths, both halves of one line");
	ok(rep.n_metrics == 6, "deepep: a tuning step that is not the best is no metric (%zu)", rep.n_metrics);
	arena_free(&a);
}

static void
test_train(void)
{
	struct train_result t;
	struct buf b = {0};
	int i;
	const char *nl = "x\ntrain_step_timing in s: [2.0, 1.0, 3.0, 5.0]\n",
		   *mlm = " iteration 6/100 | elapsed time per iteration (ms): 15639.0 | throughput per GPU "
		          "(TFLOP/s/GPU): 494.6 |\n";

	ok(train_parse(TRAIN_NEMO_LAUNCHER, nl, strlen(nl), &t) &&
	       t.steps == 4 && near(t.step_time, 2.5) && !t.has_tflops,
	   "NeMoLauncher: the median of the list (%g)", t.step_time);
	for (i = 1; i <= 120; i++)
		buf_printf(&b, "%s%g", i > 1 ? ", " : "train_step_timing in s: [", i <= 100 ? 9.0 : 1.0);
	buf_puts(&b, "]\n");
	ok(train_parse(TRAIN_NEMO_LAUNCHER, b.data, b.len, &t) && t.steps == 120 && near(t.step_time, 1.0),
	   "NeMoLauncher: of more than 100 steps, the last 20 count");
	b.len = 0;
	for (i = 1; i <= 5; i++)
		buf_printf(&b, "Epoch 0: global_step: %d | reduced_train_loss: %d.5 | train_step_timing in s: %s\n", i,
		           10 - i, i == 1 ? "30.0" : "2.0");
	ok(train_parse(TRAIN_NEMO_RUN, b.data, b.len, &t) && t.steps == 5 && near(t.step_time, 2.0) &&
	       t.has_loss && near(t.loss, 5.5),
	   "NeMoRun: all steps but the first, and the last loss");
	b.len = 0;
	for (i = 70; i <= 100; i++)
		buf_printf(&b, "global_step: %d | train_step_timing in s: %s\n", i, i < 80 ? "7.0" : "3.0");
	ok(train_parse(TRAIN_NEMO_RUN, b.data, b.len, &t) && near(t.step_time, 3.0), "NeMoRun: steps 80-100 when there are 20");
	b.len = 0;
	for (i = 1; i <= 12; i++)
		buf_printf(&b, "Step Time : %s s | GPU utilization: %d.0 MODEL_TFLOP/s/GPU | lm loss: 1.25E+00\n",
		           i <= 2 ? "99.0" : "4.0", i <= 2 ? 1 : 500);
	ok(train_parse(TRAIN_MBRIDGE, b.data, b.len, &t) && near(t.step_time, 4.0) && near(t.tflops_per_gpu, 500) &&
	       near(t.loss, 1.25),
	   "Megatron-Bridge: the last 10 steps' time and TFLOP/s, Megatron's loss");
	ok(train_parse(TRAIN_MEGATRON, mlm, strlen(mlm), &t) &&
	       near(t.step_time, 15.639) && near(t.tflops_per_gpu, 494.6),
	   "Megatron-LM: ms per iteration as seconds, TFLOP/s per GPU");
	ok(!train_parse(TRAIN_NEMO_RUN, "nothing here\n", 13, &t), "a log without steps or loss is not parsed");
	/* no step lines: the step series is empty (NULL), which clang's UBSan
	 * once caught the mean being taken of (NULL + 0) */
	ok(train_parse(TRAIN_MEGATRON, "lm loss: 2.5E+00\n", 17, &t) && !t.has_step_time && !t.has_tflops &&
	       near(t.loss, 2.5),
	   "Megatron-LM: a log with a loss and no step lines");
	ok(train_parse(TRAIN_MBRIDGE, "lm loss: 1.5\n", 13, &t) && !t.has_step_time, "Megatron-Bridge: no step lines");
	buf_free(&b);
}

/* The metric named name (node NULL: the run's), or NULL. */
static void
test_jax(void)
{
	grader_fn *g = grader_find("jax_toolbox");
	struct plan_arg off = {"enable_pgle", "False"};
	struct plan_run r = {0}, nopgle = {0};
	struct run_report rep;
	struct arena a = {0};
	struct buf b = {0};
	const struct metric *m;
	int i, node;

	nopgle.args = &off;
	nopgle.n_args = 1;
	buf_puts(&b, "==> profile_stderr_0.txt <==\n[PAX STATUS]: E2E time: Elapsed time for <_main>: 80 seconds\n");
	for (node = 0; node < 2; node++) {
		buf_printf(&b, "==> error-7-%d-%d.txt <==\n", node, node);
		for (i = 1; i <= 12; i++)
			buf_printf(&b, "I1 [PAX STATUS]: train_step() took %s seconds\n",
			           i <= 10 ? "50.0" : node ? "3.0" : "1.0");
		buf_puts(&b, "[PAX STATUS]: E2E time: Elapsed time for <_main>: 99 seconds\n\n");
	}
	memset(&rep, 0, sizeof(rep));
	g(&a, &r, ".", b.data, b.len, &rep);
	ok(rep.outcome == OUTCOME_PASSED && (m = metric_of(&rep, "step_time_s", NULL)) && near(m->value, 2.0) &&
	       (m = metric_of(&rep, "steps", NULL)) && near(m->value, 4) &&
	       (m = metric_of(&rep, "step_time_max_s", NULL)) && near(m->value, 3.0),
	   "JaxToolbox: steps after the first 10 of each task log, over the run");
	ok((m = metric_of(&rep, "node_step_time_s", "node 1")) && near(m->value, 3.0) &&
	       (m = metric_of(&rep, "node_step_time_s", "node 0")) && near(m->value, 1.0),
	   "JaxToolbox: the mean per node, named by the file's node index");
	memset(&rep, 0, sizeof(rep));
	g(&a, &r, ".", strstr(b.data, "==> error-7-0"), strlen(strstr(b.data, "==> error-7-0")), &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "profile_stderr"),
	   "JaxToolbox: with PGLE, no profile log fails the run (%s)", rep.reason ? rep.reason : "");
	memset(&rep, 0, sizeof(rep));
	g(&a, &nopgle, ".", strstr(b.data, "==> error-7-0"), strlen(strstr(b.data, "==> error-7-0")), &rep);
	ok(rep.outcome == OUTCOME_PASSED, "JaxToolbox: without PGLE, no profile log is expected");
	b.len = 0;
	buf_puts(&b, "==> profile_stderr_0.txt <==\n[PAX STATUS]: E2E time: Elapsed time for <_main>: 1 s\n"
	             "==> error-7-0-0.txt <==\nTerminating process because the coordinator detected missing heartbeats\n");
	memset(&rep, 0, sizeof(rep));
	g(&a, &r, ".", b.data, b.len, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "error-7-0-0.txt: the coordinator"),
	   "JaxToolbox: a known error in a task log fails the run, named (%s)", rep.reason ? rep.reason : "");
	buf_free(&b);
	arena_free(&a);
}

/* ChakraReplay: comm_replay's counts, latency and tensor size tables. */
static void
test_chakra(void)
{
	static const char out[] =
		"Hello from Rank 0: [Rank   0]\n"
		"+++++++++++++++\n"
		"+ 10 all_reduce\n"
		"Input tensors\n"
		"   40.0  8.0  2.0  4.0  4.0  8.0\n"
		"Output tensors\n"
		"   20.0  4.0  1.0  2.0  2.0  4.0\n"
		"Performance of replayed comms\n"
		"Replayed 10 all_reduce\n"
		"Latency (us)\n"
		"   1200.5  300.0  50.0  120.05  100.0  290.0\n"
		"\n"
		"Replayed 4 all_to_all\n"
		"Replayed 6 all_to_all\n";
	grader_fn *g = grader_find("chakra_replay");
	struct plan_run r = {0};
	struct run_report rep;
	struct arena a = {0};
	const struct metric *m;

	memset(&rep, 0, sizeof(rep));
	g(&a, &r, ".", out, strlen(out), &rep);
	ok((m = metric_of(&rep, "all_reduce_count", NULL)) && near(m->value, 10) &&
	       (m = metric_of(&rep, "all_to_all_count", NULL)) && near(m->value, 6),
	   "ChakraReplay: replay counts per op (the last one stands)");
	ok((m = metric_of(&rep, "all_reduce_latency_avg_us", NULL)) && near(m->value, 120.05) &&
	       (m = metric_of(&rep, "all_reduce_latency_p95_us", NULL)) && near(m->value, 290.0),
	   "ChakraReplay: the latency table of the op named before it");
	ok((m = metric_of(&rep, "all_reduce_input_total_mb", NULL)) && near(m->value, 40.0) &&
	       (m = metric_of(&rep, "all_reduce_output_avg_mb", NULL)) && near(m->value, 2.0),
	   "ChakraReplay: input and output tensor sizes");
	arena_free(&a);
}

/* NIXL EP's node logs: the summaries of two nodes, a log without one, a
 * planned removal's srun lines, the launcher's message on stdout. */
static void
test_nixl_ep(const char *tmp)
{
	struct arena a = {0};
	struct plan_arg args[] = {{"plan", "[[0, 1], [0, 1, 2, 3]]"}};
	static size_t runs[] = {0};
	struct plan_test t = {"ep", "NixlEP", NULL, 0, runs, 1, NULL, 0, NULL, {0}};
	struct plan_run r = {"ep/0", "ep", 0, 0, 0, args, 1};
	struct plan p = {"s", "slurm", NULL, &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0}, path = {0};
	static const char passed[] = "{\"outcome\": \"passed\", \"exit_code\": 0}";
	static const char node0[] = "-> begin phase 0\n"
	                            "[rank 0] Dispatch + combine bandwidth: 40.0 GB/s, avg_t=100 us, min_t=90 us, max_t=110.5 us\n"
	                            "[rank 1] Dispatch + combine bandwidth: 50 GB/s, avg_t=80 us, min_t=70 us, max_t=90.5 us\n"
	                            "-> end phase 0\n-> end phase 1\n";
	static const char terminated[] = "srun: error: node2: task 0: Terminated\n"
	                                 "srun: Terminating StepId=12.3\n"
	                                 "srun: Force Terminated StepId=12.3\n";

	buf_printf(&dir, "%s/ep", tmp);
	mkdir(dir.data, 0777);
	buf_puts(&dir, "/0");
	mkdir(dir.data, 0777);
	put(dir.data, "job.json", passed);
	put(dir.data, "stdout.txt", "All NIXL EP launches completed successfully\n");
	put(dir.data, "nixl-ep-node-0.log", node0);
	put(dir.data, "nixl-ep-node-1.log",
	    "[rank 2] Dispatch + combine bandwidth: 60 GB/s, avg_t=60 us, min_t=50 us, max_t=70 us\n"
	    "[rank 2] Dispatch bandwidth: 30.5 GB/s, avg_t=12 us | Combine bandwidth: 20 GB/s\n"
	    "[rank 3] Dispatch bandwidth: 31.5 GB/s | Combine bandwidth: 22 GB/s, avg_t=9 us\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "NIXL EP with both nodes' summaries passes (%s)", rep.reason ? rep.reason : "");
	ok(near(metric(&rep, "default"), 50) && near(metric(&rep, "dispatch_combine_bw"), 50) &&
	       near(metric(&rep, "avg_t"), 80) && near(metric(&rep, "min_t"), 70) && near(metric(&rep, "max_t"), 271.0 / 3),
	   "NIXL EP: default is the mean dispatch + combine bandwidth of every rank's summary, times their means");
	ok(near(metric(&rep, "dispatch_bw"), 31) && near(metric(&rep, "combine_bw"), 21), "NIXL EP: kineto's bandwidths");
	ok(near(metric(&rep, "phases_completed"), 2), "NIXL EP: the phases node 0 ended");

	put(dir.data, "nixl-ep-node-1.log", "-> begin phase 1\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "no bandwidth summary") && strstr(rep.reason, "nixl-ep-node-1.log"),
	   "NIXL EP: a node log without a summary fails (%s)", rep.reason ? rep.reason : "");

	buf_printf(&path, "%s%s", node0, terminated);
	put(dir.data, "nixl-ep-node-1.log", path.data);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "Slurm reported an srun failure"),
	   "NIXL EP: srun's termination without a planned removal fails (%s)", rep.reason ? rep.reason : "");
	args[0].value = "[[0, 1], [0, -1, 2, 3]]";
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "NIXL EP: with a planned removal, srun's three termination lines are expected (%s)",
	   rep.reason ? rep.reason : "");
	path.len = 0;
	buf_printf(&path, "%ssrun: error: node2: task 0: Exited with exit code 1\n", terminated);
	put(dir.data, "nixl-ep-node-1.log", path.data);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "srun failure"),
	   "NIXL EP: ... but not any other srun line (%s)", rep.reason ? rep.reason : "");

	put(dir.data, "nixl-ep-node-1.log", node0);
	put(dir.data, "stdout.txt", "Primary NIXL EP launch exited before phase 1 completed\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "before phase 1 completed"),
	   "NIXL EP: the launcher's message on stdout fails the run (%s)", rep.reason ? rep.reason : "");

	put(dir.data, "stdout.txt", "\n");
	path.len = 0;
	buf_printf(&path, "%s/nixl-ep-node-0.log", dir.data);
	unlink(path.data);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "no nixl-ep-node-0.log") && metric(&rep, "default") < 0,
	   "NIXL EP: no log of node 0, no result (%s)", rep.reason ? rep.reason : "");
	buf_free(&dir);
	buf_free(&path);
	arena_free(&a);
}

/* A run dir tmp/<id>/0 with a passed job.json and stdout.txt text. */
static void
run_dir(const char *tmp, const char *id, const char *stdout_text, struct buf *dir)
{
	dir->len = 0;
	buf_printf(dir, "%s/%s", tmp, id);
	mkdir(dir->data, 0777);
	buf_puts(dir, "/0");
	mkdir(dir->data, 0777);
	put(dir->data, "job.json", "{\"outcome\": \"passed\", \"exit_code\": 0}");
	put(dir->data, "stdout.txt", stdout_text);
}

static void
test_moe(const char *tmp)
{
	struct arena a = {0};
	static size_t runs[] = {0};
	struct plan_test t = {"moe", "MoEBenchmark", NULL, 0, runs, 1, NULL, 0, NULL, {0}};
	struct plan_run r = {"moe/0", "moe", 0, 0, 0, NULL, 0};
	struct plan p = {"s", "slurm", NULL, &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0}, sub = {0};
	const struct metric *m;

	run_dir(tmp, "moe", "Bus BW (GB/s): 1\n", &dir);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "MoEBenchmark: no results.json"),
	   "MoEBenchmark: no results.json fails (%s)", rep.reason ? rep.reason : "");

	buf_printf(&sub, "%s/results", dir.data);
	mkdir(sub.data, 0777);
	buf_puts(&sub, "/benchmark_16_ranks_20260101_120000_standard");
	mkdir(sub.data, 0777);
	put(sub.data, "results.json",
	    "[{\"backend\": \"legacy\", \"operation\": \"dispatch\", \"bus_bw_avg\": 120.5, \"bus_bw_min\": 110,"
	    " \"bus_bw_max\": 130, \"time_s\": 0.00025, \"separate_nvl_bw\": 300, \"separate_rdma_bw\": 45.5},"
	    " {\"backend\": \"legacy\", \"operation\": \"combine\", \"bus_bw_avg\": 99},"
	    " {\"backend\": \"nixl_ep\", \"operation\": \"dispatch\", \"bus_bw_avg\": \"n/a\", \"global_bw\": 7},"
	    " {\"backend\": \"a b\", \"operation\": \"dispatch\", \"bus_bw_avg\": 1}, 3]");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "MoEBenchmark: results/benchmark_*_ranks_*/results.json passes (%s)",
	   rep.reason ? rep.reason : "");
	m = metric_of(&rep, "legacy_dispatch_bus_bw", NULL);
	ok(m && near(m->value, 120.5) && strcmp(m->unit, "GB/s") == 0 && m->x < 0,
	   "MoEBenchmark: a row's bus_bw_avg is <backend>_<operation>_bus_bw in GB/s, run-wide");
	ok(near(metric(&rep, "legacy_dispatch_bus_bw_min"), 110) && near(metric(&rep, "legacy_dispatch_bus_bw_max"), 130) &&
	       near(metric(&rep, "legacy_dispatch_nvl_bw"), 300) && near(metric(&rep, "legacy_dispatch_rdma_bw"), 45.5) &&
	       near(metric(&rep, "legacy_combine_bus_bw"), 99) && near(metric(&rep, "nixl_ep_dispatch_global_bw"), 7),
	   "MoEBenchmark: min, max, NVLink and RDMA split, global bandwidth, per backend and operation");
	m = metric_of(&rep, "legacy_dispatch_time", NULL);
	ok(m && near(m->value, 0.00025) && strcmp(m->unit, "s") == 0, "MoEBenchmark: time_s in s");
	ok(metric(&rep, "nixl_ep_dispatch_bus_bw") < 0 && metric(&rep, "a b_dispatch_bus_bw") < 0,
	   "MoEBenchmark: a bandwidth that is no number, or a backend no metric can be named after, is left out");

	sub.len = 0;
	buf_printf(&sub, "%s/benchmark_16_ranks_20260102_low_latency", dir.data);
	mkdir(sub.data, 0777);
	put(sub.data, "results.json", "[{\"backend\": \"legacy\", \"operation\": \"dispatch\", \"bus_bw_avg\": 60}]");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED && near(metric(&rep, "legacy_dispatch_bus_bw"), 60) &&
	       near(metric(&rep, "legacy_combine_bus_bw"), 99),
	   "MoEBenchmark: a top-level benchmark dir is read after results/, a later row replacing an earlier one");

	put(sub.data, "results.json", "{\"backend\": \"legacy\"");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "benchmark_16_ranks_20260102_low_latency/results.json is not a JSON list"),
	   "MoEBenchmark: a malformed results.json fails, named (%s)", rep.reason ? rep.reason : "");

	put(sub.data, "results.json", "[]");
	buf_printf(&dir, "/results/benchmark_16_ranks_20260101_120000_standard");
	put(dir.data, "results.json", "[{\"backend\": \"legacy\", \"operation\": \"dispatch\"}]");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "no result row with backend, operation and bus_bw_avg"),
	   "MoEBenchmark: results without a bus bandwidth fail (%s)", rep.reason ? rep.reason : "");
	buf_free(&dir);
	buf_free(&sub);
	arena_free(&a);
}

static void
test_nixl_perftest(const char *tmp)
{
	struct arena a = {0};
	static size_t runs[] = {0};
	struct plan_test t = {"np", "NixlPerftest", NULL, 0, runs, 1, NULL, 0, NULL, {0}};
	struct plan_run r = {"np/0", "np", 0, 0, 0, NULL, 0};
	struct plan p = {"s", "slurm", NULL, &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0};
	const struct metric *m;
	size_t i, n;

	run_dir(tmp, "np", "done\n", &dir);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "NixlPerftest: no results.json"),
	   "NixlPerftest: no results.json fails (%s)", rep.reason ? rep.reason : "");

	put(dir.data, "results.json",
	    "{\"iterations_results\": ["
	    "[{\"size\": 2.5, \"latency\": 10, \"isolated_latency\": 8, \"num_senders\": 4, \"mean_bw\": 40},"
	    " {\"size\": 1, \"latency\": null, \"isolated_latency\": 3, \"mean_bw\": 20}],"
	    "[{\"size\": 2.5, \"latency\": 14, \"isolated_latency\": 8, \"mean_bw\": 50},"
	    " {\"size\": 1, \"latency\": 6, \"isolated_latency\": 3, \"mean_bw\": 30}]],"
	    " \"metadata\": {\"ts\": 1}}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "NixlPerftest: results.json passes (%s)", rep.reason ? rep.reason : "");
	m = metric_of(&rep, "default", NULL);
	ok(m && near(m->value, 35) && strcmp(m->unit, "GB/s") == 0, "NixlPerftest: default is the mean mean_bw");
	for (i = n = 0; i < rep.n_metrics; i++) {
		m = &rep.metrics[i];
		if (m->x_name && strcmp(m->x_name, "pattern") == 0 &&
		    ((strcmp(m->name, "latency") == 0 && strcmp(m->unit, "ms") == 0 &&
		      near(m->value, m->x == 0 ? 12 : 6)) ||
		     (strcmp(m->name, "isolated_latency") == 0 && near(m->value, m->x == 0 ? 8 : 3)) ||
		     (strcmp(m->name, "bandwidth") == 0 && strcmp(m->unit, "GB/s") == 0 &&
		      near(m->value, m->x == 0 ? 45 : 25)) ||
		     (strcmp(m->name, "transfer_size") == 0 && strcmp(m->unit, "GB") == 0 &&
		      near(m->value, m->x == 0 ? 2.5 : 1))))
			n++;
	}
	ok(n == 8, "NixlPerftest: each pattern's means over the iterations, at x = its index (%zu of 8)", n);

	put(dir.data, "results.json", "{\"iterations_results\": [[{\"size\": 1}]]}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "no traffic pattern with mean_bw"),
	   "NixlPerftest: no bandwidth fails (%s)", rep.reason ? rep.reason : "");
	put(dir.data, "results.json", "[1, 2");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "not an object with a list iterations_results"),
	   "NixlPerftest: a malformed results.json fails (%s)", rep.reason ? rep.reason : "");
	buf_free(&dir);
	arena_free(&a);
}

int
main(void)
{
	char tmp[] = "/tmp/grade_family_test.XXXXXX";

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_fio();
	test_nixl();
	test_deepep();
	test_train();
	test_jax();
	test_chakra();
	test_serve(tmp);
	test_nixl_ep(tmp);
	test_moe(tmp);
	test_nixl_perftest(tmp);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return tap_done();
}
