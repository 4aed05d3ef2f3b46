/* wl_vllm.c: CloudAI's vLLM (test_template_name "vllm"): `vllm serve`,
 * aggregated (several nodes joined by Ray) or disaggregated prefill/decode
 * over NIXL with vLLM's toy proxy, then `vllm bench serve` (vllm.py,
 * slurm_command_gen_strategy.py). The script is wl_serving.c's. */
#include <stdlib.h>
#include <string.h>

#include "wl_serving.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/model/expand.h"

#define ROLE_ARGS(R)                                                                              \
	{R, ARG_TABLE, NULL, NULL, false}, {R ".gpu_ids", ARG_STRING, NULL, NULL, false},          \
		{R ".num_nodes", ARG_INT, NULL, NULL, false},                                      \
		{R ".nixl_threads", ARG_INT, NULL, NULL, false},                                   \
		{R ".ray_head", ARG_TABLE, NULL, NULL, false},                                     \
		{R ".ray_head.head", ARG_BOOL, NULL, NULL, false},                                 \
		{R ".ray_head.port", ARG_ANY, NULL, NULL, false},                                  \
		{R ".ray_head.address", ARG_STRING, NULL, NULL, false},                            \
		{R ".ray_head.block", ARG_BOOL, NULL, NULL, false},                                \
		{R ".ray_head.*", ARG_ANY, NULL, NULL, false},                                     \
		{R ".ray_worker", ARG_TABLE, NULL, NULL, false},                                   \
		{R ".ray_worker.head", ARG_BOOL, NULL, NULL, false},                               \
		{R ".ray_worker.port", ARG_ANY, NULL, NULL, false},                                \
		{R ".ray_worker.address", ARG_STRING, NULL, NULL, false},                          \
		{R ".ray_worker.block", ARG_BOOL, NULL, NULL, false},                              \
		{R ".ray_worker.*", ARG_ANY, NULL, NULL, false}, {R ".*", ARG_ANY, NULL, NULL, false}

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"model", ARG_STRING, "Qwen/Qwen3-0.6B", NULL, false},
	{"port", ARG_INT, "8300", NULL, false},
	{"host", ARG_STRING, "0.0.0.0", NULL, false},
	{"bench_host", ARG_STRING, NULL, NULL, false},
	{"healthcheck", ARG_STRING, "/healthcheck", NULL, false},
	{"serve_healthcheck", ARG_STRING, NULL, NULL, false},
	{"serve_wait_seconds", ARG_INT, "300", NULL, false},
	{"proxy_script", ARG_STRING, "/opt/vllm/tests/v1/kv_connector/nixl_integration/toy_proxy_server.py", NULL,
	 false},
	{"proxy_healthcheck", ARG_STRING, "/healthcheck", NULL, false},
	ROLE_ARGS("prefill"),
	ROLE_ARGS("decode"),
	/* the test definition's own tables (workload.tables) */
	{"bench_cmd_args", ARG_TABLE, NULL, NULL, false},
	{"bench_cmd_args.random_input_len", ARG_INT, "16", NULL, false},
	{"bench_cmd_args.random_output_len", ARG_INT, "128", NULL, false},
	{"bench_cmd_args.max_concurrency", ARG_INT, "16", NULL, false},
	{"bench_cmd_args.num_prompts", ARG_INT, "30", NULL, false},
	{"bench_cmd_args.*", ARG_ANY, NULL, NULL, false},
	{"semantic_eval_cmd_args", ARG_TABLE, NULL, NULL, false},
	{"semantic_eval_cmd_args.entrypoint", ARG_STRING, "python3 /opt/vllm/tests/evals/gsm8k/gsm8k_eval.py", NULL,
	 false},
	{"semantic_eval_cmd_args.cli", ARG_STRING,
	 "--host {host} --port {port} --num-questions 200 --save-results {output_path}/vllm-gsm8k.json", NULL, false},
	{"proxy_script_repo.url", ARG_STRING, NULL, NULL, false},
	{"proxy_script_repo.commit", ARG_STRING, NULL, NULL, false},
	{"proxy_script_repo.init_submodules", ARG_BOOL, NULL, NULL, false},
	{"proxy_script_repo.installed_path", ARG_STRING, NULL, NULL, false},
	{"proxy_script_repo.mount_as", ARG_STRING, NULL, NULL, false},
	{"custom_bash", ARG_STRING, NULL, NULL, false},
	{"custom_bash.*", ARG_STRING, NULL, NULL, false},
};

static const char *const tables[] = {
	"bench_cmd_args", "semantic_eval_cmd_args", "proxy_script_repo", "custom_bash", NULL,
};

static bool
needs_ray(const struct serving *s, enum serving_role role)
{
	return serving_role_nodes(s, role) > 1;
}

static const char *
role_table(enum serving_role role)
{
	return role == ROLE_PREFILL ? "prefill" : "decode";
}

static void
serve(const struct serving *s, enum serving_role role, struct buf *out)
{
	static const char *const skip[] = {"nixl_threads", "ray_head", "ray_worker", NULL};
	struct buf key = {0};
	const char *v;

	buf_puts(out, "vllm serve ");
	sh_quote(out, serving_arg(s, "model"));
	buf_puts(out, " --host ");
	sh_quote(out, serving_arg(s, "host"));
	if (role == ROLE_SERVE) {
		serving_serve_args(s, ROLE_DECODE, true, skip, out);
		buf_printf(out, " --port %ld", s->port);
	} else {
		buf_printf(out, " --port %ld --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"%s\"",
		           s->port + (role == ROLE_PREFILL ? 100 : 200), role == ROLE_PREFILL ? "kv_producer" : "kv_consumer");
		buf_printf(&key, "%s.nixl_threads", role_table(role));
		if ((v = serving_arg(s, key.data)))
			buf_printf(out, ",\"kv_connector_extra_config\":{\"num_threads\":%s}", v);
		buf_puts(out, "}'");
		serving_serve_args(s, role, true, skip, out);
	}
	key.len = 0;
	buf_printf(&key, "%s.distributed_executor_backend", role == ROLE_SERVE ? "decode" : role_table(role));
	if (needs_ray(s, role) && !serving_arg(s, key.data))
		buf_puts(out, " --distributed-executor-backend ray");
	buf_free(&key);
}

static void
role_env(const struct serving *s, enum serving_role role, struct buf *out)
{
	(void)s;
	if (role == ROLE_PREFILL)
		buf_puts(out, " VLLM_NIXL_SIDE_CHANNEL_HOST=\"${PREFILL_NODE}\" VLLM_NIXL_SIDE_CHANNEL_PORT=\"$PREFILL_NIXL_PORT\"");
	else
		buf_puts(out, " VLLM_NIXL_SIDE_CHANNEL_HOST=\"${DECODE_NODE}\" VLLM_NIXL_SIDE_CHANNEL_PORT=\"$DECODE_NIXL_PORT\"");
}

static void
helper(const struct serving *s, struct buf *out)
{
	buf_puts(out, "python3 ");
	sh_quote(out, serving_arg(s, "proxy_script"));
	buf_puts(out, " --host ");
	sh_quote(out, serving_arg(s, "host"));
	buf_printf(out,
	           " --port %ld --prefiller-hosts ${PREFILL_NODE} --prefiller-ports %ld --decoder-hosts ${DECODE_NODE} "
	           "--decoder-ports %ld",
	           s->port, s->port + 100, s->port + 200);
}

static void
bench(const struct serving *s, struct buf *out)
{
	static const char *const known[] = {"random_input_len", "random_output_len", "max_concurrency", "num_prompts",
	                                    NULL};

	buf_puts(out, "vllm bench serve --model ");
	sh_quote(out, serving_arg(s, "model"));
	buf_puts(out, " --base-url http://");
	serving_bench_host(s, out);
	buf_printf(out,
	           ":%ld --random-input-len %s --random-output-len %s --max-concurrency %s --num-prompts %s "
	           "--result-dir \"$RUN_DIR\" --result-filename vllm-bench.json --save-result",
	           s->port, serving_arg(s, "bench_cmd_args.random_input_len"),
	           serving_arg(s, "bench_cmd_args.random_output_len"), serving_arg(s, "bench_cmd_args.max_concurrency"),
	           serving_arg(s, "bench_cmd_args.num_prompts"));
	serving_bench_extras(s, known, out);
}

static void
preamble(const struct serving *s, struct buf *out)
{
	if (!s->disagg) {
		if (needs_ray(s, ROLE_SERVE))
			buf_puts(out, "export PORT_OFFSET=$((SLURM_JOB_ID % 1000))\n"
			              "export SERVE_RAY_PORT=$((6379 + PORT_OFFSET))\n");
		return;
	}
	buf_printf(out,
	           "export PORT_OFFSET=$((SLURM_JOB_ID %% 1000))\n"
	           "export PREFILL_NIXL_PORT=$((5557 + PORT_OFFSET))\n"
	           "export DECODE_NIXL_PORT=$((5557 + PORT_OFFSET + %d))\n\n",
	           s->n_gpus);
	if (needs_ray(s, ROLE_PREFILL) || needs_ray(s, ROLE_DECODE))
		buf_puts(out, "export PREFILL_RAY_PORT=$((6379 + PORT_OFFSET))\n"
		              "export DECODE_RAY_PORT=$((7379 + PORT_OFFSET))\n");
}

static void
cleanup_vars(const struct serving *s, const char **pids, const char **steps)
{
	size_t n = 0;

	if (!s->disagg) {
		if (needs_ray(s, ROLE_SERVE)) {
			pids[n] = "SERVE_RAY_PID", steps[n++] = "SERVE_RAY_WORKER_STEP_IDS";
			pids[n] = "SERVE_PID", steps[n++] = "SERVE_RAY_HEAD_STEP_IDS";
		} else
			pids[n] = "SERVE_PID", steps[n++] = "SERVE_STEP_IDS";
		return;
	}
	if (needs_ray(s, ROLE_PREFILL))
		pids[n] = "PREFILL_RAY_PID", steps[n++] = "PREFILL_RAY_WORKER_STEP_IDS";
	if (needs_ray(s, ROLE_DECODE))
		pids[n] = "DECODE_RAY_PID", steps[n++] = "DECODE_RAY_WORKER_STEP_IDS";
	pids[n] = "PREFILL_PID", steps[n++] = needs_ray(s, ROLE_PREFILL) ? "PREFILL_RAY_HEAD_STEP_IDS" : "PREFILL_STEP_IDS";
	pids[n] = "DECODE_PID", steps[n++] = needs_ray(s, ROLE_DECODE) ? "DECODE_RAY_HEAD_STEP_IDS" : "DECODE_STEP_IDS";
	pids[n] = "HELPER_PID", steps[n++] = "HELPER_STEP_IDS";
}

static void
ray_stop(const struct serving *s, enum serving_role role, const char *var, struct buf *out)
{
	struct buf expr = {0};
	int n = serving_role_nodes(s, role);

	buf_printf(&expr, "${%s}", var);
	buf_printf(out, "    if [ -n \"${%s:-}\" ]; then\n        ", var);
	serving_role_prefix(s, expr.data, n, n, out);
	buf_printf(out,
	           " bash -lc 'ray stop --force >/dev/null 2>&1 || true' >/dev/null 2>&1 || true\n"
	           "    else\n"
	           "        echo \"Skipping Ray stop for %s: node list is not set\"\n"
	           "    fi\n",
	           serving_role_name(role));
	buf_free(&expr);
}

static void
cleanup_prelude(const struct serving *s, struct buf *out)
{
	bool serve = !s->disagg && needs_ray(s, ROLE_SERVE), p = s->disagg && needs_ray(s, ROLE_PREFILL),
	     d = s->disagg && needs_ray(s, ROLE_DECODE);

	if (!serve && !p && !d)
		return;
	buf_puts(out, "    echo \"Stopping Ray clusters...\"\n");
	if (serve)
		ray_stop(s, ROLE_SERVE, "SERVE_NODELIST", out);
	if (p)
		ray_stop(s, ROLE_PREFILL, "PREFILL_NODELIST", out);
	if (d)
		ray_stop(s, ROLE_DECODE, "DECODE_NODELIST", out);
}

/* `ray start` options: the generated ones the user did not set (values as
 * they are), then the user's (declared fields first, strings quoted),
 * from the role's ray_head or ray_worker table. */
static void
ray_args(const struct serving *s, const char *table, const char *const gen[][2], struct buf *out)
{
	static const char *const declared[] = {"head", "port", "address", "block"};
	const struct run *r = s->r;
	size_t n = strlen(table), i, j;
	bool first = true;

	for (i = 0; gen[i][0]; i++) {
		struct buf k = {0};
		buf_printf(&k, "%s.%s", table, gen[i][0]);
		for (j = 0; j < r->args.len && strcmp(r->args.items[j].key, k.data); j++)
			;
		buf_free(&k);
		if (j < r->args.len)
			continue;
		buf_printf(out, "%s--%s", first ? "" : " ", gen[i][0]);
		if (gen[i][1])
			buf_printf(out, "=%s", gen[i][1]);
		first = false;
	}
	for (i = 0; i <= LEN(declared); i++)
		for (j = 0; j < r->args.len; j++) {
			const char *key = r->args.items[j].key, *k, *v = r->args.items[j].value;
			bool is_decl = false;
			size_t d;
			if (strncmp(key, table, n) != 0 || key[n] != '.')
				continue;
			k = key + n + 1;
			for (d = 0; d < LEN(declared); d++)
				is_decl |= strcmp(k, declared[d]) == 0;
			if (i < LEN(declared) ? strcmp(k, declared[i]) != 0 : is_decl)
				continue;
			if (workload_is_bool(r, key) && !workload_true(v))
				continue;
			buf_puts(out, first ? "--" : " --");
			for (; *k; k++)
				buf_putc(out, *k == '_' ? '-' : *k);
			if (!workload_is_bool(r, key)) {
				buf_putc(out, '=');
				sh_quote_cont(out, v);
			}
			first = false;
		}
}

/* CloudAI's Ray launch of a role on several nodes: workers on all but the
 * first node, the head on the first, which starts vLLM once every node
 * has joined. */
static void
launch_multi(const struct serving *s, enum serving_role role, const char *cmd, struct buf *out)
{
	const char *rn = serving_role_name(role), *wait = serving_arg(s, "serve_wait_seconds");
	const char *tbl = role == ROLE_PREFILL ? "prefill" : "decode";
	int n = serving_role_nodes(s, role);
	struct buf up = {0}, head = {0}, t = {0}, inner = {0}, tmp = {0}, var = {0};
	const char *node_var;
	size_t i;

	buf_puts(&up, rn);
	for (i = 0; i < up.len; i++)
		up.data[i] = (char)(up.data[i] - 32);
	node_var = role == ROLE_PREFILL ? "PREFILL_NODE" : role == ROLE_DECODE ? "DECODE_NODE" : "SERVE_NODE";
	buf_printf(&head, "${%s}:${%s_RAY_PORT}", node_var, up.data);

	/* workers */
	buf_printf(&tmp, "\"${%s_RAY_PORT}\"", up.data);
	{
		const char *const gen[][2] = {{"address", head.data}, {"block", NULL}, {NULL, NULL}};
		buf_printf(&t, "%s.ray_worker", tbl);
		buf_puts(&inner, "ray stop --force >/dev/null 2>&1 || true\n");
		buf_printf(&inner, "for (( i=0; i < %s; i+=5 )); do\n    if ray start ", wait);
		ray_args(s, t.data, gen, &inner);
		buf_printf(&inner,
		           "; then\n"
		           "        echo \"Ray worker connected to %s\"\n"
		           "        exit 0\n"
		           "    fi\n"
		           "    echo \"Waiting until the Ray worker can connect to %s...\"\n"
		           "    sleep 5\n"
		           "done\n"
		           "echo \"Ray worker startup timed out for %s\"\n"
		           "exit 1",
		           head.data, head.data, head.data);
	}
	buf_printf(out, "(\n    trap 'kill -TERM $(jobs -pr) 2>/dev/null' TERM EXIT\n    for node in \"${%s_NODES[@]:1}\"; do\n        ",
	           up.data);
	serving_role_prefix(s, "$node", 1, 1, out);
	buf_printf(out, " --job-name=cloudai-vllm-%s-ray-worker \\\n            --output=\"$RUN_DIR/vllm-%s-ray-worker-%%N.log\" \\\n            bash -lc ",
	           rn, rn);
	sh_quote(out, inner.data);
	buf_printf(out, " &\n    done\n    wait\n) &\n%s_RAY_PID=$!\n", up.data);
	buf_printf(&var, "%s_RAY_WORKER_STEP_IDS", up.data);
	t.len = 0;
	buf_printf(&t, "%s-ray-worker", rn);
	serving_step_discovery(s, t.data, var.data, n - 1, out);
	buf_putc(out, '\n');

	/* head */
	inner.len = 0;
	t.len = 0;
	buf_printf(&t, "%s.ray_head", tbl);
	{
		const char *const gen[][2] = {{"head", NULL}, {"port", tmp.data}, {NULL, NULL}};
		buf_puts(&inner, "ray stop --force >/dev/null 2>&1 || true\nray start ");
		ray_args(s, t.data, gen, &inner);
	}
	buf_printf(&inner,
	           "\n\nactive_nodes=0\n"
	           "for (( i=0; i < %s; i+=5 )); do\n"
	           "    active_nodes=$(python3 -c 'import ray; ray.init(); print(sum(node[\"Alive\"] for node in ray.nodes()))')\n"
	           "    if [ \"$active_nodes\" -eq \"%d\" ]; then\n"
	           "        echo \"All Ray workers are active: $active_nodes/%d\"\n"
	           "        ray status || true\n"
	           "        exec ",
	           wait, n, n);
	tmp.len = 0;
	buf_printf(&tmp, "env RAY_ADDRESS=\"%s\" %s", head.data, cmd);
	serving_custom(s, tmp.data, &inner);
	buf_printf(&inner,
	           "\n    fi\n"
	           "    echo \"Waiting for Ray workers: $active_nodes/%d active\"\n"
	           "    sleep 5\n"
	           "done\n\n"
	           "echo \"Waiting for Ray workers timed out: $active_nodes/%d active\"\n"
	           "exit 1",
	           n, n);
	tmp.len = 0;
	buf_printf(&tmp, "${%s}", node_var);
	serving_role_prefix(s, tmp.data, 1, 1, out);
	buf_printf(out,
	           " --job-name=cloudai-vllm-%s-ray-head \\\n"
	           "    --output=\"$RUN_DIR/vllm-%s.log\" \\\n"
	           "    --error=\"$RUN_DIR/vllm-%s-ray-head.log\" \\\n"
	           "    bash -lc ",
	           rn, rn, rn);
	sh_quote(out, inner.data);
	buf_printf(out, " &\n%s_PID=$!\n", up.data);
	var.len = 0;
	buf_printf(&var, "%s_RAY_HEAD_STEP_IDS", up.data);
	t.len = 0;
	buf_printf(&t, "%s-ray-head", rn);
	serving_step_discovery(s, t.data, var.data, 1, out);
	buf_free(&up);
	buf_free(&head);
	buf_free(&t);
	buf_free(&inner);
	buf_free(&tmp);
	buf_free(&var);
}

/* CloudAI reads proxy_healthcheck, unless only healthcheck was set. */
static const char *
helper_health(const struct serving *s)
{
	size_t i;
	bool proxy = false, hc = false;

	for (i = 0; i < s->r->args.len; i++) {
		proxy |= strcmp(s->r->args.items[i].key, "proxy_healthcheck") == 0;
		hc |= strcmp(s->r->args.items[i].key, "healthcheck") == 0;
	}
	return serving_arg(s, !proxy && hc ? "healthcheck" : "proxy_healthcheck");
}

/* CloudAI's was_run_successful: vllm-bench.log has a result block whose
 * "Successful requests:" is above 0; with a semantic check, an accuracy in
 * vllm-gsm8k.json or vllm-semantic-eval.log. */
static void
check(const struct serving *s, struct buf *out)
{
	buf_puts(out, "awk '/============ Serving Benchmark Result ============/ { m = 1; next } "
	              "m && /Successful requests:/ && $3 + 0 > 0 { ok = 1 } END { exit !ok }' \"$RUN_DIR/vllm-bench.log\"");
	if (serving_semantic(s))
		buf_puts(out, " &&\n    { grep -Eq '\"accuracy\": *-?[0-9.]' \"$RUN_DIR/vllm-gsm8k.json\" 2>/dev/null ||\n"
		              "      grep -Eq 'Accuracy:[[:space:]]*[0-9]*\\.?[0-9]' \"$RUN_DIR/vllm-semantic-eval.log\"; }");
}

static const struct serving_ops ops = {
	.name = "vLLM",
	.slug = "vllm",
	.serve = serve,
	.helper = helper,
	.bench = bench,
	.role_env = role_env,
	.semantic_http = true,
	.preamble = preamble,
	.launch_multi = launch_multi,
	.cleanup_vars = cleanup_vars,
	.cleanup_prelude = cleanup_prelude,
	.helper_health = helper_health,
	.check = check,
};

static void
command(const struct run *r, struct buf *out)
{
	(void)r;
	buf_puts(out, "vllm serve");
}

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	{INST_HF_MODEL, "cmd_args.model", NULL, NULL, NULL},
	{INST_GIT, "cmd_args.proxy_script_repo.url", "cmd_args.proxy_script_repo.commit", NULL, NULL},
};

const struct workload wl_vllm = {
	.name = "vllm",
	.args = args,
	.n_args = LEN(args),
	.command = command,
	.grader = "vllm",
	.installables = installables,
	.n_installables = LEN(installables),
	.tables = tables,
	.family = &ops,
	SERVING_WORKLOAD,
};
