/* wl_aiconfig.c: Aiconfigurator, NVIDIA's aiconfigurator predicting the
 * latency and throughput of an aggregated or a disaggregated (prefill and
 * decode workers) serving configuration without a GPU, as CloudAI's
 * AiconfiguratorCmdArgs and its standalone strategy build it: CloudAI's
 * predictor script (from CloudAI's repository; kunai ships no Python) in a
 * python environment with aiconfigurator, writing report.json. kunai also
 * runs it on a Slurm system, in the batch script itself. */
#include <string.h>

#include "wl_serve.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

/* AiconfiguratorCmdArgs, Agg and Disagg flattened (both tables take keys
 * of their own, which CloudAI's command leaves out). */
static const struct arg_schema args[] = {
	{"model_name", ARG_STRING, NULL, NULL, true},
	{"system", ARG_STRING, NULL, NULL, true},
	{"backend", ARG_STRING, "trtllm", NULL, false},
	{"version", ARG_STRING, "0.20.0", NULL, false},
	{"isl", ARG_INT, NULL, NULL, true},
	{"osl", ARG_INT, NULL, NULL, true},
	{"agg.batch_size", ARG_INT, NULL, NULL, false},
	{"agg.ctx_tokens", ARG_INT, NULL, NULL, false},
	{"agg.tp", ARG_INT, "1", NULL, false},
	{"agg.pp", ARG_INT, "1", NULL, false},
	{"agg.dp", ARG_INT, "1", NULL, false},
	{"agg.moe_tp", ARG_INT, "1", NULL, false},
	{"agg.moe_ep", ARG_INT, "1", NULL, false},
	{"agg.*", ARG_ANY, NULL, NULL, false},
	{"disagg.p_tp", ARG_INT, NULL, NULL, false},
	{"disagg.p_pp", ARG_INT, NULL, NULL, false},
	{"disagg.p_dp", ARG_INT, NULL, NULL, false},
	{"disagg.p_bs", ARG_INT, NULL, NULL, false},
	{"disagg.p_workers", ARG_INT, NULL, NULL, false},
	{"disagg.d_tp", ARG_INT, NULL, NULL, false},
	{"disagg.d_pp", ARG_INT, NULL, NULL, false},
	{"disagg.d_dp", ARG_INT, NULL, NULL, false},
	{"disagg.d_bs", ARG_INT, NULL, NULL, false},
	{"disagg.d_workers", ARG_INT, NULL, NULL, false},
	{"disagg.prefill_correction_scale", ARG_FLOAT, "1.0", NULL, false},
	{"disagg.decode_correction_scale", ARG_FLOAT, "1.0", NULL, false},
	{"disagg.*", ARG_ANY, NULL, NULL, false},
};

#define VENV "aiconfigurator-py3.10-f5c92280eed1"
#define CLOUDAI "cloudai__5b5c0f72"

/* CloudAI's PythonEnvironment (name aiconfigurator, python 3.10, its
 * requirements; the venv named as CloudAI names it) and the repository
 * that holds CloudAI's predictor. */
static const struct installable installables[] = {
	{INST_VENV, "aiconfigurator~=0.5.0", "3.10", VENV, NULL},
	{INST_GIT, "https://github.com/NVIDIA/cloudai.git", "5b5c0f72", NULL, NULL},
};

static const char *const agg_keys[] = {"batch_size", "ctx_tokens", "tp", "pp", "dp", "moe_tp", "moe_ep", NULL};
static const char *const disagg_keys[] = {
	"p_tp", "p_pp", "p_dp", "p_bs", "p_workers", "d_tp", "d_pp", "d_dp", "d_bs", "d_workers",
	"prefill_correction_scale", "decode_correction_scale", NULL,
};
static const char *const required[] = {
	"p_tp", "p_pp", "p_dp", "p_bs", "p_workers", "d_tp", "d_pp", "d_dp", "d_bs", "d_workers", NULL,
};

/* " --flag value" with the flag spelled with dashes. */
static void
flag(struct buf *out, const char *name, const char *value)
{
	size_t i, at;

	buf_puts(out, " --");
	at = out->len;
	buf_puts(out, name);
	for (i = at; i < out->len; i++)
		if (out->data[i] == '_')
			out->data[i] = '-';
	buf_putc(out, ' ');
	sh_quote(out, value ? value : "");
}

static void
command(const struct run *r, struct buf *out)
{
	static const char *const top[] = {"model_name", "system", "backend", "version", "isl", "osl", NULL};
	bool agg = workload_has_prefix(r, "agg.");
	const char *const *k = agg ? agg_keys : disagg_keys;
	struct buf key = {0};
	size_t i;

	serve_install_dir(r, out);
	buf_puts(out, "/" VENV "/bin/python ");
	serve_install_dir(r, out);
	buf_puts(out, "/" CLOUDAI "/src/cloudai/workloads/aiconfig/runtime/simple_predictor.py");
	for (i = 0; top[i]; i++)
		flag(out, top[i], workload_value(r, top[i]));
	buf_printf(out, " --mode %s", agg ? "agg" : "disagg");
	for (i = 0; k[i]; i++) {
		key.len = 0;
		buf_printf(&key, "%s.%s", agg ? "agg" : "disagg", k[i]);
		flag(out, k[i], workload_value(r, buf_str(&key)));
	}
	/* the job runs in its run dir */
	buf_puts(out, " --output report.json");
	buf_free(&key);
}

/* CloudAI's model: exactly one of agg and disagg, each with its required
 * fields. */
static bool
validate(const struct argset *a, struct buf *msg, const struct toml_value **where)
{
	bool agg = serve_has(a, "agg."), disagg = serve_has(a, "disagg.");
	const char *const *need = agg ? (const char *const[]){"batch_size", "ctx_tokens", NULL} : required;
	struct buf key = {0};
	size_t i;

	*where = NULL;
	if (agg == disagg) {
		buf_puts(msg, agg ? "only one of [cmd_args.agg] and [cmd_args.disagg] may be given"
		                  : "either [cmd_args.agg] or [cmd_args.disagg] must be given");
		return false;
	}
	for (i = 0; need[i]; i++) {
		key.len = 0;
		buf_printf(&key, "%s.%s", agg ? "agg" : "disagg", need[i]);
		if (!serve_arg(a, buf_str(&key))) {
			buf_printf(msg, "missing required key '%s' in cmd_args", buf_str(&key));
			buf_free(&key);
			return false;
		}
	}
	buf_free(&key);
	return true;
}

const struct workload wl_aiconfig = {
	.name = "Aiconfigurator",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_STANDALONE | WL_SLURM,
	.in_batch = true,
	.command = command,
	.grader = "aiconfig",
	.installables = installables,
	.n_installables = LEN(installables),
	.validate = validate,
};
