/* wl_slurm_container.c: SlurmContainer, a user's shell command run as is
 * inside the test's container (plus the test's own extra_srun_args, which
 * the Slurm writer adds to every srun of the test). */
#include <stddef.h>

#include "workload.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"cmd", ARG_STRING, NULL, NULL, true},
};

/* cmd is shell code by design: it is not quoted here, only for the contexts
 * it is later embedded in. */
static void
command(const struct run *r, struct buf *out)
{
	buf_puts(out, workload_value(r, "cmd"));
	workload_extra_args(r, ' ', out);
}

const struct workload wl_slurm_container = {
	.name = "SlurmContainer",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "slurm_container",
};
