/* fleet_json.c: the JSON side of the fleet verdict: [peers] as kunai.json
 * holds it (the scenario's, then each test's over it), and the verdict in
 * summary.json ("verdict", "drain", "healthy", "inconclusive", ...). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/fleet.h"
#include "reports/fleet_json.h"
#include "reports/report.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

void
fleet_peers_default(struct plan_peers *p)
{
	memset(p, 0, sizeof(*p));
	p->enabled = true;
	p->tolerance = 0.10;
	p->mad_k = 3;
	p->min_peers = 4;
}

static const char **
names(struct arena *a, const cJSON *v)
{
	const char **r = arena_alloc(a, ((size_t)cJSON_GetArraySize(v) + 1) * sizeof(*r));
	const cJSON *e;
	size_t n = 0;

	cJSON_ArrayForEach(e, v)
		if (cJSON_IsString(e))
			r[n++] = arena_strdup(a, e->valuestring);
	r[n] = NULL;
	return r;
}

void
fleet_peers_load(struct arena *a, const struct cJSON *o, struct plan_peers *p)
{
	const cJSON *v;

	if (!cJSON_IsObject(o))
		return;
	/* gen validated the table: a key of the wrong type is a hand edit */
	if (cJSON_IsBool(v = json_item(o, "enabled")))
		p->enabled = cJSON_IsTrue(v);
	if (cJSON_IsNumber(v = json_item(o, "tolerance")))
		p->tolerance = v->valuedouble;
	if (cJSON_IsNumber(v = json_item(o, "mad_k")))
		p->mad_k = v->valuedouble;
	if (cJSON_IsNumber(v = json_item(o, "min_peers")) && v->valuedouble >= 2 && v->valuedouble < 1e9)
		p->min_peers = (int)v->valuedouble;
	if (cJSON_IsArray(v = json_item(o, "metrics")))
		p->metrics = names(a, v);
	if (cJSON_IsArray(v = json_item(o, "higher_is_better")))
		p->higher = names(a, v);
	if (cJSON_IsArray(v = json_item(o, "lower_is_better")))
		p->lower = names(a, v);
}

static cJSON *
strings(const char *const *v, size_t n)
{
	cJSON *r = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(r, cJSON_CreateString(v[i]));
	return r;
}

void
fleet_json_add(struct cJSON *o, const struct summary *s)
{
	const struct fleet *f = s->fleet;
	static const char *const keys[] = {"healthy", "inconclusive", "drain"};
	cJSON *lists[3], *why[3], *sus;
	struct buf b = {0};
	size_t i, k;

	fleet_verdict_line(f, &b);
	cJSON_AddStringToObject(o, "verdict", b.data ? b.data : "");
	buf_free(&b);
	for (k = 3; k-- > 0;)
		lists[k] = cJSON_AddArrayToObject(o, keys[k]);
	why[FLEET_DRAIN] = cJSON_AddObjectToObject(o, "drain_reasons");
	why[FLEET_INCONCLUSIVE] = cJSON_AddObjectToObject(o, "inconclusive_reasons");
	why[FLEET_HEALTHY] = NULL;
	for (i = 0; i < f->n_nodes; i++) {
		const struct fleet_node *n = &f->nodes[i];
		cJSON_AddItemToArray(lists[n->state], cJSON_CreateString(n->name));
		if (why[n->state])
			cJSON_AddItemToObject(why[n->state], n->name, strings(n->why, n->n_why));
	}
	cJSON_AddItemToObject(o, "multi_node", strings(f->multi, f->n_multi));
	cJSON_AddItemToObject(o, "peer_notes", strings(f->notes, f->n_notes));
	sus = cJSON_AddArrayToObject(o, "peer_outliers");
	for (i = 0; i < f->n_values; i++) {
		const struct fleet_value *v = &f->values[i];
		const struct fleet_group *g = &f->groups[v->group];
		cJSON *e;
		if (!v->flagged)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "run", s->runs[v->run].dir ? s->runs[v->run].dir : "");
		cJSON_AddStringToObject(e, "test", g->test);
		cJSON_AddStringToObject(e, "metric", g->metric);
		cJSON_AddStringToObject(e, "node", v->node ? v->node : "");
		if (g->per_gpu)
			cJSON_AddNumberToObject(e, "gpu", v->m->gpu);
		else
			cJSON_AddNullToObject(e, "gpu");
		cJSON_AddNumberToObject(e, "value", v->m->value);
		cJSON_AddNumberToObject(e, "median", g->median);
		cJSON_AddNumberToObject(e, "peers", (double)g->n_peers);
		cJSON_AddItemToArray(sus, e);
	}
}

bool
fleet_json_load(struct arena *a, const struct cJSON *o, struct summary *s)
{
	const cJSON *d = json_item(o, "drain");

	s->verdict = json_get_str(a, o, "verdict");
	s->n_drain = cJSON_IsArray(d) ? (size_t)cJSON_GetArraySize(d) : 0;
	return true;
}
