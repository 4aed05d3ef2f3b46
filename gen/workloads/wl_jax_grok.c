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

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

static void
check(const struct run *r, struct wl_diags *d)
{
	jax_check(r, &tmpl, d);
}

static size_t
env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	return jax_env(a, r, &tmpl, out, max);
}

static void
body(const struct run *r, const char *image, const char *mounts, struct buf *out)
{
	jax_body(r, &tmpl, image, mounts, out);
}

const struct workload wl_jax_grok = {
	.name = "JaxToolboxGrok",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = jax_command,
	.grader = "jax_toolbox",
	.installables = installables,
	.n_installables = LEN(installables),
	.env = env,
	.check = check,
	.run_dir_mount = jax_workspace,
	.container_body = body,
};
