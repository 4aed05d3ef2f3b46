/* results/cloudai.h: a results dir that CloudAI wrote, read as a plan
 * (results/cloudai.c). */
#ifndef KUNAI_CLOUDAI_H
#define KUNAI_CLOUDAI_H

#include <stdbool.h>

struct arena;
struct plan;

/* Whether root holds a run dir of CloudAI's (<id>/<iteration>/test-run.toml). */
bool cloudai_results_is(const char *root);
/* The plan of CloudAI's results dir root: one run per run dir with a
 * test-run.toml (id, iteration, step, cmd_args), one test per id with its
 * test_template_name; p->cloudai set. Returns false after reporting. */
bool cloudai_results_plan(struct arena *a, const char *root, struct plan *p);

#endif
