/* wl_jax.h: the launcher the JaxToolbox templates (JaxToolboxGPT,
 * JaxToolboxGrok, JaxToolboxNemotron) share, as CloudAI's
 * JaxToolboxSlurmCommandGenStrategy builds it: a run.sh of one or two
 * PAXML stages (profile, then perf with the profile's PGLE output), written
 * by the batch script into the run directory, which is mounted at
 * setup_flags.docker_workspace_dir; the container loaded once under the
 * name "cont", then run.sh under srun in it; XLA_FLAGS, COMBINE_THRESHOLD
 * and PER_GPU_COMBINE_THRESHOLD in the environment. */
#ifndef KUNAI_WL_JAX_H
#define KUNAI_WL_JAX_H

#include <stdbool.h>
#include <stddef.h>

#include "workload.h"

struct jax_template {
	/* Grok and Nemotron: XLA flags from the profile./perf. tables and the
	 * enable_pgle switch; GPT: neither (CloudAI's GPT.XLA_FLAGS keys match
	 * no stage, so its XLA_FLAGS are the three combine thresholds only) */
	bool stages;
	/* keys CloudAI types as one value (str, int, bool): a list is an error */
	const char *const *single;
};

void jax_check(const struct run *r, const struct jax_template *t, struct wl_diags *d);
size_t jax_env(struct arena *a, const struct run *r, const struct jax_template *t, struct wl_env *out,
               size_t max);
void jax_body(const struct run *r, const struct jax_template *t, const char *image, const char *mounts,
              struct buf *out);
/* The command of the runs: run.sh in the workspace. */
void jax_command(const struct run *r, struct buf *out);
/* setup_flags.docker_workspace_dir: where the run directory is mounted. */
const char *jax_workspace(const struct run *r);

#endif
