/* wl_chakra_replay.c: ChakraReplay, PARAM's comm_replay of a Chakra
 * execution trace in the test's container, as CloudAI's ChakraReplayCmdArgs
 * and its Slurm strategy build it (the trace folder mounted at its own path). */
#include <string.h>

#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"mpi", ARG_STRING, "pmix", NULL, false},
	{"trace_type", ARG_STRING, "et", NULL, false},
	{"trace_path", ARG_STRING, NULL, NULL, false},
	{"num_replays", ARG_INT, "1", NULL, false},
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

static const char *const mounts[] = {"trace_path", NULL};

static void
command(const struct run *r, struct buf *out)
{
	const char *path = workload_value(r, "trace_path");
	struct buf f = {0};
	size_t i;

	buf_puts(out, "comm_replay --trace-type ");
	sh_quote(out, workload_value(r, "trace_type"));
	/* CloudAI prints Python's None for an unset trace_path */
	buf_puts(out, " --trace-path ");
	sh_quote(out, path ? path : "None");
	buf_puts(out, " --num-replays ");
	sh_quote(out, workload_value(r, "num_replays"));
	/* the test's own keys, as --dashed-flags */
	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key, *p;
		if (workload_arg(r->def->wl, k))
			continue;
		f.len = 0;
		buf_puts(&f, "--");
		for (p = k; *p; p++)
			buf_putc(&f, *p == '_' ? '-' : *p);
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&f));
		buf_putc(out, ' ');
		sh_quote(out, r->args.items[i].value);
	}
	workload_extra_args(r, ' ', out);
	buf_free(&f);
}

const struct workload wl_chakra_replay = {
	.name = "ChakraReplay",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "chakra_replay",
	.installables = installables,
	.n_installables = LEN(installables),
	.arg_mounts = mounts,
};
