/* gen_opts.h: the flags of `kunai gen` and `kunai dry-run` (CloudAI's
 * spellings, old and new) and the argument list that regenerates. */
#ifndef KUNAI_GEN_OPTS_H
#define KUNAI_GEN_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/model/model.h"

struct arena;

struct gen_opts {
	struct model_opts m;
	const char *out_dir;
	const char *rules_dir; /* --rules-dir, made absolute; NULL: kunai's own */
	bool cache_without_check;
	bool single_sbatch; /* CloudAI's --single-sbatch: one Slurm allocation */
	struct override *sets;
	size_t n_sets, cap_sets;
	const char **presets;
	size_t n_presets, cap_presets;
};

/* Parses gen/dry-run flags into o. Returns 0, or the exit status of a
 * usage error (2, after reporting). */
int gen_parse_opts(struct arena *a, int argc, char **argv, struct gen_opts *o);
/* The canonical argument list that regenerates the same build dir (in
 * *argv, allocated in a); returns its length. */
size_t gen_regen_args(struct arena *a, const struct gen_opts *o, const char *out_dir, const char ***argv);

#endif
