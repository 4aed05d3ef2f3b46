/* results/plan.h: kunai.json read back as the plan that results are read
 * against, with each test's [peers] (results/plan.c). */
#ifndef KUNAI_PLAN_H
#define KUNAI_PLAN_H

#include <stdbool.h>

struct arena;
struct cJSON;
struct plan;
struct plan_peers;

/* Reads kunai.json. Returns false after reporting "path: error". */
bool json_load_plan(struct arena *a, const char *path, struct plan *p);
/* The defaults of [peers]: enabled, tolerance 0.1, mad_k 3, min_peers 4. */
void fleet_peers_default(struct plan_peers *p);
/* Sets the keys that the [peers] object o (kunai.json) holds; o may be
 * NULL or not an object (nothing is set). */
void fleet_peers_load(struct arena *a, const struct cJSON *o, struct plan_peers *p);

#endif
