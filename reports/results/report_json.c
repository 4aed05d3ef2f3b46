/* results/report_json.c: a run's report.json, written and read back (see
 * report_json.h; job.json is gen/base/record.c's). The values of a series
 * come last, so that a reader that needs none of them stops before them.
 * Every input may be missing, truncated or hand-edited: types are checked
 * before every read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/results/results.h"
#include "reports/results/report_json.h"
#include "gen/base/hostlist.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

/* A tolerance: a number, or "inf"/"-inf" (how kunai.json writes them). */
bool
json_tolerance(const cJSON *v, double *d)
{
	if (cJSON_IsNumber(v))
		*d = v->valuedouble;
	else if (cJSON_IsString(v) && (!strcmp(v->valuestring, "inf") || !strcmp(v->valuestring, "+inf")))
		*d = INFINITY;
	else if (cJSON_IsString(v) && !strcmp(v->valuestring, "-inf"))
		*d = -INFINITY;
	else
		return false;
	return true;
}

/* A size of a range as kunai.json holds it: bytes, or the TOML string. */
static bool
range_size(const cJSON *v, double *d)
{
	if (cJSON_IsNumber(v) && v->valuedouble >= 0) {
		*d = v->valuedouble;
		return true;
	}
	return cJSON_IsString(v) && util_parse_size(v->valuestring, d);
}

/* { "min_size": ..., "max_size": ... } of a ranged reference. */
void
json_load_range(const cJSON *o, struct plan_ref *f)
{
	f->min_size = 0;
	f->max_size = INFINITY;
	if (range_size(json_item(o, "min_size"), &f->min_size))
		f->sized = true;
	if (range_size(json_item(o, "max_size"), &f->max_size))
		f->sized = true;
}

void
json_add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static const char *const checks[] = {"no reference", "ok", "below reference", "above reference"};

static cJSON *
value_json(const struct metric *m)
{
	cJSON *o = cJSON_CreateObject(), *f;

	cJSON_AddStringToObject(o, "name", m->name);
	cJSON_AddNumberToObject(o, "value", m->value);
	cJSON_AddStringToObject(o, "unit", m->unit ? m->unit : "");
	if (m->x >= 0)
		cJSON_AddNumberToObject(o, m->x_name ? m->x_name : "x", m->x);
	json_add_str_or_null(o, "node", m->node);
	if (m->gpu >= 0)
		cJSON_AddNumberToObject(o, "gpu", m->gpu);
	else
		cJSON_AddNullToObject(o, "gpu");
	json_add_str_or_null(o, "gpu_model", m->gpu_model);
	cJSON_AddStringToObject(o, "check", checks[m->check]);
	if (m->ref) {
		f = cJSON_AddObjectToObject(o, "reference");
		cJSON_AddNumberToObject(f, "value", m->ref->value);
		/* JSON has no infinity: unbounded is null */
		if (isinf(m->ref->lower))
			cJSON_AddNullToObject(f, "lower");
		else
			cJSON_AddNumberToObject(f, "lower", m->ref->lower);
		if (isinf(m->ref->upper))
			cJSON_AddNullToObject(f, "upper");
		else
			cJSON_AddNumberToObject(f, "upper", m->ref->upper);
		json_add_str_or_null(f, "scope", m->ref->scope);
		if (m->ref->sized) {
			cJSON_AddNumberToObject(f, "min_size", m->ref->min_size);
			if (isinf(m->ref->max_size))
				cJSON_AddNullToObject(f, "max_size");
			else
				cJSON_AddNumberToObject(f, "max_size", m->ref->max_size);
		}
	}
	return o;
}

/* A point of a series with no reference: written compactly, as arrays. */
static bool
in_series(const struct metric *m)
{
	return m->x >= 0 && m->check == CHECK_NONE;
}

static bool
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Does m continue the series that s started? */
static bool
same_series(const struct metric *s, const struct metric *m)
{
	return in_series(m) && strcmp(s->name, m->name) == 0 && same_str(s->unit, m->unit) &&
	       same_str(s->node, m->node) && s->gpu == m->gpu && same_str(s->gpu_model, m->gpu_model) &&
	       same_str(s->x_name, m->x_name);
}

/* "series": [{"name", "unit", "x_name", "node", "gpu", "gpu_model", "x":
 * [...], "values": [...]}]: report.json would be five times larger with an
 * object per point. */
static void
series_json(cJSON *o, const struct run_report *r)
{
	cJSON *all = cJSON_AddArrayToObject(o, "series"), *e, *xs, *ys;
	bool *done = xcalloc(r->n_metrics + 1, sizeof(*done));
	size_t i, j;

	/* a grader may interleave its series (row by row): one entry each */
	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		if (done[i] || !in_series(m))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", m->name);
		cJSON_AddStringToObject(e, "unit", m->unit ? m->unit : "");
		cJSON_AddStringToObject(e, "x_name", m->x_name ? m->x_name : "x");
		json_add_str_or_null(e, "node", m->node);
		if (m->gpu >= 0)
			cJSON_AddNumberToObject(e, "gpu", m->gpu);
		else
			cJSON_AddNullToObject(e, "gpu");
		json_add_str_or_null(e, "gpu_model", m->gpu_model);
		xs = cJSON_AddArrayToObject(e, "x");
		ys = cJSON_AddArrayToObject(e, "values");
		for (j = i; j < r->n_metrics; j++) {
			if (done[j] || !same_series(m, &r->metrics[j]))
				continue;
			done[j] = true;
			cJSON_AddItemToArray(xs, cJSON_CreateNumber(r->metrics[j].x));
			cJSON_AddItemToArray(ys, cJSON_CreateNumber(r->metrics[j].value));
		}
		cJSON_AddItemToArray(all, e);
	}
	free(done);
}

/* series: also the per-size values (report.json); summary.json keeps
 * only values that are not one point of a series. */
cJSON *
report_json(const struct run_report *r, bool series)
{
	cJSON *o = cJSON_CreateObject(), *m, *vals;
	size_t i;

	cJSON_AddStringToObject(o, "dir", r->dir ? r->dir : "");
	cJSON_AddStringToObject(o, "id", r->id ? r->id : "");
	cJSON_AddNumberToObject(o, "iteration", r->iteration);
	if (r->step > 0)
		cJSON_AddNumberToObject(o, "step", r->step);
	else
		cJSON_AddNullToObject(o, "step");
	cJSON_AddStringToObject(o, "outcome", outcome_name(r->outcome));
	json_add_str_or_null(o, "reason", r->reason);
	if (r->has_exit_code)
		cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_code");
	json_add_str_or_null(o, "job_id", r->job_id);
	/* the scheduler's word beside the graded outcome (a perf-failed run's
	 * job passed) */
	json_add_str_or_null(o, "job_state", r->job_state);
	json_add_str_or_null(o, "job_outcome", r->job_outcome);
	json_add_str_or_null(o, "start_time", r->start_time);
	json_add_str_or_null(o, "end_time", r->end_time);
	if (r->duration_s >= 0)
		cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
	else
		cJSON_AddNullToObject(o, "duration_s");
	json_add_str_or_null(o, "workload", r->workload);
	/* report.json only: what graded it (summary.json is remade whenever
	 * any run is) */
	if (series && r->grader)
		cJSON_AddStringToObject(o, "grader", r->grader);
	json_add_str_or_null(o, "path", r->path);
	json_add_str_or_null(o, "nodes", r->nodes);
	if (r->ran_skipped)
		cJSON_AddTrueToObject(o, "ran_skipped");
	/* the first whole-run value of each name, for quick queries */
	m = cJSON_AddObjectToObject(o, "metrics");
	for (i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].x < 0 && r->metrics[i].gpu < 0 && !cJSON_GetObjectItemCaseSensitive(m, r->metrics[i].name))
			cJSON_AddNumberToObject(m, r->metrics[i].name, r->metrics[i].value);
	vals = cJSON_AddArrayToObject(o, "values");
	for (i = 0; i < r->n_metrics; i++)
		if (!in_series(&r->metrics[i]))
			cJSON_AddItemToArray(vals, value_json(&r->metrics[i]));
	if (series)
		series_json(o, r);
	return o;
}

static bool
value_from_json(struct arena *a, const cJSON *o, struct metric *m)
{
	const cJSON *v = json_item(o, "value"), *g = json_item(o, "gpu"), *f = json_item(o, "reference"), *x;
	const char *check = json_get_str(a, o, "check");
	size_t k;

	memset(m, 0, sizeof(*m));
	m->name = json_get_str(a, o, "name");
	if (!m->name || !cJSON_IsNumber(v))
		return false;
	m->value = v->valuedouble;
	m->unit = json_get_str(a, o, "unit");
	m->node = json_get_str(a, o, "node");
	m->gpu_model = json_get_str(a, o, "gpu_model");
	m->gpu = cJSON_IsNumber(g) ? util_to_int(g->valuedouble, -1) : -1;
	m->x = -1;
	if ((x = json_item(o, "bytes")) || (x = json_item(o, "epoch")) || (x = json_item(o, "pair"))) {
		m->x = cJSON_IsNumber(x) ? x->valuedouble : -1;
		m->x_name = arena_strdup(a, x->string);
	}
	for (k = 0; check && k < LEN(checks); k++)
		if (strcmp(check, checks[k]) == 0)
			m->check = (enum metric_check)k;
	if (cJSON_IsObject(f) && cJSON_IsNumber(json_item(f, "value"))) {
		struct plan_ref *r = arena_alloc(a, sizeof(*r));
		r->value = json_item(f, "value")->valuedouble;
		if (!json_tolerance(json_item(f, "lower"), &r->lower))
			r->lower = -INFINITY;
		if (!json_tolerance(json_item(f, "upper"), &r->upper))
			r->upper = INFINITY;
		r->scope = json_get_str(a, f, "scope");
		if (json_item(f, "min_size"))
			json_load_range(f, r);
		r->metric = m->name;
		r->unit = m->unit;
		m->ref = r;
	}
	return true;
}

static void
series_from_json(struct arena *a, const cJSON *e, struct run_report *r)
{
	const cJSON *xs = json_item(e, "x"), *ys = json_item(e, "values"), *g = json_item(e, "gpu"), *x, *y;
	struct metric t;
	int n = cJSON_GetArraySize(ys);

	memset(&t, 0, sizeof(t));
	t.name = json_get_str(a, e, "name");
	if (!t.name || !cJSON_IsArray(xs) || !cJSON_IsArray(ys) || cJSON_GetArraySize(xs) != n)
		return;
	t.unit = json_get_str(a, e, "unit");
	t.x_name = json_get_str(a, e, "x_name");
	t.node = json_get_str(a, e, "node");
	t.gpu = cJSON_IsNumber(g) ? util_to_int(g->valuedouble, -1) : -1;
	t.gpu_model = json_get_str(a, e, "gpu_model");
	/* side by side: cJSON_GetArrayItem(i) walks the list, quadratic in n */
	for (x = xs->child, y = ys->child; x && y && r->n_metrics < r->cap_metrics; x = x->next, y = y->next) {
		if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || x->valuedouble < 0)
			continue;
		t.x = x->valuedouble;
		t.value = y->valuedouble;
		r->metrics[r->n_metrics++] = t;
	}
}

bool
report_from_json(struct arena *a, const cJSON *o, struct run_report *r, struct buf *why)
{
	const char *outcome = json_get_str(a, o, "outcome");
	const cJSON *m = json_item(o, "metrics"), *v, *d = json_item(o, "duration_s");
	size_t n;

	memset(r, 0, sizeof(*r));
	r->dir = json_get_str(a, o, "dir");
	r->id = json_get_str(a, o, "id");
	if (!r->dir || !r->id || !json_get_int(o, "iteration", &r->iteration)) {
		buf_printf(why, "no dir, id or iteration");
		return false;
	}
	if (!outcome || !outcome_parse(outcome, &r->outcome)) {
		buf_printf(why, "unknown outcome '%s'", outcome ? outcome : "(none)");
		return false;
	}
	if (!json_get_int(o, "step", &r->step))
		r->step = 0;
	r->reason = json_get_str(a, o, "reason");
	r->has_exit_code = json_get_int(o, "exit_code", &r->exit_code);
	r->job_id = json_get_str(a, o, "job_id");
	r->job_state = json_get_str(a, o, "job_state");
	r->job_outcome = json_get_str(a, o, "job_outcome");
	r->start_time = json_get_str(a, o, "start_time");
	r->end_time = json_get_str(a, o, "end_time");
	r->duration_s = cJSON_IsNumber(d) && isfinite(d->valuedouble) && d->valuedouble >= 0 ? d->valuedouble : -1;
	r->workload = json_get_str(a, o, "workload");
	r->grader = json_get_str(a, o, "grader");
	r->path = json_get_str(a, o, "path");
	r->nodes = hostlist_join(a, json_get_str(a, o, "nodes"));
	r->ran_skipped = cJSON_IsTrue(json_item(o, "ran_skipped"));
	(void)m;
	m = json_item(o, "values");
	n = (size_t)cJSON_GetArraySize(m) + 1;
	cJSON_ArrayForEach(v, json_children(json_item(o, "series"), false))
		n += (size_t)cJSON_GetArraySize(json_item(v, "values"));
	r->metrics = arena_alloc(a, n * sizeof(*r->metrics));
	r->cap_metrics = n;
	cJSON_ArrayForEach(v, json_children(m, false))
		if (value_from_json(a, v, &r->metrics[r->n_metrics]))
			r->n_metrics++;
	cJSON_ArrayForEach(v, json_children(json_item(o, "series"), false))
		series_from_json(a, v, r);
	return true;
}

bool
json_load_report(struct arena *a, const char *path, struct run_report *r, struct buf *why)
{
	return json_load_values(a, path, r, why, true);
}

bool
json_load_values(struct arena *a, const char *path, struct run_report *r, struct buf *why, bool series)
{
	cJSON *root;
	bool absent, ok;

	/* report.json's series come last (report_json) */
	root = json_load_cut(path, series ? NULL : ",\n\t\"series\":", why, &absent);
	if (!root)
		return false;
	ok = report_from_json(a, root, r, why);
	cJSON_Delete(root);
	return ok;
}

void
json_write_report(const struct run_report *r, struct buf *out)
{
	json_print(report_json(r, true), out);
}
