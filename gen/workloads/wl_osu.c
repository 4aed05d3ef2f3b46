/* wl_osu.c: OSUBench, one OSU micro-benchmark binary from benchmarks_dir in
 * the container, with CloudAI's long options (--message-size ...). */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"benchmarks_dir", ARG_STRING, NULL, NULL, true},
	{"benchmark", ARG_STRING, NULL, NULL, true},
	{"message_size", ARG_STRING, NULL, NULL, false},
	{"iterations", ARG_INT, NULL, NULL, false},
	{"warmup", ARG_INT, NULL, NULL, false},
	{"mem_limit", ARG_INT, NULL, NULL, false},
	{"full", ARG_BOOL, "True", NULL, false},
};

/* Point-to-point and one-sided benchmarks reject --full. */
static bool
has_full(const char *benchmark)
{
	static const char *const without[] = {
		"osu_latency", "osu_latency_mt", "osu_latency_mp", "osu_bw", "osu_bibw",
		"osu_latency_persistent", "osu_bw_persistent", "osu_bibw_persistent",
		"osu_multi_lat", "osu_mbw_mr", "osu_put_latency", "osu_get_latency",
		"osu_acc_latency", "osu_get_acc_latency", "osu_cas_latency", "osu_fop_latency",
		"osu_put_bw", "osu_get_bw", "osu_put_bibw", "osu_init", "osu_hello",
	};
	size_t i;

	for (i = 0; i < LEN(without); i++)
		if (strcmp(benchmark, without[i]) == 0)
			return false;
	return true;
}

/* --name-with-dashes [value]; a boolean is the bare flag when true and
 * nothing when false (CloudAI would print "--flag False"). */
static void
option(const struct run *r, struct buf *out, const char *key, const char *value)
{
	const struct arg_schema *s = workload_arg(r->def->wl, key);
	const char *p;

	if ((s && s->type == ARG_BOOL) || workload_is_bool(r, key)) {
		if (!workload_true(value))
			return;
		value = NULL;
	}
	buf_puts(out, " --");
	for (p = key; *p; p++)
		buf_putc(out, *p == '_' ? '-' : *p);
	if (value) {
		buf_putc(out, ' ');
		sh_quote(out, value);
	}
}

static void
command(const struct run *r, struct buf *out)
{
	const char *bench = workload_value(r, "benchmark");
	struct buf bin = {0};
	size_t i;

	buf_printf(&bin, "%s/%s", workload_value(r, "benchmarks_dir"), bench);
	sh_quote(out, bin.data);
	buf_free(&bin);
	for (i = 3; i < LEN(args); i++) {
		const char *v = workload_value(r, args[i].key);
		if (!v || (strcmp(args[i].key, "full") == 0 && !has_full(bench)))
			continue;
		option(r, out, args[i].key, v);
	}
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key))
			option(r, out, r->args.items[i].key, r->args.items[i].value);
	workload_extra_args(r, '=', out);
}

static const char *const all_of[] = {"# Size", NULL};

const struct workload wl_osu = {
	.name = "OSUBench",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.all_of = all_of,
	.grader = "osu",
};
