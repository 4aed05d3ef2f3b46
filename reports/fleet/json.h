/* fleet_json.h: the fleet verdict in kunai.json and summary.json. */
#ifndef KUNAI_FLEET_JSON_H
#define KUNAI_FLEET_JSON_H

#include <stdbool.h>

struct arena;
struct cJSON;
struct plan_peers;
struct summary;

/* The defaults of [peers]: enabled, tolerance 0.1, mad_k 3, min_peers 4. */
void fleet_peers_default(struct plan_peers *p);
/* Sets the keys that the [peers] object o (kunai.json) holds; o may be
 * NULL or not an object (nothing is set). */
void fleet_peers_load(struct arena *a, const struct cJSON *o, struct plan_peers *p);
/* Adds s->fleet's verdict to the summary.json object o. */
void fleet_json_add(struct cJSON *o, const struct summary *s);
/* Reads the verdict line and the drain count of a summary.json object o. */
bool fleet_json_load(struct arena *a, const struct cJSON *o, struct summary *s);

#endif
