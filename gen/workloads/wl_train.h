/* wl_train.h: what the training workloads (NeMoLauncher, NeMoRun,
 * MegatronRun, MegatronBridge, JaxToolbox, ChakraReplay) share: their
 * cmd_args are nested Pydantic models, flattened to dotted keys, and their
 * launchers take them as key=value overrides in the order CloudAI's
 * model_dump() gives (declared fields first, a table's own extra keys after
 * its declared ones). */
#ifndef KUNAI_WL_TRAIN_H
#define KUNAI_WL_TRAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "workload.h"

struct kv;

/* An ordered list of overrides. */
struct ovr {
	struct kv *items;
	size_t len, cap;
};

/* Fills o with every schema key of r's workload and its value (the run's,
 * else the default; NULL, not written, for None), in schema order, then the run's extra keys, each
 * after the last key of its longest declared table; booleans as Python
 * prints them (True/False). Keys in skip (NULL-terminated, may be NULL) are
 * left out. */
void ovr_init(struct ovr *o, const struct run *r, const char *const *skip);
/* Sets key: in place when present, else after the last key of its table
 * (the longest dotted prefix present), else at the end. */
void ovr_set(struct ovr *o, const char *key, const char *value);
/* Removes key if present. */
void ovr_del(struct ovr *o, const char *key);
/* Returns the value of key, or NULL. */
const char *ovr_get(const struct ovr *o, const char *key);
/* Appends " k=v" for each entry (the word shell-quoted as a whole). */
void ovr_append(const struct ovr *o, struct buf *out);
void ovr_free(struct ovr *o);

/* Returns whether s is an integer and stores it in *v. */
bool train_int(const char *s, long long *v);

/* Appends the lines that follow a launcher which submitted its own job
 * ($KUNAI_JOB, empty when it did not): wait while squeue lists the job, copy
 * logs (shell words, a glob or "$LOG") to stdout for the grader, and end
 * with status 0 only when sacct says the job COMPLETED. No newline at the end. */
void train_wait(struct buf *out, const char *logs);

/* wl_constraints.c: CloudAI's constraint_check of NeMoRun and
 * MegatronBridge for sweep points (each failure a located error). */
void nemo_run_check(const struct run *r, struct wl_diags *d);
void megatron_bridge_check(const struct run *r, struct wl_diags *d);

#endif
