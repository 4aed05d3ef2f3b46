/* wl_serve.h: what CloudAI's inference-serving workloads (AIDynamo,
 * DynamoMocker, Aiconfigurator) share: cmd_args tables that are Pydantic
 * models taking each field with dashes or underscores (populate_by_name and
 * an alias), passed to a wrapper script as "--PREFIXname value" pairs in
 * model_dump() order, and the aiperf benchmark script with its phases. */
#ifndef KUNAI_WL_SERVE_H
#define KUNAI_WL_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "workload.h"

struct toml_value;

/* Returns the run's value of table.name (name as CloudAI dumps it, with
 * dashes), also when written with underscores, else the schema default of
 * table.name; NULL when unset. table may be NULL (a top-level key). */
const char *serve_get(const struct run *r, const char *table, const char *name);
/* Returns whether that value was written as a TOML boolean, or is the
 * default of an ARG_BOOL field. */
bool serve_is_bool(const struct run *r, const char *table, const char *name);

/* Appends " PREFIXname VALUE" (VALUE one shell word) for each name of
 * fields (NULL-terminated dump names) that has a value. */
void serve_fields(const struct run *r, const char *table, const char *prefix,
                  const char *const *fields, struct buf *out);
/* The same for each key the run sets directly under table that is none of
 * declared (Pydantic's extra keys, which it dumps after the declared ones). */
void serve_extras(const struct run *r, const char *table, const char *prefix,
                  const char *const *declared, struct buf *out);

/* Appends s as a double-quoted string, as TOML, YAML and JSON read it. */
void serve_dq(struct buf *out, const char *s);
/* Appends the lines that write cmd_args.TABLE of r's test to $RUN_DIR/file
 * when the job runs, as TOML or (yaml) YAML; nothing when there is none. */
void serve_conf_file(const struct run *r, const char *table, bool yaml, const char *file, struct buf *out);
/* Whether name is one of list (NULL-terminated), dashes and underscores alike. */
bool serve_listed(const char *name, const char *const *list);
/* Returns the TOML value of cmd_args key (e.g. "aiperf_phases") of r's
 * test, or NULL. */
const struct toml_value *serve_toml(const struct run *r, const char *key);
/* Appends the text of a scalar TOML value as Python's str() prints it. */
void serve_scalar(struct buf *b, const struct toml_value *v);

/* Appends the shell lines that write aiperf.sh to dir_word (a shell word
 * naming the run dir when the job runs) at run time: CloudAI's script that
 * runs each phase of cmd_args.aiperf_phases (or one phase made of
 * cmd_args.aiperf) against $FRONTEND_URL. model and endpoint are the
 * served model and its endpoint. */
void serve_aiperf_script(const struct run *r, const char *model, const char *endpoint,
                         const char *dir_word, struct buf *out);

/* Appends the install dir as a shell word relative to the run dir (where
 * a job runs, in both schedulers), or absolute when install_path is. */
void serve_install_dir(const struct run *r, struct buf *out);

/* For the validators: the value of cmd_args key in args, or NULL; whether
 * some key starts with prefix ("aiperf_accuracy."). */
const struct toml_value *serve_arg(const struct argset *args, const char *key);
bool serve_has(const struct argset *args, const char *prefix);
/* Checks cmd_args.aiperf_phases: a list of tables, each with a unique name
 * of [A-Za-z0-9_.-] and single values in its args. */
bool serve_check_phases(const struct argset *args, struct buf *msg, const struct toml_value **where);

/* Appends the srun prefix of an auxiliary step: the run's srun prefix
 * without its node count, with image (NULL: no container at all) in place
 * of the run's container image. */
void serve_aux_prefix(const struct run *r, const char *srun_prefix, const char *image,
                      struct buf *out);

#endif
