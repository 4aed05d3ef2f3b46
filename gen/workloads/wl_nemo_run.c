/* wl_nemo_run.c: NeMoRun, NeMo 2.0 recipes run by CloudAI's helper
 * cloudai_nemorun.py (`python ... --factory RECIPE -y key=value ...`) in the
 * test's container, as CloudAI's NeMoRunCmdArgs and its Slurm strategy
 * build it. kunai ships no Python: the helper is CloudAI's, which the user
 * copies into the install dir (INST_USER_FILE; the batch script refuses to
 * start without it). */
#include <stdio.h>
#include <string.h>

#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

/* NeMoRunCmdArgs flattened, in declaration order (model_dump's order);
 * every table takes keys of its own too. */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"task", ARG_STRING, NULL, NULL, true},
	{"recipe_name", ARG_STRING, NULL, NULL, true},
	{"num_layers", ARG_INT, NULL, NULL, false},
	{"trainer.max_steps", ARG_INT, "100", NULL, false},
	{"trainer.val_check_interval", ARG_FLOAT, "1000", NULL, false},
	{"trainer.num_nodes", ARG_INT, NULL, NULL, false},
	{"trainer.strategy.tensor_model_parallel_size", ARG_INT, "1", NULL, false},
	{"trainer.strategy.pipeline_model_parallel_size", ARG_INT, "1", NULL, false},
	{"trainer.strategy.context_parallel_size", ARG_INT, "2", NULL, false},
	{"trainer.strategy.virtual_pipeline_model_parallel_size", ARG_INT, NULL, NULL, false},
	{"trainer.plugins.fp8", ARG_STRING, NULL, NULL, false},
	{"trainer.plugins.fp8_margin", ARG_INT, NULL, NULL, false},
	{"trainer.plugins.fp8_amax_history_len", ARG_INT, NULL, NULL, false},
	{"trainer.plugins.fp8_amax_compute_algo", ARG_STRING, NULL, NULL, false},
	{"trainer.plugins.fp8_wgrad", ARG_BOOL, NULL, NULL, false},
	{"trainer.plugins.fp8_params", ARG_BOOL, NULL, NULL, false},
	{"trainer.plugins.grad_reduce_in_fp32", ARG_BOOL, NULL, NULL, false},
	{"trainer.callbacks", ARG_STRING, NULL, NULL, false},
	{"trainer.log_every_n_steps", ARG_INT, "1", NULL, false},
	{"log.ckpt.save_on_train_epoch_end", ARG_BOOL, NULL, NULL, false},
	{"log.ckpt.save_last", ARG_BOOL, NULL, NULL, false},
	{"log.tensorboard.save_dir", ARG_STRING, NULL, NULL, false}, /* "logs" with the table */
	{"log.tensorboard.name", ARG_STRING, NULL, NULL, false},     /* "default" with the table */
	{"data.seq_length", ARG_INT, "8192", NULL, false},
	{"data.micro_batch_size", ARG_INT, "1", NULL, false},
	{"data.global_batch_size", ARG_INT, "1", NULL, false},
	{"data.num_train_samples", ARG_INT, "1000", NULL, false},
	{"optim.config.use_precision_aware_optimizer", ARG_BOOL, NULL, NULL, false},
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	/* CloudAI's Python, which kunai does not ship */
	{INST_USER_FILE, NULL, NULL, "cloudai_nemorun.py",
	 "kunai ships no Python: copy CloudAI's src/cloudai/workloads/nemo_run/cloudai_nemorun.py there"},
};

/* CloudAI mounts the folder of the helper at /cloudai_workspace; with kunai
 * the user puts CloudAI's helper in the install dir. */
static const char *const mounts[] = {":/cloudai_workspace", NULL};

static void
command(const struct run *r, struct buf *out)
{
	static const char *const skip[] = {"docker_image_url", "num_layers", "task", "recipe_name", NULL};
	const struct system *sys = r->c->system;
	const char *numa = workload_env_value(r, "ENABLE_NUMA_CONTROL");
	const char *gpu = workload_env_value(r, "CLOUDAI_GPU_TYPE");
	char nodes[24], devices[24], samples[24];
	long long gbs, steps;
	struct ovr o;

	if (numa && strcmp(numa, "1") == 0) {
		int d = gpu && strcmp(gpu, "gb200") == 0 ? 2 : 4;
		buf_printf(out, "numactl --cpunodebind=$((SLURM_LOCALID/%d)) --membind=$((SLURM_LOCALID/%d)) ", d, d);
	}
	ovr_init(&o, r, skip);
	if (workload_has_prefix(r, "log.tensorboard.")) {
		if (!ovr_get(&o, "log.tensorboard.save_dir"))
			ovr_set(&o, "log.tensorboard.save_dir", "logs");
		if (!ovr_get(&o, "log.tensorboard.name"))
			ovr_set(&o, "log.tensorboard.name", "default");
	}
	/* CloudAI sets num_train_samples to gbs * max_steps, or leaves it out */
	if (train_int(ovr_get(&o, "data.global_batch_size"), &gbs) &&
	    train_int(ovr_get(&o, "trainer.max_steps"), &steps)) {
		snprintf(samples, sizeof(samples), "%lld", gbs * steps);
		ovr_set(&o, "data.num_train_samples", samples);
	} else
		ovr_del(&o, "data.num_train_samples");
	snprintf(nodes, sizeof(nodes), "%zu", r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
	ovr_set(&o, "trainer.num_nodes", nodes);
	if (sys->gpus_per_node > 0) {
		snprintf(devices, sizeof(devices), "%d", sys->gpus_per_node);
		ovr_set(&o, "trainer.devices", devices);
	}
	buf_puts(out, "python /cloudai_install/cloudai_nemorun.py --factory ");
	sh_quote(out, workload_value(r, "recipe_name"));
	buf_puts(out, " -y");
	ovr_append(&o, out);
	workload_extra_args(r, '=', out);
	ovr_free(&o);
}

static size_t
env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	const char *fsdp = workload_env_value(r, "CLOUDAI_ENABLE_FSDP");
	long long pp = 1;
	size_t n = 0;

	(void)a;
	if (max < 5)
		return 0;
	out[n++] = (struct wl_env){"CLOUDAI_NEMO_TASK", workload_value(r, "task"), false};
	out[n++] = (struct wl_env){"CLOUDAI_NEMO_RECIPE", workload_value(r, "recipe_name"), false};
	out[n++] = (struct wl_env){"NEMO_LOG_MEMORY_USAGE", "1", true};
	if (train_int(workload_value(r, "trainer.strategy.pipeline_model_parallel_size"), &pp) && pp > 1)
		out[n++] = (struct wl_env){"NCCL_P2P_NET_CHUNKSIZE", "2097152", false};
	/* NeMo 2.0 cannot overlap TP communication under FSDP */
	if (fsdp && strcmp(fsdp, "1") == 0)
		out[n++] = (struct wl_env){"CLOUDAI_DISABLE_TP_COMM_OVERLAP", "1", false};
	return n;
}

const struct workload wl_nemo_run = {
	.name = "NeMoRun",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "nemo_run",
	.installables = installables,
	.check = nemo_run_check,
	.n_installables = LEN(installables),
	.env = env,
	.install_mounts = mounts,
};
