/* wl_kunai_health.c: KunaiHealth, kunai's GPU inventory and health gates
 * (workloads/health), one process per node. A machine without nvidia-smi
 * prints [RESULT] SKIPPED unless GPUs are expected: that passes, so the
 * default local campaign can start with it on a machine without GPUs. */
#include "util.h"
#include "wl_kunai.h"
#include "workload.h"

static const struct arg_schema args[] = {
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"nvidia_smi", ARG_STRING, NULL, NULL, false},
	{"no_dmesg", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
};

/* SUCCESS or SKIPPED: some result, and not a failure */
static const char *const all_of[] = {"[RESULT] ", NULL};

static void
command(const struct run *r, struct buf *out)
{
	wl_kunai_command(r, out, "health", false);
}

const struct workload wl_kunai_health = {
	.name = "KunaiHealth",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.command = command,
	.ntasks = wl_kunai_one_per_node,
	.uses_mpi = wl_kunai_no_mpi,
	.all_of = all_of,
	.none_of = wl_kunai_no_failure,
	.grader = "kunai",
};
