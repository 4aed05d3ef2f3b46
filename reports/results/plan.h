/* results/plan.h: kunai.json read back as the plan that results are read
 * against (results/plan.c). */
#ifndef KUNAI_PLAN_H
#define KUNAI_PLAN_H

#include <stdbool.h>

struct arena;
struct plan;

/* Reads kunai.json. Returns false after reporting "path: error". */
bool json_load_plan(struct arena *a, const char *path, struct plan *p);

#endif
