/* wl_kunai_gemm.c: KunaiGemm, kunai's GEMM throughput test (workloads/gemm):
 * one process per node drives every GPU of it, or the CPU path. */
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

static const struct arg_schema args[] = {
	{"size", ARG_INT, NULL, NULL, false},
	{"m", ARG_INT, NULL, NULL, false},
	{"n", ARG_INT, NULL, NULL, false},
	{"k", ARG_INT, NULL, NULL, false},
	{"precision", ARG_STRING, NULL, NULL, false}, /* fp64,fp32,tf32,bf16,fp16 */
	{"warmup", ARG_INT, NULL, NULL, false},
	{"iters", ARG_INT, NULL, NULL, false},
	{"reps", ARG_INT, NULL, NULL, false},
	{"threads", ARG_INT, NULL, NULL, false},
	{"min_tflops", ARG_STRING, NULL, NULL, false}, /* X, or bf16=600,fp32=40 */
	{"max_spread", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
};

static void
command(const struct run *r, struct buf *out)
{
	wl_kunai_command(r, out, "gemm", false);
}

const struct workload wl_kunai_gemm = {
	.name = "KunaiGemm",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.command = command,
	.ntasks = wl_kunai_one_per_node,
	.uses_mpi = wl_kunai_no_mpi,
	.all_of = wl_kunai_success,
	.none_of = wl_kunai_no_failure,
	.grader = "kunai",
};
