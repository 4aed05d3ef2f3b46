/* workload.h: the registry of workloads (workload.c) and the helpers of
 * their command builders. One file per workload (gen/workloads/wl_*.c)
 * defines a const struct workload (workload_types.h) and is listed once in
 * workload.c. */
#ifndef KUNAI_WORKLOAD_H
#define KUNAI_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "workload_types.h"

struct buf;
struct run;

/* Returns the workload named name, or NULL. */
const struct workload *workload_find(const char *name);
/* Returns the schema entry for key (or the "T.*" entry of its table), or NULL. */
const struct arg_schema *workload_arg(const struct workload *wl, const char *key);
/* Whether run r's command runs in a container on Slurm. */
bool workload_in_container(const struct run *r);
/* For "did you mean": the names of all workloads, NULL-terminated. */
const char *const *workload_names(void);

/* Helpers for the command builders (gen/wl_*.c). */

/* Returns the value of environment variable key in run r's environment
 * (the system's global_env_vars overlaid with the test's extra_env_vars),
 * or NULL when it has none. */
const char *workload_env_value(const struct run *r, const char *key);
/* Returns the run's own text of cmd_args key (as the test or its sweep point
 * gives it), or NULL when it does not set key: no schema default. */
const char *workload_own_value(const struct run *r, const char *key);
/* Returns whether the run itself sets some cmd_args key that begins with
 * prefix ("log.tensorboard.": a value under that table). */
bool workload_has_prefix(const struct run *r, const char *prefix);
/* Returns the text of cmd_args key for r: the run's value, else the schema
 * default, else NULL (an optional argument that is not set). */
const char *workload_value(const struct run *r, const char *key);
/* workload_value for an entry of the run's own schema (no schema search). */
const char *workload_value_of(const struct run *r, const struct arg_schema *s);
/* Returns whether v is a true boolean as a command line shows it
 * ("True", "true"; CloudAI prints Python's str(True)). */
bool workload_true(const char *v);
/* Errors of the workloads' checks, collected per test case: the same
 * error of several sweep points is reported once, naming the points, and
 * a case's errors are printed in line order. */
struct wl_diag;
struct wl_diags {
	struct wl_diag *items;
	size_t len, cap;
};
/* Adds a located error about run r's cmd_args key (or environment variable
 * key, when env): at the key in the test's TOML, else at the test case;
 * with point, an error of r's sweep point (printed after the numbers of the
 * points that have it). */
void workload_error(struct wl_diags *d, const struct run *r, const char *key, bool env, bool point,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* For a check that returns false with why set when run r cannot be
 * generated: adds why as an error at the test case. Frees why. */
void workload_refuse(struct wl_diags *d, const struct run *r, bool ok, struct buf *why);
/* Prints d's errors (sorted by file, line, column), empties d and returns
 * how many there were. */
size_t workload_diags_flush(struct wl_diags *d);
/* Returns whether the test gives key as a TOML list (a sweep). */
bool workload_is_list(const struct run *r, const char *key);
/* Returns whether key was written as a TOML boolean (or a list of them). */
bool workload_is_bool(const struct run *r, const char *key);
/* Appends the test's extra_cmd_args, each as " k v" (sep ' ') or " k=v"
 * (sep '='), both parts shell-quoted; the key alone when the value is empty. */
void workload_extra_args(const struct run *r, char sep, struct buf *out);
/* Appends CloudAI's file name for a cached image under the install dir:
 * nvcr.io/nvidia/pytorch:24.02-py3 -> nvcr.io_nvidia__pytorch__24.02-py3.sqsh. */
void workload_image_cache_name(struct buf *b, const char *url);
/* Appends CloudAI's directory name for a git repository under the install
 * dir: <last part of url without .git>__<commit>. */
void workload_repo_dir(struct buf *b, const char *url, const char *commit);

/* plot.c: the plot kind of a workload's runs (reports/write/plot/KIND.gp), or
 * NULL for none. */
const char *workload_plot(const struct workload *wl);
/* Appends "N-<dir with / as - and unsafe bytes as _>" for the run at index
 * (from 0) of kunai.json's runs: the name of its plot and HTML page. */
void workload_run_stem(size_t index, const char *dir, struct buf *out);
/* Appends "test-<id with unsafe bytes as _>-<hash of id>": the name of the
 * test's overlay plot (every run of it on one plot). */
void workload_test_stem(const char *id, struct buf *out);

#endif
