/* wl_kunai_train.c: KunaiTrainSmoke, kunai's training smoke test
 * (workloads/train_smoke): a tiny MLP on one GPU per node, or the CPU. */
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

static const struct arg_schema args[] = {
	{"samples", ARG_INT, NULL, NULL, false},
	{"test_samples", ARG_INT, NULL, NULL, false},
	{"batch", ARG_INT, NULL, NULL, false},
	{"epochs", ARG_INT, NULL, NULL, false},
	{"steps", ARG_INT, NULL, NULL, false},
	{"lr", ARG_FLOAT, NULL, NULL, false},
	{"momentum", ARG_FLOAT, NULL, NULL, false},
	{"seed", ARG_INT, NULL, NULL, false},
	{"max_loss_ratio", ARG_FLOAT, NULL, NULL, false},
	{"min_accuracy", ARG_FLOAT, NULL, NULL, false},
	{"device", ARG_INT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
};

static void
command(const struct run *r, struct buf *out)
{
	wl_kunai_command(r, out, "train_smoke", false);
}

const struct workload wl_kunai_train = {
	.name = "KunaiTrainSmoke",
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
