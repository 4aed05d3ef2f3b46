/* fleet/json.h: the fleet verdict in summary.json (fleet/json.c). */
#ifndef KUNAI_FLEET_JSON_H
#define KUNAI_FLEET_JSON_H

#include <stdbool.h>

struct arena;
struct cJSON;
struct summary;

/* Adds s->fleet's verdict to the summary.json object o. */
void fleet_json_add(struct cJSON *o, const struct summary *s);
/* Reads the verdict line and the drain count of a summary.json object o. */
bool fleet_json_load(struct arena *a, const struct cJSON *o, struct summary *s);

#endif
