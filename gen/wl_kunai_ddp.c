/* wl_kunai_ddp.c: KunaiDdpSmoke, kunai's data-parallel training smoke test
 * (workloads/ddp_smoke): one MPI rank per GPU, gradients all-reduced with
 * NCCL, or with MPI on the CPU. */
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

static const struct arg_schema args[] = {
	{"samples", ARG_INT, NULL, NULL, false},
	{"batch", ARG_INT, NULL, NULL, false},
	{"epochs", ARG_INT, NULL, NULL, false},
	{"steps", ARG_INT, NULL, NULL, false},
	{"lr", ARG_FLOAT, NULL, NULL, false},
	{"momentum", ARG_FLOAT, NULL, NULL, false},
	{"seed", ARG_INT, NULL, NULL, false},
	{"max_loss_ratio", ARG_FLOAT, NULL, NULL, false},
	{"min_accuracy", ARG_FLOAT, NULL, NULL, false},
	{"max_param_spread", ARG_FLOAT, NULL, NULL, false},
	{"timeout", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	WL_KUNAI_MPI_ARGS,
};

static void
command(const struct run *r, struct buf *out)
{
	wl_kunai_command(r, out, "ddp_smoke", true);
}

const struct workload wl_kunai_ddp = {
	.name = "KunaiDdpSmoke",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.command = command,
	.ntasks = wl_kunai_ranks_per_gpu,
	.uses_mpi = wl_kunai_mpi,
	.all_of = wl_kunai_success,
	.none_of = wl_kunai_no_failure,
	.grader = "kunai",
};
