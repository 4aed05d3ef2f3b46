/* wl_bash_cmd.c: BashCmd, a user's shell command run by the job script
 * itself, outside any srun or container. */
#include <stddef.h>

#include "workload.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	{"cmd", ARG_STRING, NULL, NULL, true},
};

/* cmd is shell code by design; CloudAI appends no extra_cmd_args here. */
static void
command(const struct run *r, struct buf *out)
{
	buf_puts(out, workload_value(r, "cmd"));
}

const struct workload wl_bash_cmd = {
	.name = "BashCmd",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI,
	.container = false,
	.in_batch = true,
	.command = command,
	.grader = "bash_cmd",
};
