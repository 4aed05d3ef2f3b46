/* wl_ddlb.c: DDLBTest, the distributed deep-learning primitives benchmark
 * (ddlb/cli/benchmark.py in its container), as CloudAI's strategy builds it:
 * -m/-n/-k, --num-iterations/--num-warmups, every other argument --key. */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"primitive", ARG_STRING, NULL, NULL, true},
	{"m", ARG_INT, "1024", NULL, false},
	{"n", ARG_INT, "128", NULL, false},
	{"k", ARG_INT, "1024", NULL, false},
	{"dtype", ARG_STRING, NULL, NULL, true},
	{"num_iterations", ARG_INT, "50", NULL, false},
	{"num_warmups", ARG_INT, "5", NULL, false},
	{"impl", ARG_STRING, "pytorch;backend=nccl;order=AG_before", NULL, false},
};

static void
option(struct buf *out, const char *key, const char *v)
{
	const char *p;

	if (strlen(key) == 1) {
		buf_printf(out, " -%s ", key);
	} else {
		buf_puts(out, " --");
		/* num_iterations -> --num-iterations; the rest as written */
		for (p = key; *p; p++)
			buf_putc(out, *p == '_' && (strncmp(key, "num_", 4) == 0) ? '-' : *p);
		buf_putc(out, ' ');
	}
	sh_quote(out, v);
}

static void
command(const struct run *r, struct buf *out)
{
	const char *v;
	size_t i;

	buf_puts(out, "python ddlb/cli/benchmark.py");
	for (i = 1; i < LEN(args); i++)
		if ((v = workload_value(r, args[i].key)))
			option(out, args[i].key, v);
	/* arguments beyond the schema, in declaration order, as pydantic dumps them */
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key)) {
			buf_puts(out, " --");
			sh_quote_cont(out, r->args.items[i].key);
			buf_putc(out, ' ');
			sh_quote(out, r->args.items[i].value);
		}
	workload_extra_args(r, ' ', out);
}

/* CloudAI: "Benchmark Results" present, no "Error" */
static const char *const all_of[] = {"Benchmark Results", NULL};
static const char *const none_of[] = {"Error", NULL};

const struct workload wl_ddlb = {
	.name = "DDLBTest",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.all_of = all_of,
	.none_of = none_of,
};
