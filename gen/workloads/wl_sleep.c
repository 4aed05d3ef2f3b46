/* wl_sleep.c: Sleep, `sleep <seconds>`; no container, runs anywhere. */
#include <stddef.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	{"seconds", ARG_INT, "5", NULL, false},
};

static void
command(const struct run *r, struct buf *out)
{
	buf_puts(out, "sleep ");
	sh_quote(out, workload_value(r, "seconds"));
}

const struct workload wl_sleep = {
	.name = "Sleep",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI,
	.container = false,
	.command = command,
	.grader = "sleep",
};
