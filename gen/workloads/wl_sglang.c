/* wl_sglang.c: CloudAI's SGLang (test_template_name "sglang"):
 * sglang.launch_server, aggregated (several nodes by --dist-init-addr) or
 * disaggregated prefill/decode with sglang_router, then sglang.bench_serving
 * (sglang.py, slurm_command_gen_strategy.py). The script is wl_serving.c's. */
#include <stdlib.h>
#include <string.h>

#include "wl_serving.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/model/expand.h"

#define ROLE_ARGS(R)                                                                     \
	{R, ARG_TABLE, NULL, NULL, false}, {R ".gpu_ids", ARG_STRING, NULL, NULL, false}, \
		{R ".num_nodes", ARG_INT, NULL, NULL, false},                             \
		{R ".disaggregation_transfer_backend", ARG_STRING, "nixl", NULL, false},  \
		{R ".*", ARG_ANY, NULL, NULL, false}

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"model", ARG_STRING, "Qwen/Qwen3-8B", NULL, false},
	{"port", ARG_INT, "8300", NULL, false},
	{"host", ARG_STRING, "0.0.0.0", NULL, false},
	{"bench_host", ARG_STRING, NULL, NULL, false},
	{"healthcheck", ARG_STRING, "/v1/models", NULL, false},
	{"serve_healthcheck", ARG_STRING, NULL, NULL, false},
	{"serve_wait_seconds", ARG_INT, "300", NULL, false},
	{"serve_module", ARG_STRING, "sglang.launch_server", NULL, false},
	{"router_module", ARG_STRING, "sglang_router.launch_router", NULL, false},
	{"bench_module", ARG_STRING, "sglang.bench_serving", NULL, false},
	ROLE_ARGS("prefill"),
	ROLE_ARGS("decode"),
	/* the test definition's own tables (workload.tables) */
	{"bench_cmd_args", ARG_TABLE, NULL, NULL, false},
	{"bench_cmd_args.backend", ARG_STRING, "sglang", NULL, false},
	{"bench_cmd_args.dataset_name", ARG_STRING, "random", NULL, false},
	{"bench_cmd_args.num_prompts", ARG_INT, "30", NULL, false},
	{"bench_cmd_args.max_concurrency", ARG_INT, "16", NULL, false},
	{"bench_cmd_args.random_input", ARG_INT, "16", NULL, false},
	{"bench_cmd_args.random_output", ARG_INT, "128", NULL, false},
	{"bench_cmd_args.warmup_requests", ARG_INT, "2", NULL, false},
	{"bench_cmd_args.random_range_ratio", ARG_FLOAT, "1.0", NULL, false},
	{"bench_cmd_args.output_details", ARG_BOOL, "True", NULL, false},
	{"bench_cmd_args.*", ARG_ANY, NULL, NULL, false},
	{"semantic_eval_cmd_args", ARG_TABLE, NULL, NULL, false},
	{"semantic_eval_cmd_args.entrypoint", ARG_STRING, "python3 -m sglang.test.run_eval", NULL, false},
	{"semantic_eval_cmd_args.cli", ARG_STRING,
	 "--host {host} --port {port} --eval-name gsm8k --num-examples 200 --num-threads 128 --model {model}", NULL,
	 false},
	{"custom_bash", ARG_STRING, NULL, NULL, false},
	{"custom_bash.*", ARG_STRING, NULL, NULL, false},
};

static const char *const tables[] = {"bench_cmd_args", "semantic_eval_cmd_args", "custom_bash", NULL};

static void
serve(const struct serving *s, enum serving_role role, struct buf *out)
{
	static const char *const skip[] = {"disaggregation_transfer_backend", NULL};

	buf_puts(out, "python3 -m ");
	sh_quote(out, serving_arg(s, "serve_module"));
	buf_puts(out, " --model-path ");
	sh_quote(out, serving_arg(s, "model"));
	buf_puts(out, " --host ");
	sh_quote(out, serving_arg(s, "host"));
	if (role == ROLE_SERVE) {
		buf_printf(out, " --port %ld", s->port);
		serving_serve_args(s, ROLE_DECODE, false, skip, out);
		return;
	}
	buf_printf(out, " --port %ld --disaggregation-mode %s --disaggregation-transfer-backend ",
	           s->port + (role == ROLE_PREFILL ? 100 : 200), serving_role_name(role));
	sh_quote(out, serving_arg(s, role == ROLE_PREFILL ? "prefill.disaggregation_transfer_backend"
	                                                  : "decode.disaggregation_transfer_backend"));
	serving_serve_args(s, role, false, skip, out);
}

static void
helper(const struct serving *s, struct buf *out)
{
	buf_puts(out, "python3 -m ");
	sh_quote(out, serving_arg(s, "router_module"));
	buf_printf(out, " --pd-disaggregation --prefill http://${PREFILL_NODE}:%ld --decode http://${DECODE_NODE}:%ld --host ",
	           s->port + 100, s->port + 200);
	sh_quote(out, serving_arg(s, "host"));
	buf_printf(out, " --port %ld", s->port);
}

static void
opt(struct buf *out, const char *flag, const char *v)
{
	buf_printf(out, " %s ", flag);
	sh_quote(out, v);
}

static void
bench(const struct serving *s, struct buf *out)
{
	static const char *const known[] = {"backend", "dataset_name", "num_prompts", "max_concurrency", "random_input",
	                                    "random_output", "warmup_requests", "random_range_ratio", "output_details",
	                                    NULL};
	const char *ratio = serving_arg(s, "bench_cmd_args.random_range_ratio");

	buf_puts(out, "python3 -m ");
	sh_quote(out, serving_arg(s, "bench_module"));
	opt(out, "--backend", serving_arg(s, "bench_cmd_args.backend"));
	buf_puts(out, " --base-url http://");
	serving_bench_host(s, out);
	buf_printf(out, ":%ld", s->port);
	opt(out, "--model", serving_arg(s, "model"));
	opt(out, "--dataset-name", serving_arg(s, "bench_cmd_args.dataset_name"));
	opt(out, "--num-prompts", serving_arg(s, "bench_cmd_args.num_prompts"));
	opt(out, "--max-concurrency", serving_arg(s, "bench_cmd_args.max_concurrency"));
	opt(out, "--random-input", serving_arg(s, "bench_cmd_args.random_input"));
	opt(out, "--random-output", serving_arg(s, "bench_cmd_args.random_output"));
	opt(out, "--warmup-requests", serving_arg(s, "bench_cmd_args.warmup_requests"));
	/* a float, as Python prints it: 1 -> 1.0 */
	opt(out, "--random-range-ratio", ratio);
	if (!strpbrk(ratio, ".eEn"))
		buf_puts(out, ".0");
	buf_puts(out, " --output-file \"$RUN_DIR/sglang-bench.jsonl\"");
	serving_bench_extras(s, known, out);
	if (workload_true(serving_arg(s, "bench_cmd_args.output_details")))
		buf_puts(out, " --output-details");
	if (s->disagg)
		buf_puts(out, " --pd-separated");
}

static bool
multi(const struct serving *s, enum serving_role role)
{
	return serving_role_nodes(s, role) > 1;
}

static void
preamble(const struct serving *s, struct buf *out)
{
	if (!s->disagg && multi(s, ROLE_SERVE))
		buf_puts(out, "export PORT_OFFSET=$((SLURM_JOB_ID % 1000))\n"
		              "export SERVE_DIST_INIT_PORT=$((20000 + PORT_OFFSET))\n\n");
	else if (s->disagg && (multi(s, ROLE_PREFILL) || multi(s, ROLE_DECODE)))
		buf_puts(out, "export PORT_OFFSET=$((SLURM_JOB_ID % 1000))\n"
		              "export PREFILL_DIST_INIT_PORT=$((20000 + PORT_OFFSET))\n"
		              "export DECODE_DIST_INIT_PORT=$((21000 + PORT_OFFSET))\n\n");
}

/* One task per node, each told the first node's address and its rank. */
static void
launch_multi(const struct serving *s, enum serving_role role, const char *cmd, struct buf *out)
{
	const char *rn = serving_role_name(role);
	const char *up = role == ROLE_PREFILL ? "PREFILL" : role == ROLE_DECODE ? "DECODE" : "SERVE";
	int n = serving_role_nodes(s, role);
	struct buf t = {0};
	const char *c;

	buf_printf(&t, "${%s_NODELIST}", up);
	serving_role_prefix(s, t.data, n, n, out);
	buf_printf(out, " \\\n    --output=\"$RUN_DIR/sglang-%s.log-%%N\" \\\n    bash -c ", rn);
	/* custom_bash is chosen by the command without the launch options */
	t.len = 0;
	if ((c = serving_custom_text(s, cmd)))
		buf_printf(&t, "%s; ", c);
	buf_printf(&t, "exec %s --dist-init-addr \"${%s_NODE}:${%s_DIST_INIT_PORT}\" --nnodes %d --node-rank \"$SLURM_PROCID\"",
	           cmd, up, up, n);
	sh_quote(out, t.data);
	buf_printf(out, " &\n%s_PID=$!", up);
	buf_free(&t);
}

static void
cleanup_vars(const struct serving *s, const char **pids, const char **steps)
{
	if (!s->disagg) {
		pids[0] = "SERVE_PID", steps[0] = "SERVE_STEP_IDS";
		return;
	}
	pids[0] = "PREFILL_PID", steps[0] = "PREFILL_STEP_IDS";
	pids[1] = "DECODE_PID", steps[1] = "DECODE_STEP_IDS";
	pids[2] = "HELPER_PID", steps[2] = "HELPER_STEP_IDS";
}

static const char *
helper_health(const struct serving *s)
{
	return serving_arg(s, "healthcheck");
}

/* CloudAI's was_run_successful: sglang-bench.jsonl holds a record with
 * "completed" above 0; with a semantic check, a score in its log. */
static void
check(const struct serving *s, struct buf *out)
{
	buf_puts(out, "grep -Eq '\"completed\": *[1-9]' \"$RUN_DIR/sglang-bench.jsonl\"");
	if (serving_semantic(s))
		buf_puts(out, " &&\n    grep -Eq '(Score|Accuracy):[[:space:]]*[0-9]*\\.?[0-9]' \"$RUN_DIR/sglang-semantic-eval.log\"");
}

static const struct serving_ops ops = {
	.name = "SGLang",
	.slug = "sglang",
	.serve = serve,
	.helper = helper,
	.bench = bench,
	.serve_env_gpus = true,
	.preamble = preamble,
	.launch_multi = launch_multi,
	.cleanup_vars = cleanup_vars,
	.helper_health = helper_health,
	.check = check,
};

static void
command(const struct run *r, struct buf *out)
{
	(void)r;
	buf_puts(out, "python3 -m sglang.launch_server");
}

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	{INST_HF_MODEL, "cmd_args.model", NULL, NULL, NULL},
};

const struct workload wl_sglang = {
	.name = "sglang",
	.args = args,
	.n_args = LEN(args),
	.command = command,
	.grader = "sglang",
	.installables = installables,
	.n_installables = LEN(installables),
	.tables = tables,
	.family = &ops,
	SERVING_WORKLOAD,
};
