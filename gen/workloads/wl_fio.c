/* wl_fio.c: Fio, the fio storage benchmark as CloudAI runs it: every key of
 * [cmd_args.args] becomes an option (--name=value, a true boolean the bare
 * flag, a false one nothing), then the optional job file; on Slurm in a
 * container only when docker_image_url is given, without --mpi, with
 * num_tasks_per_node tasks on every node. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const char *const operations[] = {"read", "write", "trim", "all", "first", NULL};
static const char *const metric_names[] = {"bw", "iops", "latency", NULL};
static const char *const aggregates[] = {"sum", "mean", "min", "max", "first", NULL};

static const struct arg_schema args[] = {
	{"fio_binary", ARG_STRING, "fio", NULL, false},
	{"job_file", ARG_STRING, NULL, NULL, false},
	{"args.*", ARG_ANY, NULL, NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false},
	{"num_tasks_per_node", ARG_INT, "1", NULL, false},
	{"metric_operation", ARG_STRING, "all", operations, false},
	{"metric_name", ARG_STRING, "bw", metric_names, false},
	{"metric_aggregate", ARG_STRING, "sum", aggregates, false},
};

static void
command(const struct run *r, struct buf *out)
{
	const char *job = workload_value(r, "job_file");
	struct buf flag = {0};
	size_t i, n;

	sh_quote(out, workload_value(r, "fio_binary"));
	for (i = 0; i < r->args.len; i++) {
		const char *key = r->args.items[i].key, *v = r->args.items[i].value;
		if (strncmp(key, "args.", 5) != 0)
			continue;
		key += 5;
		/* a nested table repeats its option once per value, as CloudAI does */
		n = strcspn(key, ".");
		if (workload_is_bool(r, r->args.items[i].key) && !workload_true(v))
			continue;
		flag.len = 0;
		if (key[0] != '-')
			buf_puts(&flag, "--");
		buf_push(&flag, key, n);
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&flag));
		if (workload_is_bool(r, r->args.items[i].key))
			continue;
		buf_putc(out, '=');
		sh_quote_cont(out, v);
	}
	buf_free(&flag);
	if (job) {
		buf_putc(out, ' ');
		sh_quote(out, job);
	}
	workload_extra_args(r, '=', out);
}

/* --ntasks-per-node=N --ntasks=nodes x N after the prefix, as CloudAI's
 * strategy appends them */
static void
srun_args(const struct run *r, struct buf *out)
{
	const char *v = workload_value(r, "num_tasks_per_node");
	long per = v ? strtol(v, NULL, 10) : 0;
	long nodes = r->nodes.len ? (long)r->nodes.len : r->num_nodes;

	if (per > 0)
		buf_printf(out, " --ntasks-per-node=%ld --ntasks=%ld", per, nodes * per);
}

static bool
no_mpi(const struct run *r)
{
	(void)r;
	return false;
}

/* fio prints "  write: IOPS=..., BW=..." per operation; the grader checks
 * that a summary was parsed */
static const char *const all_of[] = {"IOPS=", NULL};

const struct workload wl_fio = {
	.name = "Fio",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.container_if_image = true,
	.command = command,
	.uses_mpi = no_mpi,
	.srun_args = srun_args,
	.all_of = all_of,
	.grader = "fio",
};
