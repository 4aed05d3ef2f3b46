/* wl_dynamo_mocker.c: DynamoMocker, Dynamo's GPU-free inference simulator
 * (dynamo.mocker workers behind dynamo.frontend) benchmarked by genai-perf
 * or aiperf, as CloudAI's DynamoMockerCmdArgs and its standalone strategy
 * build it: the wrapper dynamo_mocker.sh with every setting as a flag, in
 * a python environment with ai-dynamo, genai-perf and aiperf. kunai also
 * runs it on a Slurm system, in the batch script itself. */
#include <string.h>

#include "wl_serve.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const modes[] = {"none", "prefill_decode", NULL};
static const char *const routers[] = {"round_robin", "kv_router", NULL};
static const char *const tools[] = {"genai_perf", "aiperf", NULL};
static const char *const replay[] = {"offline", "online", NULL};

#define INSTANCE(W)                                                                      \
	{"worker." W ".num_nodes", ARG_INT, "1", NULL, false},                           \
	{"worker." W ".cmd", ARG_STRING, "", NULL, false},                               \
	{"worker." W ".worker_initialized_regex", ARG_STRING, "created and running", NULL, false}, \
	{"worker." W ".extra_args", ARG_STRING, NULL, NULL, false},                      \
	{"worker." W ".args.*", ARG_ANY, NULL, NULL, false},                             \
	{"worker." W ".*", ARG_ANY, NULL, NULL, false}

#define BENCH(B)                                                                         \
	{B ".cmd", ARG_STRING, "", NULL, false},                                         \
	{B ".extra_args", ARG_STRING, NULL, NULL, false},                                \
	{B ".input_tokens", ARG_INT, "5000", NULL, false},                               \
	{B ".output_tokens", ARG_INT, "500", NULL, false},                               \
	{B ".request_count", ARG_INT, "1000", NULL, false},                              \
	{B ".replay_concurrency", ARG_INT, "100", NULL, false},                          \
	{B ".replay_mode", ARG_STRING, "offline", replay, false},                        \
	{B ".*", ARG_ANY, NULL, NULL, false}

/* DynamoMockerCmdArgs flattened (every table takes keys of its own, which
 * the wrapper gets as --<section>-<key>). */
static const struct arg_schema args[] = {
	{"model_path", ARG_STRING, "Qwen/Qwen3-0.6B", NULL, false},
	{"nats_cmd", ARG_STRING, "nats-server -js", NULL, false},
	{"engine.speedup_ratio", ARG_FLOAT, "1.0", NULL, false},
	{"engine.block_size", ARG_INT, "64", NULL, false},
	{"engine.num_gpu_blocks_override", ARG_INT, "16384", NULL, false},
	{"engine.enable_prefix_caching", ARG_BOOL, "True", NULL, false},
	{"engine.kv_transfer_bandwidth", ARG_FLOAT, "200.0", NULL, false},
	{"engine.*", ARG_ANY, NULL, NULL, false},
	{"worker.disaggregation_mode", ARG_STRING, "none", modes, false},
	{"worker.num_workers", ARG_INT, "1", NULL, false},
	INSTANCE("prefill_worker"),
	INSTANCE("decode_worker"),
	{"worker.*", ARG_ANY, NULL, NULL, false},
	{"frontend.http_port", ARG_INT, "8000", NULL, false},
	{"frontend.router_mode", ARG_STRING, "round_robin", routers, false},
	{"frontend.*", ARG_ANY, NULL, NULL, false},
	{"benchmark_tool", ARG_STRING, "genai_perf", tools, false},
	BENCH("genai_perf"),
	BENCH("aiperf"),
};

#define VENV "dynamo-mocker-py3.12-73eeb678863b"

/* CloudAI's PythonEnvironment (dynamo-mocker, python 3.12) and kunai's
 * own wrapper. */
static const struct installable installables[] = {
	{INST_VENV, "ai-dynamo\ngenai-perf\naiperf", "3.12", VENV, NULL},
	{INST_FILE, "workloads/serve/dynamo_mocker.sh", NULL, "dynamo_mocker.sh", NULL},
};

static void
flag(struct buf *out, const char *name, const char *value)
{
	buf_printf(out, " --%s ", name);
	sh_quote(out, value ? value : "");
}

/* " --<prefix>-<key with dashes> value" for each key the run sets directly
 * under table that is none of declared; booleans as true/false. */
static void
extras(const struct run *r, const char *table, const char *prefix, const char *const *declared,
       struct buf *out)
{
	size_t i, j, n = strlen(table), at;

	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key, *v = r->args.items[i].value;
		if (strncmp(k, table, n) != 0 || k[n] != '.' || strchr(k + n + 1, '.'))
			continue;
		for (j = 0; declared && declared[j] && strcmp(declared[j], k + n + 1) != 0; j++)
			;
		if (declared && declared[j])
			continue;
		buf_printf(out, " --%s-", prefix);
		at = out->len;
		buf_puts(out, k + n + 1);
		for (j = at; j < out->len; j++)
			if (out->data[j] == '_')
				out->data[j] = '-';
		buf_putc(out, ' ');
		if (workload_is_bool(r, k))
			v = workload_true(v) ? "true" : "false";
		sh_quote(out, v);
	}
}

static void
command(const struct run *r, struct buf *out)
{
	static const char *const engine[] = {
		"speedup_ratio", "block_size", "num_gpu_blocks_override", "enable_prefix_caching",
		"kv_transfer_bandwidth", NULL,
	};
	static const char *const worker[] = {"disaggregation_mode", "num_workers", "prefill_worker", "decode_worker", NULL};
	static const char *const frontend[] = {"http_port", "router_mode", NULL};
	static const char *const bench_own[] = {
		"cmd", "extra_args", "input_tokens", "output_tokens", "request_count", "replay_concurrency",
		"replay_mode", NULL,
	};
	const char *tool = workload_value(r, "benchmark_tool"), *v;
	bool aiperf = strcmp(tool, "aiperf") == 0;
	const char *b = aiperf ? "aiperf" : "genai_perf", *bp = aiperf ? "aiperf" : "genai-perf";
	struct buf k = {0};
	size_t i;

	buf_puts(out, "bash ");
	serve_install_dir(r, out);
	buf_puts(out, "/dynamo_mocker.sh --venv-python ");
	serve_install_dir(r, out);
	/* the job runs in its run dir */
	buf_puts(out, "/" VENV "/bin/python --result-dir \"$PWD\"");
	flag(out, "model-path", workload_value(r, "model_path"));
	flag(out, "nats-cmd", workload_value(r, "nats_cmd"));
	flag(out, "speedup-ratio", workload_value(r, "engine.speedup_ratio"));
	flag(out, "block-size", workload_value(r, "engine.block_size"));
	flag(out, "num-gpu-blocks-override", workload_value(r, "engine.num_gpu_blocks_override"));
	flag(out, "enable-prefix-caching", workload_true(workload_value(r, "engine.enable_prefix_caching")) ? "true" : "false");
	flag(out, "http-port", workload_value(r, "frontend.http_port"));
	flag(out, "router-mode", workload_value(r, "frontend.router_mode"));
	flag(out, "disaggregation-mode", workload_value(r, "worker.disaggregation_mode"));
	flag(out, "benchmark-tool", tool);
	for (i = 2; i < 7; i++) {
		k.len = 0;
		buf_printf(&k, "%s.%s", b, bench_own[i]);
		buf_printf(out, " --%s ", i == 2 ? "input-tokens" : i == 3 ? "output-tokens" : i == 4 ? "request-count"
		                          : i == 5 ? "replay-concurrency" : "replay-mode");
		sh_quote(out, workload_value(r, buf_str(&k)));
	}
	if (strcmp(workload_value(r, "worker.disaggregation_mode"), "none") == 0)
		flag(out, "num-workers", workload_value(r, "worker.num_workers"));
	else {
		flag(out, "prefill-num-nodes", workload_value(r, "worker.prefill_worker.num_nodes"));
		flag(out, "decode-num-nodes", workload_value(r, "worker.decode_worker.num_nodes"));
		flag(out, "kv-transfer-bandwidth", workload_value(r, "engine.kv_transfer_bandwidth"));
		flag(out, "prefill-initialized-regex", workload_value(r, "worker.prefill_worker.worker_initialized_regex"));
		flag(out, "decode-initialized-regex", workload_value(r, "worker.decode_worker.worker_initialized_regex"));
		if (*(v = workload_value(r, "worker.prefill_worker.cmd")))
			flag(out, "prefill-cmd", v);
		if (*(v = workload_value(r, "worker.decode_worker.cmd")))
			flag(out, "decode-cmd", v);
	}
	extras(r, "worker.prefill_worker.args", "prefill-args", NULL, out);
	if ((v = workload_value(r, "worker.prefill_worker.extra_args")) && *v)
		flag(out, "prefill-extra-args", v);
	extras(r, "worker.decode_worker.args", "decode-args", NULL, out);
	if ((v = workload_value(r, "worker.decode_worker.extra_args")) && *v)
		flag(out, "decode-extra-args", v);
	extras(r, "engine", "engine", engine, out);
	extras(r, "worker", "mocker", worker, out);
	extras(r, "frontend", "frontend", frontend, out);
	k.len = 0;
	buf_printf(&k, "%s.cmd", b);
	if (*(v = workload_value(r, buf_str(&k)))) {
		buf_printf(out, " --%s-cmd ", bp);
		sh_quote(out, v);
	}
	k.len = 0;
	buf_printf(&k, "%s.extra_args", b);
	if ((v = workload_value(r, buf_str(&k))) && *v) {
		buf_printf(out, " --%s-extra-args ", bp);
		sh_quote(out, v);
	}
	extras(r, b, bp, bench_own, out);
	/* CloudAI's success check: no failure marker, a success marker, the report */
	buf_puts(out, " && test ! -f failure-marker.txt && test -f success-marker.txt && test -f benchmark_report.csv");
	buf_free(&k);
}

/* CloudAI's bounds: counts and rates above zero. */
static bool
validate(const struct argset *a, struct buf *msg, const struct toml_value **where)
{
	static const char *const pos[] = {
		"engine.speedup_ratio", "engine.block_size", "engine.num_gpu_blocks_override",
		"engine.kv_transfer_bandwidth", "worker.num_workers", "worker.prefill_worker.num_nodes",
		"worker.decode_worker.num_nodes", "genai_perf.input_tokens", "genai_perf.output_tokens",
		"genai_perf.request_count", "genai_perf.replay_concurrency", "aiperf.input_tokens",
		"aiperf.output_tokens", "aiperf.request_count", "aiperf.replay_concurrency", NULL,
	};
	const struct toml_value *v, *e;
	size_t i, j;

	for (i = 0; pos[i]; i++) {
		if (!(v = serve_arg(a, pos[i])))
			continue;
		for (j = 0; j < (v->type == TOML_ARRAY ? v->u.array->len : 1); j++) {
			e = v->type == TOML_ARRAY ? v->u.array->items[j] : v;
			if ((e->type == TOML_INTEGER && e->u.integer <= 0) || (e->type == TOML_FLOAT && !(e->u.flt > 0))) {
				*where = e;
				buf_printf(msg, "'%s' must be greater than 0", pos[i]);
				return false;
			}
		}
	}
	if ((v = serve_arg(a, "frontend.http_port")) && v->type == TOML_INTEGER &&
	    (v->u.integer < 1 || v->u.integer > 65535)) {
		*where = v;
		buf_puts(msg, "'frontend.http_port' must be a port (1 to 65535)");
		return false;
	}
	return true;
}

const struct workload wl_dynamo_mocker = {
	.name = "DynamoMocker",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.in_batch = true,
	.command = command,
	.grader = "serve",
	.installables = installables,
	.n_installables = LEN(installables),
	.validate = validate,
};
