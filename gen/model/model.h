/* model.h: model.c's loading of the typed campaign (system, test
 * definitions, scenario) from TOML trees, and the model's helpers. Every
 * semantic error is reported there; later stages (expand, writers) trust
 * the model. The campaign's types alone are model_types.h. */
#ifndef KUNAI_MODEL_H
#define KUNAI_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "model_types.h"

struct arena;

struct model_opts {
	const char *system_path, *tests_dir, *scenario_path, *hook_dir;
	const struct override *overrides;
	size_t n_overrides;
	const char *const *presets; /* --preset NAME, in order */
	size_t n_presets;
};

/* Loads and validates the whole campaign. Returns NULL after printing every
 * error found (path:line:col: error: ...). */
struct campaign *model_load(struct arena *a, const struct model_opts *o);

/* Classifies and validates each file or directory (recursively) like CloudAI's
 * verify-configs. Returns the number of files with errors (0: all good);
 * prints one line per file. */
int model_verify(struct arena *a, const char *const *paths, size_t n, const char *tests_dir,
                 const char *hook_dir);

/* Parses a time limit as CloudAI does (Ns/m/h/d/w, D-H:M:S, H:M:S, H:M as
 * hours and minutes), and Slurm's MM, D-H and D-H:M, which CloudAI refuses
 * (*slurm_only then true). Returns seconds, or -1 when malformed. */
long model_parse_time(const char *s, bool *slurm_only);

/* Formats seconds as HH:MM:SS, or D-HH:MM:SS from one day on. */
void model_format_time(long seconds, char *out, size_t n);

/* Formats a float as Python's repr() does ("1.0", "0.1", "1e+20"), which is
 * how CloudAI writes numbers it was given into commands and env files. */
void model_format_float(double v, char *out, size_t n);

/* Appends s (from pos) to l; strlist_reserve makes room for need items. */
void strlist_add(struct arena *a, struct strlist *l, const char *s, struct toml_pos pos);
void strlist_reserve(struct arena *a, struct strlist *l, size_t need);
/* Expands Slurm hostlist syntax ("node-[001-003,7]", "a,b") into names,
 * appending to out (arena strings). Returns false on malformed input. */
bool model_expand_hostlist(struct arena *a, const char *spec, struct strlist *out);

/* Is id the name of one of the build dir's own targets (run, report,
 * scripts, ...)? Such a test id is refused: it would shadow that target. */
bool model_reserved_id(const char *id);

/* `kunai verify-configs`: returns the process exit status. */
int cmd_verify_configs(int argc, char **argv);

#endif
