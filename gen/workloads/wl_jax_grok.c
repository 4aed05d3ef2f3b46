/* wl_jax_grok.c: JaxToolboxGrok, PAXML's Grok proxy under the JaxToolbox launcher
 * (wl_jax.c), as CloudAI's GrokCmdArgs declares it: fdl (GrokFdl),
 * setup_flags, and the XLA flags of the profile and perf stages, each table
 * closed; enable_pgle false runs the perf stage alone. */
#include "wl_jax.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	JAX_GROK_ARGS,
	JAX_GROK_STAGE_ARGS,
};

/* CloudAI types these as one value (str, int, bool): a list is an error */
static const char *const single[] = {
	JAX_GROK_SINGLE,
	NULL,
};

static const struct jax_template tmpl = {true, single};

const struct workload wl_jax_grok = {
	.name = "JaxToolboxGrok",
	.args = args,
	.n_args = LEN(args),
	.family = &tmpl,
	JAX_WORKLOAD,
};
