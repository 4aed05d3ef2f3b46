/* wl_triton.c: CloudAI's TritonInference: a NIM server (its own image) on
 * all nodes but the last, started by a wrapper that tells each node its
 * rank and the leader, then after sleep_seconds the genai-perf client (the
 * Triton SDK image) on the last node (triton_inference.py,
 * slurm_command_gen_strategy.py). CloudAI writes the wrapper at generation
 * time; kunai's script writes its own (POSIX sh) into the run dir when the
 * job starts, one printf, and mounts it where CloudAI does. */
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const chat[] = {"chat", NULL};
static const char *const openai[] = {"openai", NULL};

static const struct arg_schema args[] = {
	{"server_docker_image_url", ARG_STRING, NULL, NULL, true},
	{"client_docker_image_url", ARG_STRING, NULL, NULL, true},
	{"served_model_name", ARG_STRING, NULL, NULL, true},
	{"endpoint_type", ARG_STRING, "chat", chat, false},
	{"service_kind", ARG_STRING, "openai", openai, false},
	{"streaming", ARG_BOOL, "True", NULL, false},
	{"port", ARG_INT, "8000", NULL, false},
	{"num_prompts", ARG_INT, "20", NULL, false},
	{"input_sequence_length", ARG_INT, "128", NULL, false},
	{"output_sequence_length", ARG_INT, "128", NULL, false},
	{"concurrency", ARG_INT, "1", NULL, false},
	{"tokenizer", ARG_STRING, NULL, NULL, true},
	{"sleep_seconds", ARG_INT, "3300", NULL, false},
};

static int
nodes(const struct run *r)
{
	return r->nodes.len ? (int)r->nodes.len : r->num_nodes;
}

/* CloudAI refuses fewer than 3 nodes and a missing NIM model or cache path. */
static bool
triton_ok(const struct run *r, struct buf *why)
{
	static const char *const need[] = {"NIM_MODEL_NAME", "NIM_CACHE_PATH"};
	size_t i;

	if (nodes(r) < 3) {
		buf_printf(why, "TritonInference needs at least 3 nodes (servers and 1 client), not %d", nodes(r));
		return false;
	}
	for (i = 0; i < LEN(need); i++) {
		const char *v = workload_env_value(r, need[i]);
		if (!v || !*v) {
			buf_printf(why, "TritonInference needs extra_env_vars.%s (a directory on the nodes)", need[i]);
			return false;
		}
	}
	return true;
}

static void
check(const struct run *r, struct wl_diags *d)
{
	struct buf why = {0};

	workload_refuse(d, r, triton_ok(r, &why), &why);
}

/* srun --container-image=IMAGE --container-mounts=... for one side. */
static void
side(const struct run *r, const char *prefix, const char *key, struct buf *out)
{
	const struct system *sys = r->c->system;
	const char *url = workload_value(r, key);
	struct buf img = {0};
	size_t i;

	buf_printf(out, "%s --container-image=", prefix);
	if (sys->cache_docker_images_locally && url[0] != '/' && url[0] != '.') {
		workload_image_cache_name(&img, url);
		buf_puts(out, "\"$INSTALL_DIR/");
		sh_dquote_body(out, img.data);
		buf_putc(out, '"');
	} else
		sh_quote_cont(out, url);
	buf_puts(out, " --container-mounts=\"$RUN_DIR:/cloudai_run_results,$INSTALL_DIR:/cloudai_install,$RUN_DIR");
	for (i = 0; i < r->def->extra_container_mounts.len; i++) {
		buf_putc(out, ',');
		sh_dquote_body(out, r->def->extra_container_mounts.items[i]);
	}
	buf_puts(out, ",$NIM_MODEL_NAME:$NIM_MODEL_NAME:ro,$NIM_CACHE_PATH:$NIM_CACHE_PATH:rw,"
	              "$RUN_DIR/start_server_wrapper.sh:/opt/nim/start_server_wrapper.sh:ro\"");
	if (!sys->container_mount_home)
		buf_puts(out, " --no-container-mount-home");
	buf_free(&img);
}

static void
line(struct buf *out, const char *text)
{
	buf_puts(out, " \\\n    ");
	sh_quote(out, text);
}

static void
body(const struct run *r, const char *prefix_n, const char *prefix, struct buf *out)
{
	int n = nodes(r);
	struct buf t = {0};
	size_t i;
	const char *v;

	(void)prefix_n;
	buf_printf(out,
	           "# kunai: CloudAI exports these before the mapping srun\n"
	           "export HEAD_NODE=$SLURM_JOB_MASTER_NODE\n"
	           "export NIM_LEADER_IP_ADDRESS=$SLURM_JOB_MASTER_NODE\n"
	           "export NIM_NUM_COMPUTE_NODES=%d\n"
	           "export NIM_MODEL_TOKENIZER='deepseek-ai/DeepSeek-R1'\n"
	           "# kunai: the NIM server's wrapper (CloudAI's start_server_wrapper.sh)\n"
	           "printf '%%s\\n'",
	           n - 1);
	line(out, "#!/bin/sh");
	line(out, "export NIM_LEADER_IP_ADDRESS=${SLURM_JOB_MASTER_NODE}");
	line(out, "export NIM_NODE_RANK=${SLURM_NODEID}");
	for (i = 0; i < r->env.len; i++) {
		const char *k = r->env.items[i].key;
		if (!strcmp(k, "NIM_LEADER_IP_ADDRESS") || !strcmp(k, "NIM_NODE_RANK") || !sh_is_name(k))
			continue;
		t.len = 0;
		buf_printf(&t, "export %s=", k);
		sh_quote(&t, r->env.items[i].value);
		line(out, t.data);
	}
	line(out, "if [ \"$NIM_NODE_RANK\" -eq 0 ]; then");
	line(out, "  export NIM_LEADER_ROLE=1");
	line(out, "else");
	line(out, "  export NIM_LEADER_ROLE=0");
	line(out, "fi");
	line(out, "echo \"Starting NIM server on node rank ${NIM_NODE_RANK} with leader role ${NIM_LEADER_ROLE}\"");
	line(out, "exec /opt/nim/start_server.sh");
	buf_puts(out, " >\"$RUN_DIR/start_server_wrapper.sh\" && chmod 755 \"$RUN_DIR/start_server_wrapper.sh\"\n");

	side(r, prefix, "server_docker_image_url", out);
	buf_printf(out, " --nodes=%d --ntasks=%d --ntasks-per-node=1 /opt/nim/start_server_wrapper.sh &\n\nsleep %s\n\n",
	           n - 1, n - 1, workload_value(r, "sleep_seconds"));
	side(r, prefix, "client_docker_image_url", out);
	buf_puts(out, " --nodes=1 --ntasks=1 genai-perf profile -m ");
	sh_quote(out, workload_value(r, "served_model_name"));
	buf_printf(out, " --endpoint-type %s --service-kind %s", workload_value(r, "endpoint_type"),
	           workload_value(r, "service_kind"));
	if (workload_true(workload_value(r, "streaming")))
		buf_puts(out, " --streaming");
	v = workload_value(r, "output_sequence_length");
	buf_printf(out,
	           " -u $SLURM_JOB_MASTER_NODE:%s --num-prompts %s --synthetic-input-tokens-mean %s "
	           "--synthetic-input-tokens-stddev 0 --concurrency %s --output-tokens-mean %s --extra-inputs "
	           "max_tokens:%s --extra-inputs min_tokens:%s --extra-inputs ignore_eos:true --artifact-dir "
	           "/cloudai_run_results --tokenizer ",
	           workload_value(r, "port"), workload_value(r, "num_prompts"), workload_value(r, "input_sequence_length"),
	           workload_value(r, "concurrency"), v, v, v);
	sh_quote(out, workload_value(r, "tokenizer"));
	buf_printf(out, " -- -v --max-threads %s --request-count %s", workload_value(r, "concurrency"),
	           workload_value(r, "num_prompts"));
	buf_free(&t);
}

static void
command(const struct run *r, struct buf *out)
{
	(void)r;
	buf_puts(out, "/opt/nim/start_server_wrapper.sh");
}

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.server_docker_image_url", NULL, NULL, NULL},
	{INST_IMAGE, "cmd_args.client_docker_image_url", NULL, NULL, NULL},
};

const struct workload wl_triton_inference = {
	.name = "TritonInference",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_SLURM,
	.command = command,
	.grader = "triton_inference",
	.installables = installables,
	.n_installables = LEN(installables),
	.script_body_srun = body,
	.check = check,
};
