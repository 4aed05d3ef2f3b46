/* wl_kunai_bisection.c: KunaiBisection, kunai's bisection bandwidth test
 * (workloads/bisection): rank r exchanges with rank r + n/2 over NCCL
 * send/recv, or MPI on the CPU; rows in nccl-tests' format. */
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

static const struct arg_schema args[] = {
	{"minbytes", ARG_SIZE, NULL, NULL, false},
	{"maxbytes", ARG_SIZE, NULL, NULL, false},
	{"stepfactor", ARG_INT, NULL, NULL, false},
	{"iters", ARG_INT, NULL, NULL, false},
	{"warmup", ARG_INT, NULL, NULL, false},
	{"check", ARG_INT, NULL, NULL, false},
	{"min_pair_bw", ARG_FLOAT, NULL, NULL, false},
	{"timeout", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	WL_KUNAI_MPI_ARGS,
};

static void
command(const struct run *r, struct buf *out)
{
	wl_kunai_command(r, out, "bisection", true);
}

const struct workload wl_kunai_bisection = {
	.name = "KunaiBisection",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.command = command,
	.ntasks = wl_kunai_ranks_per_gpu,
	.uses_mpi = wl_kunai_mpi,
	.all_of = wl_kunai_success,
	.none_of = wl_kunai_no_failure,
	.grader = "nccl",
};
