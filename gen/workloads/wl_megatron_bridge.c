/* wl_megatron_bridge.c: MegatronBridge, Megatron-Bridge's
 * scripts/performance/setup_experiment.py run from NeMo-Run's python
 * environment, as CloudAI's MegatronBridgeCmdArgs and its Slurm strategy
 * build it. Like NeMoLauncher the launcher submits the training job itself;
 * kunai runs it in a batch script of one node without GPUs
 * (workload.launcher) and waits for that job (wl_train.c).
 * Only the fields the test sets are passed, as CloudAI passes only
 * model_fields_set, except the few it always passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

#define RUN_VENV "Run__main-venv"

static const struct arg_schema args[] = {
	{"gpu_type", ARG_STRING, "gb200", NULL, false},
	{"log_dir", ARG_STRING, "", NULL, false},
	{"container_image", ARG_STRING, "", NULL, false},
	{"num_gpus", ARG_INT, "8", NULL, false},
	{"enable_vboost", ARG_BOOL, "False", NULL, false},
	{"dryrun", ARG_BOOL, "False", NULL, false},
	{"enable_nsys", ARG_BOOL, "False", NULL, false},
	{"domain", ARG_STRING, NULL, NULL, false},
	{"hidden_size", ARG_INT, NULL, NULL, false},
	{"num_layers", ARG_INT, NULL, NULL, false},
	{"pipeline_model_parallel_layout", ARG_STRING, NULL, NULL, false},
	{"first_k_dense_replace", ARG_INT, NULL, NULL, false},
	{"model_family_name", ARG_STRING, NULL, NULL, true},
	{"model_recipe_name", ARG_STRING, NULL, NULL, true},
	{"use_recipes", ARG_BOOL, NULL, NULL, false},
	{"task", ARG_STRING, "pretrain", NULL, false},
	{"compute_dtype", ARG_STRING, "bf16", NULL, false},
	{"fp8_recipe", ARG_STRING, NULL, NULL, false},
	{"hf_token", ARG_STRING, "", NULL, false},
	{"nemo_home", ARG_STRING, NULL, NULL, false},
	{"wandb_key", ARG_STRING, NULL, NULL, false},
	{"wandb_project_name", ARG_STRING, NULL, NULL, false},
	{"wandb_entity_name", ARG_STRING, NULL, NULL, false},
	{"wandb_experiment_name", ARG_STRING, NULL, NULL, false},
	{"wandb_save_dir", ARG_STRING, NULL, NULL, false},
	{"max_retries", ARG_INT, "1", NULL, false},
	{"use_tokendrop", ARG_BOOL, NULL, NULL, false},
	{"use_megatron_fsdp", ARG_BOOL, NULL, NULL, false},
	{"cuda_graph_impl", ARG_STRING, NULL, NULL, false},
	{"cuda_graph_scope", ARG_STRING, NULL, NULL, false},
	{"tp", ARG_INT, NULL, NULL, false},
	{"pp", ARG_INT, NULL, NULL, false},
	{"cp", ARG_INT, NULL, NULL, false},
	{"vp", ARG_INT, NULL, NULL, false},
	{"ep", ARG_INT, NULL, NULL, false},
	{"et", ARG_INT, NULL, NULL, false},
	{"mb", ARG_INT, NULL, NULL, false},
	{"gb", ARG_INT, NULL, NULL, false},
	{"seq_length", ARG_INT, NULL, NULL, false},
	{"lr", ARG_FLOAT, NULL, NULL, false},
	{"min_lr", ARG_FLOAT, NULL, NULL, false},
	{"warmup_iters", ARG_INT, NULL, NULL, false},
	{"pretrained_checkpoint", ARG_STRING, NULL, NULL, false},
	{"save_dir", ARG_STRING, NULL, NULL, false},
	{"load_dir", ARG_STRING, NULL, NULL, false},
	{"save_interval", ARG_INT, NULL, NULL, false},
	{"most_recent_k", ARG_INT, NULL, NULL, false},
	{"save_config_filepath", ARG_STRING, "/nemo_run/configs/ConfigContainer.yaml", NULL, false},
	{"data", ARG_STRING, NULL, NULL, false},
	{"dataset_paths", ARG_STRING, NULL, NULL, false},
	{"dataset_root", ARG_STRING, NULL, NULL, false},
	{"index_mapping_dir", ARG_STRING, NULL, NULL, false},
	{"dataset_name", ARG_STRING, NULL, NULL, false},
	{"packed_sequence", ARG_BOOL, NULL, NULL, false},
	{"head_only", ARG_BOOL, NULL, NULL, false},
	{"tokenizer_type", ARG_STRING, NULL, NULL, false},
	{"tokenizer_model", ARG_STRING, NULL, NULL, false},
	{"vocab_size", ARG_INT, NULL, NULL, false},
	{"pytorch_profiler", ARG_BOOL, NULL, NULL, false},
	{"profiling_start_step", ARG_INT, NULL, NULL, false},
	{"profiling_stop_step", ARG_INT, NULL, NULL, false},
	{"record_memory_history", ARG_BOOL, NULL, NULL, false},
	{"profiling_gpu_metrics", ARG_BOOL, NULL, NULL, false},
	{"profiling_ranks", ARG_STRING, NULL, NULL, false},
	{"nsys_trace", ARG_STRING, NULL, NULL, false},
	{"nsys_extra_args", ARG_STRING, NULL, NULL, false},
	{"nccl_ub", ARG_BOOL, NULL, NULL, false},
	{"moe_a2a_overlap", ARG_BOOL, NULL, NULL, false},
	{"max_steps", ARG_INT, "10", NULL, false},
	{"recompute_num_layers", ARG_INT, NULL, NULL, false},
	{"activation_offload_layers", ARG_INT, NULL, NULL, false},
	{"recompute_modules", ARG_STRING, NULL, NULL, false},
	{"num_distributed_optimizer_instances", ARG_INT, NULL, NULL, false},
	{"config_variant", ARG_STRING, NULL, NULL, false},
	{"list_config_variants", ARG_BOOL, NULL, NULL, false},
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.container_image", NULL, NULL, NULL},
	{INST_GIT, "https://github.com/NVIDIA-NeMo/Run.git", "main", NULL, NULL},
	{INST_VENV, "https://github.com/NVIDIA-NeMo/Run.git", "main", NULL, NULL},
	/* and the Megatron-Bridge repository of the test's [[git_repos]] */
};

/* How a field goes on the command line. */
enum how {
	H_VAL,    /* "flag value" when the test sets the field */
	H_FORCE,  /* "flag value" always (CloudAI's force_fields) */
	H_SWITCH, /* "flag" alone when set and true */
	H_BOOL,   /* "flag true|false" when set */
	H_VP,     /* as H_VAL, but 1 is passed as None */
	H_SCOPE,  /* as H_VAL, the list's brackets and quotes dropped */
	H_MODS,   /* as H_SWITCH's condition, the value as "a,b" with its quotes */
};

struct flag {
	const char *field, *flag;
	enum how how;
};

/* After -i (container) and before -cm; then after -gn. In CloudAI's order. */
static const struct flag head[] = {
	{"compute_dtype", "-c", H_VAL}, {"task", "--task", H_VAL}, {"hf_token", "-hf", H_FORCE},
	{"nemo_home", "-nh", H_VAL}, {"wandb_key", "-wdk", H_VAL}, {"wandb_project_name", "-wdp", H_VAL},
	{"wandb_entity_name", "-wde", H_VAL}, {"wandb_experiment_name", "-wdj", H_VAL},
	{"wandb_save_dir", "-wds", H_VAL}, {"max_retries", "--max_retries", H_VAL},
	{"dryrun", "-d", H_SWITCH}, {"num_gpus", "-ng", H_FORCE},
};

static const struct flag model[] = {
	{"domain", "--domain", H_VAL}, {"use_recipes", "--use_recipes", H_SWITCH},
	{"enable_vboost", "-vb", H_BOOL}, {"model_family_name", "-m", H_FORCE},
	{"model_recipe_name", "-mr", H_FORCE}, {"hidden_size", "--hidden_size", H_VAL},
	{"num_layers", "--num_layers", H_VAL},
	{"pipeline_model_parallel_layout", "--pipeline_model_parallel_layout", H_VAL},
	{"first_k_dense_replace", "--first_k_dense_replace", H_VAL}, {"enable_nsys", "-en", H_SWITCH},
	{"use_tokendrop", "--use_tokendrop", H_BOOL}, {"use_megatron_fsdp", "--use_megatron_fsdp", H_BOOL},
	{"nccl_ub", "--nccl_ub", H_BOOL}, {"cuda_graph_impl", "--cuda_graph_impl", H_VAL},
	{"cuda_graph_scope", "--cuda_graph_scope", H_SCOPE}, {"tp", "-tp", H_VAL}, {"pp", "-pp", H_VAL},
	{"cp", "-cp", H_VAL}, {"vp", "-vp", H_VP}, {"ep", "-ep", H_VAL}, {"et", "-et", H_VAL},
	{"mb", "-mb", H_VAL}, {"gb", "-gb", H_VAL}, {"seq_length", "-sl", H_VAL},
	{"moe_a2a_overlap", "--moe_a2a_overlap", H_BOOL}, {"max_steps", "-ms", H_VAL},
	{"recompute_num_layers", "-rl", H_VAL}, {"activation_offload_layers", "-ol", H_VAL},
	{"recompute_modules", "--recompute_modules", H_MODS},
};

static const struct flag tail[] = {
	{"lr", "--lr", H_VAL}, {"min_lr", "--min_lr", H_VAL}, {"warmup_iters", "--warmup_iters", H_VAL},
	{"pretrained_checkpoint", "--pretrained_checkpoint", H_VAL}, {"save_dir", "--save_dir", H_VAL},
	{"load_dir", "--load_dir", H_VAL}, {"save_interval", "--save_interval", H_VAL},
	{"most_recent_k", "--most_recent_k", H_VAL},
	{"save_config_filepath", "--save_config_filepath", H_FORCE}, {"data", "--data", H_VAL},
	{"dataset_paths", "--dataset_paths", H_VAL}, {"dataset_root", "--dataset_root", H_VAL},
	{"index_mapping_dir", "--index_mapping_dir", H_VAL}, {"dataset_name", "--dataset_name", H_VAL},
	{"packed_sequence", "--packed_sequence", H_SWITCH}, {"head_only", "--head_only", H_SWITCH},
	{"tokenizer_type", "--tokenizer_type", H_VAL}, {"tokenizer_model", "--tokenizer_model", H_VAL},
	{"vocab_size", "--vocab_size", H_VAL}, {"pytorch_profiler", "-pyp", H_BOOL},
	{"profiling_start_step", "--profiling_start_step", H_VAL},
	{"profiling_stop_step", "--profiling_stop_step", H_VAL}, {"record_memory_history", "-mh", H_BOOL},
	{"profiling_gpu_metrics", "--profiling_gpu_metrics", H_SWITCH},
	{"profiling_ranks", "--profiling_ranks", H_VAL}, {"nsys_trace", "--nsys_trace", H_VAL},
	{"nsys_extra_args", "--nsys_extra_args", H_VAL},
};

static bool
truthy(const char *v)
{
	return v && (workload_true(v) || strcmp(v, "1") == 0);
}

/* Appends " flag value" with value shell-quoted; nothing for "". */
static void
pair(struct buf *out, const char *flag, const char *v)
{
	if (!v || !*v)
		return;
	buf_printf(out, " %s ", flag);
	sh_quote(out, v);
}

/* "a, 'b'" or "[a,b]" -> "a,b" (CloudAI's normalisation of a list text). */
static void
plain_list(struct buf *b, const char *v)
{
	const char *p = v;
	size_t n = strlen(v);
	bool first = true;

	while (n && (*p == ' ' || *p == '"' || *p == '\''))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '"' || p[n - 1] == '\''))
		n--;
	if (n >= 2 && p[0] == '[' && p[n - 1] == ']')
		p++, n -= 2;
	while (n) {
		size_t k = 0, s = 0;
		while (k < n && p[k] != ',')
			k++;
		while (s < k && strchr(" \"'", p[s]))
			s++;
		while (k > s && strchr(" \"'", p[k - 1]))
			k--;
		if (k > s) {
			if (!first)
				buf_putc(b, ',');
			buf_push(b, p + s, k - s);
			first = false;
		}
		while (k < n && p[k] != ',')
			k++;
		p += k < n ? k + 1 : k;
		n -= k < n ? k + 1 : k;
	}
}

static void
flags(const struct run *r, const struct flag *f, size_t n, struct buf *out)
{
	struct buf t = {0};
	size_t i;

	for (i = 0; i < n; i++) {
		const char *v = workload_own_value(r, f[i].field);
		t.len = 0;
		switch (f[i].how) {
		case H_FORCE:
			pair(out, f[i].flag, workload_value(r, f[i].field));
			break;
		case H_VAL:
			pair(out, f[i].flag, v);
			break;
		case H_SWITCH:
			if (truthy(v))
				buf_printf(out, " %s", f[i].flag);
			break;
		case H_BOOL:
			if (v)
				buf_printf(out, " %s %s", f[i].flag, truthy(v) ? "true" : "false");
			break;
		case H_VP:
			pair(out, f[i].flag, v && strcmp(v, "1") == 0 ? "None" : v);
			break;
		case H_SCOPE:
			if (v && *v) {
				plain_list(&t, v);
				pair(out, f[i].flag, buf_str(&t));
			}
			break;
		case H_MODS:
			if (v && *v) {
				buf_putc(&t, '"');
				plain_list(&t, v);
				buf_putc(&t, '"');
				pair(out, f[i].flag, buf_str(&t));
			}
			break;
		}
	}
	buf_free(&t);
}

/* The Megatron-Bridge repository of the test (CloudAI requires one). */
static const struct git_repo *
mb_repo(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->def->n_git_repos; i++) {
		const struct git_repo *g = &r->def->git_repos[i];
		if (strstr(g->url, "Megatron-Bridge") || (g->mount_as && strncmp(g->mount_as, "/opt/Megatron-Bridge", 20) == 0 &&
		                                            (!g->mount_as[20] || !strcmp(g->mount_as + 20, "/"))))
			return g;
	}
	return NULL;
}

/* CloudAI's directory of a repository under the install dir: <repo>__<commit>. */
static void
repo_name(struct buf *b, const struct git_repo *g)
{
	const char *s = strrchr(g->url, '/'), *e;

	s = s ? s + 1 : g->url;
	e = s + strlen(s);
	if (e - s > 4 && strcmp(e - 4, ".git") == 0)
		e -= 4;
	buf_push(b, s, (size_t)(e - s));
	buf_printf(b, "__%s", g->commit ? g->commit : "");
}

/* The repository's path as a shell word (to be followed by "/..."). */
static void
repo_path(struct buf *out, const struct git_repo *g)
{
	struct buf d = {0};

	if (g->installed_path) {
		sh_quote(out, g->installed_path);
		return;
	}
	repo_name(&d, g);
	buf_puts(out, "\"$INSTALL_DIR\"/");
	sh_quote(out, buf_str(&d));
	buf_free(&d);
}

/* --additional_slurm_params: GPU directives, nodes, and the srun args as key=value. */
static void
slurm_params(const struct run *r, struct buf *out)
{
	const struct system *sys = r->c->system;
	const char *srcs[2] = {sys->extra_srun_args, r->tc->extra_srun_args};
	struct buf p = {0};
	size_t i, k;

	if (sys->gpus_per_node > 0 && sys->supports_gpu_directives != 0)
		buf_printf(&p, "gpus-per-node=%d;gres=gpu:%d", sys->gpus_per_node, sys->gpus_per_node);
	if (r->nodes.len) {
		buf_printf(&p, "%snodelist=", p.len ? ";" : "");
		for (i = 0; i < r->nodes.len; i++)
			buf_printf(&p, "%s%s", i ? "," : "", r->nodes.items[i]);
	} else if (r->tc->exclude_nodes.len) {
		buf_printf(&p, "%sexclude=", p.len ? ";" : "");
		for (i = 0; i < r->tc->exclude_nodes.len; i++)
			buf_printf(&p, "%s%s", i ? "," : "", r->tc->exclude_nodes.items[i]);
	}
	/* --key value, --key=value, --flag (split on blanks; CloudAI uses shlex) */
	for (k = 0; k < LEN(srcs); k++) {
		const char *s = srcs[k];
		while (s && *s) {
			const char *w, *v = NULL;
			size_t wn, vn = 0;
			while (*s == ' ' || *s == '\t')
				s++;
			w = s;
			wn = strcspn(s, " \t");
			s += wn;
			if (wn < 3 || strncmp(w, "--", 2) != 0)
				continue;
			if (!memchr(w, '=', wn)) {
				const char *t = s + strspn(s, " \t");
				size_t tn = strcspn(t, " \t");
				if (tn && strncmp(t, "--", 2) != 0) {
					v = t;
					vn = tn;
					s = t + tn;
				}
			}
			buf_printf(&p, "%s%.*s", p.len ? ";" : "", (int)(wn - 2), w + 2);
			if (v)
				buf_printf(&p, "=%.*s", (int)vn, v);
		}
	}
	if (p.len) {
		buf_puts(out, " --additional_slurm_params ");
		sh_quote(out, buf_str(&p));
	}
	buf_free(&p);
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

static void
command(const struct run *r, struct buf *out)
{
	const struct system *sys = r->c->system;
	const struct git_repo *g = mb_repo(r);
	const char *ci = workload_own_value(r, "container_image"), *tok = workload_value(r, "hf_token");
	struct kv *env = NULL;
	struct buf t = {0};
	size_t i;

	buf_puts(out, "NEMORUN_HOME=\"$RUN_DIR\" \"$INSTALL_DIR\"/" RUN_VENV "/bin/python ");
	if (g)
		repo_path(out, g);
	else
		buf_puts(out, "\"$INSTALL_DIR\"/Megatron-Bridge");
	buf_puts(out, "/scripts/performance/setup_experiment.py");
	pair(out, "-a", sys->account);
	pair(out, "-p", r->partition ? r->partition : sys->default_partition);
	pair(out, "-g", workload_own_value(r, "gpu_type"));
	pair(out, "-l", workload_own_value(r, "log_dir"));
	if (r->time_limit > 0) {
		/* Slurm's [D-]HH:MM:SS (model_format_time's, which this file cannot link) */
		long d = r->time_limit / 86400, h = r->time_limit / 3600 % 24, m = r->time_limit / 60 % 60;
		if (d)
			buf_printf(out, " -t %ld-%02ld:%02ld:%02ld", d, h, m, r->time_limit % 60);
		else
			buf_printf(out, " -t %02ld:%02ld:%02ld", h, m, r->time_limit % 60);
	}
	if (ci && *ci) {
		/* CloudAI's installed image: a local file as it is, else the cached .sqsh */
		if (ci[0] == '/' || ci[0] == '.' || !sys->cache_docker_images_locally)
			pair(out, "-i", ci);
		else {
			buf_puts(out, " -i \"$INSTALL_DIR\"/");
			workload_image_cache_name(&t, ci);
			sh_quote(out, buf_str(&t));
			t.len = 0;
		}
	}
	for (i = 0; i < LEN(head); i++) {
		/* an empty token is read from HF_TOKEN when the job runs, as CloudAI reads it at generation */
		if (strcmp(head[i].field, "hf_token") == 0 && (!tok || !*tok)) {
			buf_puts(out, " -hf \"$HF_TOKEN\"");
			continue;
		}
		flags(r, &head[i], 1, out);
	}
	if (sys->gpus_per_node > 0)
		buf_printf(out, " -gn %d", sys->gpus_per_node);
	/* -cm: the test's mounts, then the repository where mount_as puts it */
	for (i = 0; i < r->def->extra_container_mounts.len; i++) {
		if (!*r->def->extra_container_mounts.items[i])
			continue;
		buf_printf(&t, "%s%s", t.len ? "," : "", r->def->extra_container_mounts.items[i]);
	}
	if (t.len || (g && g->mount_as)) {
		buf_puts(out, " -cm \"");
		sh_dquote_body(out, buf_str(&t));
		if (g && g->mount_as) {
			struct buf rp = {0};
			if (t.len)
				buf_putc(out, ',');
			if (g->installed_path)
				sh_dquote_body(out, g->installed_path);
			else {
				buf_puts(out, "$INSTALL_DIR/");
				repo_name(&rp, g);
				sh_dquote_body(out, buf_str(&rp));
			}
			buf_putc(out, ':');
			sh_dquote_body(out, g->mount_as);
			buf_free(&rp);
		}
		buf_putc(out, '"');
	}
	t.len = 0;
	/* the environment as -cb 'export K=V', sorted by name */
	if (r->env.len) {
		env = xcalloc(r->env.len, sizeof(*env));
		memcpy(env, r->env.items, r->env.len * sizeof(*env));
		qsort(env, r->env.len, sizeof(*env), by_key);
		for (i = 0; i < r->env.len; i++) {
			t.len = 0;
			buf_printf(&t, "export %s=%s", env[i].key, env[i].value);
			buf_puts(out, " -cb ");
			sh_quote(out, buf_str(&t));
		}
		free(env);
	}
	flags(r, model, LEN(model), out);
	buf_puts(out, " --detach false");
	flags(r, tail, LEN(tail), out);
	slurm_params(r, out);
	pair(out, "-cv", workload_own_value(r, "config_variant"));
	if (truthy(workload_own_value(r, "list_config_variants")))
		buf_puts(out, " --list_config_variants");
	/* Hydra overrides: CloudAI's logger defaults, replaced or extended by extra_cmd_args */
	{
		static const char *const defs[][2] = {
			{"logger.tensorboard_dir", "/nemo_run/tb_logs"},
			{"logger.log_timers_to_tensorboard", "true"},
			{"logger.log_throughput_to_tensorboard", "true"},
			{"logger.log_memory_to_tensorboard", "true"},
		};
		const struct argset *ex = &r->def->extra_cmd_args;
		for (i = 0; i < LEN(defs); i++) {
			size_t j;
			const char *v = defs[i][1];
			for (j = 0; j < ex->len; j++)
				if (strcmp(ex->items[j].key, defs[i][0]) == 0 && ex->items[j].val->type == TOML_STRING)
					v = ex->items[j].val->u.str.s;
			t.len = 0;
			buf_puts(&t, defs[i][0]);
			if (*v)
				buf_printf(&t, "=%s", v);
			buf_putc(out, ' ');
			sh_quote(out, buf_str(&t));
		}
		for (i = 0; i < ex->len; i++) {
			size_t j;
			for (j = 0; j < LEN(defs); j++)
				if (strcmp(ex->items[i].key, defs[j][0]) == 0)
					break;
			if (j == LEN(defs) && ex->items[i].val->type == TOML_STRING) {
				t.len = 0;
				buf_puts(&t, ex->items[i].key);
				if (*ex->items[i].val->u.str.s)
					buf_printf(&t, "=%s", ex->items[i].val->u.str.s);
				buf_putc(out, ' ');
				sh_quote(out, buf_str(&t));
			}
		}
	}
	buf_free(&t);
}

static void
script_body(const struct run *r, struct buf *out)
{
	buf_puts(out, "export NEMORUN_HOME=\"$RUN_DIR\"\n"
	              "LOG=\"$RUN_DIR/cloudai_megatron_bridge_launcher.log\"\n"
	              ": >\"$LOG\"\n"
	              "\"$INSTALL_DIR\"/" RUN_VENV "/bin/python -m pip install wandb numpy==1.26.4 >>\"$LOG\" 2>&1 &&\n");
	command(r, out);
	buf_puts(out, " >>\"$LOG\" 2>&1\n"
	              "KUNAI_JOB=$(grep -Eio '(Submitted batch job[ ]+[0-9]+|Job id[: ]+[0-9]+|Job ID[: ]+[0-9]+)' "
	              "\"$LOG\" | tail -n 1 | grep -Eo '[0-9]+' | tail -n 1)\n");
	train_wait(out, "\"$LOG\"");
}

const struct workload wl_megatron_bridge = {
	.name = "MegatronBridge",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true, /* CloudAI accepts other keys and passes none of them */
	.schedulers = WL_SLURM,
	.command = command,
	.grader = "megatron_bridge",
	.installables = installables,
	.check = megatron_bridge_check,
	.n_installables = LEN(installables),
	.script_body = script_body,
	.launcher = true,
};
