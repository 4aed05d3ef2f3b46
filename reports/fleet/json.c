/* fleet/json.c: the JSON side of the fleet verdict: the verdict in
 * summary.json ("verdict", "drain", "healthy", "inconclusive", ...), and
 * again.json, a flagged run measured again beside a peer. ([peers] as
 * kunai.json holds it is read with the plan, results/plan.c.) */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/fleet/fleet.h"
#include "reports/fleet/json.h"
#include "reports/results/results.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

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

/* {"max_busbw": 480.1, "bf16_tflops#3": 601.2}: the values that are not
 * points of a series, a GPU's with its index */
static cJSON *
values_json(const struct metric *v, size_t n)
{
	cJSON *o = cJSON_CreateObject();
	struct buf k = {0};
	size_t i;

	for (i = 0; o && i < n; i++) {
		if (v[i].x >= 0 || !isfinite(v[i].value))
			continue;
		k.len = 0;
		buf_puts(&k, v[i].name);
		if (v[i].gpu >= 0)
			buf_printf(&k, "#%d", v[i].gpu);
		cJSON_AddNumberToObject(o, k.data, v[i].value);
	}
	buf_free(&k);
	return o;
}

bool
fleet_again_write(const char *root, const char *dir, const struct fleet_again_record *r)
{
	cJSON *o = cJSON_CreateObject();
	struct buf path = {0}, b = {0};
	bool ok;

	cJSON_AddStringToObject(o, "job_id", r->job_id ? r->job_id : "");
	cJSON_AddStringToObject(o, "node", r->node);
	cJSON_AddStringToObject(o, "peer", r->peer);
	cJSON_AddStringToObject(o, "outcome", r->outcome ? r->outcome : "");
	cJSON_AddStringToObject(o, "peer_outcome", r->peer_outcome ? r->peer_outcome : "");
	cJSON_AddItemToObject(o, "values", values_json(r->values, r->n_values));
	cJSON_AddItemToObject(o, "peer_values", values_json(r->peer_values, r->n_peer_values));
	json_print(o, &b);
	buf_printf(&path, "%s/%s/again.json", root, dir);
	ok = write_file_atomic(path.data, b.data, b.len);
	buf_free(&path);
	buf_free(&b);
	return ok;
}

static const struct metric *
values_load(struct arena *a, const cJSON *o, size_t *n)
{
	struct metric *v = arena_alloc(a, ((size_t)cJSON_GetArraySize(o) + 1) * sizeof(*v));
	const cJSON *e;
	char *hash;

	*n = 0;
	cJSON_ArrayForEach(e, o) {
		if (!cJSON_IsNumber(e) || !e->string)
			continue;
		v[*n].name = arena_strdup(a, e->string);
		v[*n].gpu = -1;
		v[*n].x = -1;
		if ((hash = strrchr((char *)v[*n].name, '#'))) {
			v[*n].gpu = atoi(hash + 1);
			*hash = '\0';
		}
		v[*n].value = e->valuedouble;
		(*n)++;
	}
	return v;
}

bool
fleet_again_load(struct arena *a, const char *root, const char *dir, struct fleet_again_record *r)
{
	struct buf path = {0}, why = {0};
	bool absent;
	cJSON *o;

	memset(r, 0, sizeof(*r));
	buf_printf(&path, "%s/%s/again.json", root, dir);
	o = json_load(path.data, &why, &absent);
	buf_free(&path);
	buf_free(&why);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return false;
	}
	r->job_id = json_get_str(a, o, "job_id");
	r->node = json_get_str(a, o, "node");
	r->peer = json_get_str(a, o, "peer");
	r->outcome = json_get_str(a, o, "outcome");
	r->peer_outcome = json_get_str(a, o, "peer_outcome");
	r->values = values_load(a, json_item(o, "values"), &r->n_values);
	r->peer_values = values_load(a, json_item(o, "peer_values"), &r->n_peer_values);
	cJSON_Delete(o);
	return r->node && r->peer;
}
