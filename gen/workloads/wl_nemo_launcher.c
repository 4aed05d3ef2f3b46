/* wl_nemo_launcher.c: NeMoLauncher, NVIDIA's NeMo-Framework-Launcher
 * (launcher_scripts/main.py, Hydra overrides), as CloudAI's
 * NeMoLauncherCmdArgs and its Slurm strategy build it. The launcher is no
 * srun command: it writes and submits the training job itself. CloudAI runs
 * it on the submit host and takes the job id from its output; kunai runs it
 * in a batch script of one node without GPUs (workload.launcher), then
 * waits for the job it submitted (cancelling it when the script is), copies
 * the training log to stdout (for the grader) and exits with that job's
 * state. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wl_train.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

#define LAUNCHER_REPO "https://github.com/NVIDIA/NeMo-Framework-Launcher.git"
#define LAUNCHER_COMMIT "599ecfcbbd64fd2de02f2cc093b1610d73854022"
#define LAUNCHER_DIR "NeMo-Framework-Launcher__" LAUNCHER_COMMIT

static const char *const log_steps[] = {"1", "2", NULL};

/* The nested models flattened: every table allows keys of its own (CloudAI's
 * extra="allow"), which are passed on as overrides too. */
static const struct arg_schema args[] = {
	{"launcher_script", ARG_STRING, "launcher_scripts/main.py", NULL, false},
	{"docker_image_url", ARG_STRING, "nvcr.io/nvidia/nemo:24.12.01", NULL, false},
	{"stages", ARG_STRING, "[\"training\"]", NULL, false},
	{"numa_mapping.enable", ARG_BOOL, "True", NULL, false},
	{"cluster.gpus_per_node", ARG_INT, "8", NULL, false},
	{"training.values", ARG_STRING, "gpt3/40b_improved", NULL, false},
	{"training.exp_manager.create_checkpoint_callback", ARG_BOOL, "False", NULL, false},
	{"training.trainer.max_steps", ARG_INT, "20", NULL, false},
	{"training.trainer.val_check_interval", ARG_INT, "10", NULL, false},
	{"training.trainer.log_every_n_steps", ARG_STRING, "1", log_steps, false},
	{"training.trainer.enable_checkpointing", ARG_BOOL, "False", NULL, false},
	{"training.model.global_batch_size", ARG_INT, "128", NULL, false},
	{"training.model.micro_batch_size", ARG_INT, "2", NULL, false},
	{"training.model.tensor_model_parallel_size", ARG_INT, "4", NULL, false},
	{"training.model.pipeline_model_parallel_size", ARG_INT, "4", NULL, false},
	{"training.model.data.data_prefix", ARG_STRING, "[]", NULL, false},
	{"training.model.data.data_impl", ARG_STRING, "mock", NULL, false},
	{"training.run.time_limit", ARG_STRING, "3:00:00", NULL, false},
	{"training.run.name", ARG_STRING, "run", NULL, false},
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	{INST_GIT, LAUNCHER_REPO, LAUNCHER_COMMIT, NULL, NULL},
	{INST_VENV, LAUNCHER_REPO, LAUNCHER_COMMIT, NULL, NULL},
};

static int
by_key(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* Sets key to value: in place when present (a Python dict keeps a key's
 * place), else at the end. */
static void
put(struct kv *o, size_t *n, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(o[i].key, key) == 0) {
			o[i].value = value;
			return;
		}
	o[*n].key = key;
	o[(*n)++].value = value;
}

/* " \\\n KEY=VALUE", the word shell-quoted as a whole. */
static void
override(struct buf *out, const char *key, const char *value)
{
	struct buf w = {0};

	buf_printf(&w, "%s=%s", key, value);
	buf_puts(out, " \\\n ");
	sh_quote(out, buf_str(&w));
	buf_free(&w);
}

/* The overrides in CloudAI's order: every cmd_args key but launcher_script
 * and docker_image_url (defaults included) sorted, then what the strategy
 * sets, then the environment as +env_vars.K=V. */
static void
overrides(const struct run *r, struct buf *out)
{
	const struct system *sys = r->c->system;
	size_t cap = LEN(args) + r->args.len + 16, n = 0, i;
	struct kv *o = xcalloc(cap, sizeof(*o));
	struct buf gpus = {0}, nodes = {0}, prefix = {0}, stripped = {0};
	const char *v, *tok = NULL, *topo = NULL;

	for (i = 0; i < LEN(args); i++)
		put(o, &n, args[i].key, args[i].def);
	for (i = 0; i < r->args.len; i++)
		put(o, &n, r->args.items[i].key, r->args.items[i].value);
	for (i = 0; i < n; i++)
		if (!strcmp(o[i].key, "launcher_script") || !strcmp(o[i].key, "docker_image_url"))
			o[i--] = o[--n];
	qsort(o, n, sizeof(*o), by_key);
	for (i = 0; i < n; i++) {
		if (!strcmp(o[i].key, "training.model.data.data_prefix")) {
			/* CloudAI drops the backslashes of a data_prefix */
			for (v = o[i].value; *v; v++)
				if (*v != '\\')
					buf_putc(&stripped, *v);
			o[i].value = buf_str(&stripped);
		}
		if (!strcmp(o[i].key, "training.model.tokenizer.model"))
			tok = o[i].value;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(o[i].key, "training.values")) {
			memmove(&o[i], &o[i + 1], (n - i - 1) * sizeof(*o));
			o[n - 1].key = "training";
			o[n - 1].value = workload_value(r, "training.values");
			break;
		}
	put(o, &n, "cluster.partition", r->partition ? r->partition : sys->default_partition ? sys->default_partition : "None");
	buf_printf(&nodes, "%zu", r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
	put(o, &n, "training.trainer.num_nodes", buf_str(&nodes));
	if (sys->account)
		put(o, &n, "cluster.account", sys->account);
	put(o, &n, "container", workload_value(r, "docker_image_url"));
	/* the stable job name, not CloudAI's timestamp */
	if (sys->account)
		buf_printf(&prefix, "%s-", sys->account);
	buf_printf(&prefix, "%s.%s.%d:", r->c->scenario->name, r->tc->id, r->iteration);
	put(o, &n, "cluster.job_name_prefix", buf_str(&prefix));
	if (sys->gpus_per_node > 0)
		buf_printf(&gpus, "%d", sys->gpus_per_node);
	else
		buf_puts(&gpus, "null");
	put(o, &n, "cluster.gpus_per_node", buf_str(&gpus));

	for (i = 0; i < n; i++)
		override(out, o[i].key, o[i].value);
	/* paths known when the job runs: base_results_dir, launcher_scripts_path */
	buf_puts(out, " \\\n base_results_dir=\"$RUN_DIR\" \\\n launcher_scripts_path=\"$INSTALL_DIR\"/");
	sh_quote(out, LAUNCHER_DIR);
	buf_puts(out, "/launcher_scripts");
	topo = workload_env_value(r, "NCCL_TOPO_FILE");
	/* CloudAI finds the tokenizer in the extra arguments too */
	for (i = 0; !tok && i < r->def->extra_cmd_args.len; i++)
		if (!strcmp(r->def->extra_cmd_args.items[i].key, "training.model.tokenizer.model") &&
		    r->def->extra_cmd_args.items[i].val->type == TOML_STRING)
			tok = r->def->extra_cmd_args.items[i].val->u.str.s;
	/* the topology file's mount takes the tokenizer's in front of it; the
	 * tokenizer's alone goes last, after the extra arguments, as CloudAI
	 * appends it */
	if (topo) {
		struct buf m = {0};
		buf_puts(&m, "[");
		if (tok)
			buf_printf(&m, "\"%s:%s\", ", tok, tok);
		buf_printf(&m, "\"%s:%s\"", topo, topo);
		buf_puts(&m, "]");
		override(out, "container_mounts", buf_str(&m));
		buf_free(&m);
	}
	if (r->nodes.len) {
		struct buf l = {0};
		buf_puts(&l, "'");
		for (i = 0; i < r->nodes.len; i++)
			buf_printf(&l, "%s%s", i ? "," : "", r->nodes.items[i]);
		buf_puts(&l, "'");
		override(out, "+cluster.nodelist", buf_str(&l));
		buf_free(&l);
	}
	for (i = 0; i < r->env.len; i++) {
		struct buf k = {0}, val = {0};
		const char *ev = r->env.items[i].value;
		buf_printf(&k, "+env_vars.%s", r->env.items[i].key);
		/* Hydra reads a value with a comma as a list unless it is quoted */
		if (strchr(ev, ','))
			buf_printf(&val, "'%s'", ev);
		else
			buf_puts(&val, ev);
		override(out, buf_str(&k), buf_str(&val));
		buf_free(&k);
		buf_free(&val);
	}
	workload_extra_args(r, '=', out);
	if (tok && !topo) {
		struct buf m = {0};
		buf_printf(&m, "container_mounts=[\"%s:%s\"]", tok, tok);
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&m));
		buf_free(&m);
	}
	free(o);
	buf_free(&gpus);
	buf_free(&nodes);
	buf_free(&prefix);
	buf_free(&stripped);
}

static void
command(const struct run *r, struct buf *out)
{
	buf_puts(out, "\"$INSTALL_DIR\"/");
	sh_quote(out, LAUNCHER_DIR "-venv/bin/python");
	buf_puts(out, " \\\n \"$INSTALL_DIR\"/");
	sh_quote(out, LAUNCHER_DIR);
	buf_putc(out, '/');
	sh_quote(out, workload_value(r, "launcher_script"));
	overrides(r, out);
}

static void
script_body(const struct run *r, struct buf *out)
{
	struct buf logs = {0};

	buf_puts(out, "{ ");
	command(r, out);
	buf_puts(out, "; } 2>&1 | tee \"$RUN_DIR/launcher.txt\"\n"
	              "KUNAI_LRC=${PIPESTATUS[0]}\n"
	              "KUNAI_JOB=$(sed -n 's/.*submitted with Job ID \\([0-9][0-9]*\\).*/\\1/p' "
	              "\"$RUN_DIR/launcher.txt\" | tail -n 1)\n"
	              "[ \"$KUNAI_LRC\" -eq 0 ] || KUNAI_JOB=\n");
	buf_puts(&logs, "\"$RUN_DIR\"/");
	sh_quote(&logs, workload_value(r, "training.run.name"));
	buf_puts(&logs, "/log-*.out");
	train_wait(out, buf_str(&logs));
	buf_free(&logs);
}

const struct workload wl_nemo_launcher = {
	.name = "NeMoLauncher",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.command = command,
	.grader = "nemo_launcher",
	.installables = installables,
	.n_installables = LEN(installables),
	.script_body = script_body,
	.launcher = true,
};
