/* wl_megatron_run.c: MegatronRun, a Megatron-LM training script run with
 * python in the test's container, every argument a --dashed-flag, as
 * CloudAI's MegatronRunCmdArgs and its Slurm strategy build it. */
#include <string.h>

#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

/* Declaration order is flag order. A field whose default is "" is a bare
 * switch, as are recompute_activations and every key of the test's own. */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"run_script", ARG_STRING, NULL, NULL, true},
	{"global_batch_size", ARG_INT, "16", NULL, false},
	{"hidden_size", ARG_INT, "4096", NULL, false},
	{"max_position_embeddings", ARG_INT, "4096", NULL, false},
	{"num_attention_heads", ARG_INT, "32", NULL, false},
	{"num_layers", ARG_INT, "32", NULL, false},
	{"pipeline_model_parallel_size", ARG_INT, "1", NULL, false},
	{"recompute_activations", ARG_STRING, NULL, NULL, false},
	{"seq_length", ARG_INT, "4096", NULL, false},
	{"tensor_model_parallel_size", ARG_INT, "2", NULL, false},
	{"save", ARG_STRING, NULL, NULL, false},
	{"load", ARG_STRING, NULL, NULL, false},
	{"tokenizer_model", ARG_STRING, NULL, NULL, false},
	{"tensorboard_dir", ARG_STRING, "/cloudai_run_results/tensorboard", NULL, false},
	{"log_timers_to_tensorboard", ARG_STRING, "", NULL, false},
	{"log_throughput", ARG_STRING, "", NULL, false},
	{"log_memory_to_tensorboard", ARG_STRING, "", NULL, false},
	{"log_interval", ARG_INT, "1", NULL, false},
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	/* and the test's [[git_repos]] */
};

static bool
is_switch(const char *key)
{
	const struct arg_schema *s;
	size_t i;

	if (strcmp(key, "recompute_activations") == 0)
		return true;
	for (i = 0, s = NULL; i < LEN(args); i++)
		if (strcmp(args[i].key, key) == 0)
			s = &args[i];
	return !s || (s->def && !*s->def);
}

static void
command(const struct run *r, struct buf *out)
{
	static const char *const skip[] = {"docker_image_url", "run_script", NULL};
	struct buf f = {0};
	struct ovr o;
	size_t i;

	buf_puts(out, "python ");
	sh_quote(out, workload_value(r, "run_script"));
	ovr_init(&o, r, skip);
	for (i = 0; i < o.len; i++) {
		const char *k = o.items[i].key, *v = o.items[i].value, *p;
		if (!v)
			continue;
		if (is_switch(k) && strcmp(v, "false") == 0)
			continue;
		f.len = 0;
		buf_puts(&f, "--");
		for (p = k; *p; p++)
			buf_putc(&f, *p == '_' ? '-' : *p);
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&f));
		if (is_switch(k) && (strcmp(v, "true") == 0 || !*v))
			continue;
		buf_putc(out, ' ');
		sh_quote(out, v);
	}
	workload_extra_args(r, '=', out);
	buf_free(&f);
	ovr_free(&o);
}

const struct workload wl_megatron_run = {
	.name = "MegatronRun",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "megatron_run",
	.installables = installables,
	.n_installables = LEN(installables),
};
