/* expand.h: scenario -> runs (test case x sweep point x iteration); the
 * run itself, which the workloads and writers read, is in run.h. */
#ifndef KUNAI_EXPAND_H
#define KUNAI_EXPAND_H

#include <stdbool.h>
#include <stddef.h>

#include "run.h"

struct arena;

/* The most runs a campaign may expand to: $KUNAI_MAX_RUNS (a positive
 * number), else EXPAND_MAX_RUNS. */
#define EXPAND_MAX_RUNS 250000
size_t expand_max_runs(void);

/* Expands every case of the campaign's scenario. Returns false after
 * reporting (e.g. an empty node list). */
bool expand_campaign(struct arena *a, const struct campaign *c, struct runlist *out);

/* Expands the hook scenario's cases for run r, as its pre or post hooks
 * (one scenario may serve as both). */
bool expand_hook(struct arena *a, const struct campaign *c, const struct scenario *hook, bool pre,
                 const struct run *r, struct runlist *out);

#endif
