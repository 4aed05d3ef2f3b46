/* json_report.c: the JSON of results: kunai.json's run list read back,
 * report.json and summary.json (job.json is gen/base/record.c's). Every
 * input may be missing, truncated or hand-edited: types are checked before
 * every read. */
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
#include "reports/results/plan.h"
#include "reports/write/summary.h"
#include "reports/results/campaign.h"
#include "reports/fleet/json.h"
#include "gen/base/hostlist.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

static bool
plan_error(const char *path, const char *what, const char *detail)
{
	warn("%s: %s%s%s", path, what, detail ? ": " : "", detail ? detail : "");
	return false;
}

static bool
find_test(const struct plan *p, const char *id, size_t *out)
{
	size_t i;

	for (i = 0; i < p->n_tests; i++)
		if (strcmp(p->tests[i].id, id) == 0) {
			*out = i;
			return true;
		}
	return false;
}

/* A run dir must stay inside the build dir: relative, no "..", no empty part. */
static bool
safe_dir(const char *d)
{
	const char *s = d;

	if (!*d || *d == '/')
		return false;
	for (;;) {
		size_t n = strcspn(s, "/");
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!s[n])
			return true;
		s += n + 1;
	}
}

/* A tolerance: a number, or "inf"/"-inf" (how kunai.json writes them). */
static bool
tolerance(const cJSON *v, double *d)
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
static void
load_range(const cJSON *o, struct plan_ref *f)
{
	f->min_size = 0;
	f->max_size = INFINITY;
	if (range_size(json_item(o, "min_size"), &f->min_size))
		f->sized = true;
	if (range_size(json_item(o, "max_size"), &f->max_size))
		f->sized = true;
}

static void
add_ref(struct arena *a, struct plan_test *t, const struct plan_ref *f)
{
	t->refs[t->n_refs++] = *f; /* load_refs made room */
}

/* [value, lower, upper, "unit", {range}] or {value, lower, upper, unit,
 * min_size, max_size}; gen validated both: anything else is a hand-edited
 * kunai.json, left out. */
static void
load_ref(struct arena *a, struct plan_test *t, const char *scope, const cJSON *v)
{
	struct plan_ref f = {scope, arena_strdup(a, v->string), NULL, 0, 0, INFINITY, false, 0, INFINITY};
	int n = cJSON_GetArraySize(v), k = 2;

	if (cJSON_IsObject(v)) {
		const cJSON *u = json_item(v, "unit"), *up = json_item(v, "upper");
		if (!cJSON_IsNumber(json_item(v, "value")) || !tolerance(json_item(v, "lower"), &f.lower) ||
		    (up && !tolerance(up, &f.upper)))
			return;
		f.value = json_item(v, "value")->valuedouble;
		if (cJSON_IsString(u))
			f.unit = arena_strdup(a, u->valuestring);
		load_range(v, &f);
		add_ref(a, t, &f);
		return;
	}
	if (!cJSON_IsArray(v) || n < 2 || !cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) ||
	    !tolerance(cJSON_GetArrayItem(v, 1), &f.lower))
		return;
	if (cJSON_IsObject(cJSON_GetArrayItem(v, n - 1)))
		load_range(cJSON_GetArrayItem(v, --n), &f);
	f.value = cJSON_GetArrayItem(v, 0)->valuedouble;
	if (n > k && tolerance(cJSON_GetArrayItem(v, k), &f.upper))
		k++;
	if (n > k && cJSON_IsString(cJSON_GetArrayItem(v, k)))
		f.unit = arena_strdup(a, cJSON_GetArrayItem(v, k)->valuestring);
	add_ref(a, t, &f);
}

/* Is v a reference as an object (it has a plain value of a reference's
 * own keys), rather than the references of one system or GPU model? */
static bool
ref_object(const cJSON *v)
{
	static const char *const own[] = {"value", "lower", "upper", "unit", "min_size", "max_size"};
	const cJSON *k;
	size_t i;

	for (i = 0; cJSON_IsObject(v) && i < LEN(own); i++)
		if ((k = json_item(v, own[i])) && !cJSON_IsArray(k) && !cJSON_IsObject(k))
			return true;
	return false;
}

/* "references": {metric: [...] or {...}, scope: {metric: ...}}. */
static void
load_refs(struct arena *a, struct plan_test *t, const cJSON *refs)
{
	const cJSON *v, *m;
	size_t n = 0;

	cJSON_ArrayForEach(v, json_children(refs, true))
		n += cJSON_IsObject(v) ? (size_t)cJSON_GetArraySize(v) : 1;
	t->refs = n ? arena_alloc(a, n * sizeof(*t->refs)) : NULL;
	cJSON_ArrayForEach(v, json_children(refs, true)) {
		if (cJSON_IsObject(v) && !ref_object(v)) {
			const char *scope = arena_strdup(a, v->string);
			cJSON_ArrayForEach(m, v)
				load_ref(a, t, scope, m);
		} else
			load_ref(a, t, NULL, v);
	}
}

static bool
load_tests(struct arena *a, const char *path, const cJSON *tests, const struct plan_peers *peers,
           struct plan *p)
{
	static const char *const kinds[] = {"start_post_comp", "start_post_init", "end_post_comp"};
	const cJSON *t, *d;
	size_t i = 0, j, k;

	p->n_tests = (size_t)cJSON_GetArraySize(tests);
	p->tests = arena_alloc(a, (p->n_tests + 1) * sizeof(*p->tests));
	cJSON_ArrayForEach(t, tests) {
		struct plan_test *pt = &p->tests[i++];
		pt->id = json_get_str(a, t, "id");
		if (!cJSON_IsObject(t) || !pt->id)
			return plan_error(path, "scenario.Tests entry without an id", NULL);
		pt->workload = json_get_str(a, json_item(t, "test"), "test_template_name");
		pt->name = json_get_str(a, json_item(t, "test"), "name");
		pt->peers = *peers;
		fleet_peers_load(a, json_item(json_item(t, "test"), "peers"), &pt->peers);
		load_refs(a, pt, json_item(json_item(t, "test"), "references"));
	}
	/* dependencies name other tests: resolve once every id is known */
	i = 0;
	cJSON_ArrayForEach(t, tests) {
		struct plan_test *pt = &p->tests[i++];
		const cJSON *deps = json_item(t, "dependencies");
		pt->deps = arena_alloc(a, ((size_t)cJSON_GetArraySize(deps) + 1) * sizeof(*pt->deps));
		cJSON_ArrayForEach(d, json_children(deps, false)) {
			const char *type = json_get_str(a, d, "type"), *id = json_get_str(a, d, "id");
			struct plan_dep *pd = &pt->deps[pt->n_deps];
			for (k = 0; type && k < LEN(kinds) && strcmp(type, kinds[k]) != 0; k++)
				;
			if (!type || k == LEN(kinds))
				return plan_error(path, "unknown dependency type", type);
			if (!id || !find_test(p, id, &j))
				return plan_error(path, "dependency on an unknown test", id);
			pd->type = (enum plan_dep_type)k;
			pd->test = j;
			pt->n_deps++;
		}
	}
	return true;
}

static bool
load_runs(struct arena *a, const char *path, const cJSON *runs, struct plan *p)
{
	const cJSON *r, *arg;
	size_t i = 0, t = 0, *fill;

	p->n_runs = (size_t)cJSON_GetArraySize(runs);
	p->runs = arena_alloc(a, (p->n_runs + 1) * sizeof(*p->runs));
	cJSON_ArrayForEach(r, runs) {
		struct plan_run *pr = &p->runs[i++];
		const cJSON *args = json_item(r, "cmd_args");
		pr->dir = json_get_str(a, r, "dir");
		pr->id = json_get_str(a, r, "id");
		if (!cJSON_IsObject(r) || !pr->dir || !pr->id || !json_get_int(r, "iteration", &pr->iteration))
			return plan_error(path, "runs entry without dir, id or iteration", pr->dir);
		if (!safe_dir(pr->dir))
			return plan_error(path, "run dir outside the build dir", pr->dir);
		if (!json_get_int(r, "step", &pr->step))
			pr->step = 0;
		/* a test's runs are contiguous: try the previous run's test first */
		if (!(t < p->n_tests && strcmp(p->tests[t].id, pr->id) == 0) && !find_test(p, pr->id, &t))
			return plan_error(path, "run of an unknown test", pr->id);
		pr->test = t;
		p->tests[t].n_runs++;
		pr->args = arena_alloc(a, ((size_t)cJSON_GetArraySize(args) + 1) * sizeof(*pr->args));
		cJSON_ArrayForEach(arg, json_children(args, true)) {
			if (!cJSON_IsString(arg) || !arg->string)
				continue;
			pr->args[pr->n_args].key = arena_strdup(a, arg->string);
			pr->args[pr->n_args].value = arena_strdup(a, arg->valuestring);
			pr->n_args++;
		}
	}
	fill = arena_alloc(a, (p->n_tests + 1) * sizeof(*fill));
	for (t = 0; t < p->n_tests; t++)
		p->tests[t].runs = arena_alloc(a, (p->tests[t].n_runs + 1) * sizeof(size_t));
	for (i = 0; i < p->n_runs; i++) {
		t = p->runs[i].test;
		p->tests[t].runs[fill[t]++] = i;
	}
	return true;
}

bool
json_load_plan(struct arena *a, const char *path, struct plan *p)
{
	struct buf why = {0};
	const cJSON *sc, *tests, *runs;
	struct plan_peers peers;
	cJSON *root;
	bool absent, ok;

	memset(p, 0, sizeof(*p));
	root = json_load(path, &why, &absent);
	if (!root) {
		warn("%s: %s%s", path, buf_str(&why), absent ? " (not a build dir of kunai gen?)" : "");
		buf_free(&why);
		return false;
	}
	buf_free(&why);
	sc = json_item(root, "scenario");
	tests = json_item(sc, "Tests");
	runs = json_item(root, "runs");
	p->scenario = json_get_str(a, sc, "name");
	p->scheduler = json_get_str(a, json_item(root, "system"), "scheduler");
	if (cJSON_IsArray(json_item(root, "presets"))) {
		const cJSON *e;
		p->presets = arena_alloc(a, ((size_t)cJSON_GetArraySize(json_item(root, "presets")) + 1) *
		                                sizeof(*p->presets));
		cJSON_ArrayForEach(e, json_item(root, "presets"))
			if (cJSON_IsString(e))
				p->presets[p->n_presets++] = arena_strdup(a, e->valuestring);
	}
	p->system = json_get_str(a, json_item(root, "system"), "name");
	if (!p->scenario || !cJSON_IsArray(tests) || !cJSON_IsArray(runs))
		ok = plan_error(path, "not a kunai.json (no scenario name, scenario.Tests or runs)", NULL);
	else {
		/* the campaign's [peers], under each test's own */
		fleet_peers_default(&peers);
		fleet_peers_load(a, json_item(sc, "peers"), &peers);
		ok = load_tests(a, path, tests, &peers, p) && load_runs(a, path, runs, p);
	}
	cJSON_Delete(root);
	return ok;
}

/* ---- job.json ------------------------------------------------------------------ */

/* ---- report.json and summary.json ---------------------------------------------- */

static void
add_str_or_null(cJSON *o, const char *key, const char *v)
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
	add_str_or_null(o, "node", m->node);
	if (m->gpu >= 0)
		cJSON_AddNumberToObject(o, "gpu", m->gpu);
	else
		cJSON_AddNullToObject(o, "gpu");
	add_str_or_null(o, "gpu_model", m->gpu_model);
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
		add_str_or_null(f, "scope", m->ref->scope);
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
		add_str_or_null(e, "node", m->node);
		if (m->gpu >= 0)
			cJSON_AddNumberToObject(e, "gpu", m->gpu);
		else
			cJSON_AddNullToObject(e, "gpu");
		add_str_or_null(e, "gpu_model", m->gpu_model);
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
static cJSON *
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
	add_str_or_null(o, "reason", r->reason);
	if (r->has_exit_code)
		cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	else
		cJSON_AddNullToObject(o, "exit_code");
	add_str_or_null(o, "job_id", r->job_id);
	/* the scheduler's word beside the graded outcome (a perf-failed run's
	 * job passed) */
	add_str_or_null(o, "job_state", r->job_state);
	add_str_or_null(o, "job_outcome", r->job_outcome);
	add_str_or_null(o, "start_time", r->start_time);
	add_str_or_null(o, "end_time", r->end_time);
	if (r->duration_s >= 0)
		cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
	else
		cJSON_AddNullToObject(o, "duration_s");
	add_str_or_null(o, "workload", r->workload);
	/* report.json only: what graded it (summary.json is remade whenever
	 * any run is) */
	if (series && r->grader)
		cJSON_AddStringToObject(o, "grader", r->grader);
	add_str_or_null(o, "path", r->path);
	add_str_or_null(o, "nodes", r->nodes);
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
		if (!tolerance(json_item(f, "lower"), &r->lower))
			r->lower = -INFINITY;
		if (!tolerance(json_item(f, "upper"), &r->upper))
			r->upper = INFINITY;
		r->scope = json_get_str(a, f, "scope");
		if (json_item(f, "min_size"))
			load_range(f, r);
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

static bool
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

/* Writes summary.json through o one run at a time: the head printed with
 * an empty runs list, which each run's object (indented as cJSON_Print
 * nests it) then fills. */
void
json_write_summary(const struct summary *s, struct file_out *o)
{
	cJSON *h = cJSON_CreateObject(), *counts;
	double total = 0;
	struct buf one = {0};
	size_t i, j, k;

	cJSON_AddStringToObject(h, "scenario", s->scenario ? s->scenario : "");
	add_str_or_null(h, "system", s->system);
	/* the one status every view shows (DESIGN 18) */
	cJSON_AddStringToObject(h, "status", campaign_name(campaign_status(s)));
	cJSON_AddNumberToObject(h, "total", (double)s->n_runs);
	counts = cJSON_AddObjectToObject(h, "counts");
	for (i = 0; i < OUTCOME_COUNT; i++)
		cJSON_AddNumberToObject(counts, outcome_name((enum outcome)i), (double)s->counts[i]);
	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].duration_s > 0)
			total += s->runs[i].duration_s;
	cJSON_AddNumberToObject(h, "duration_s", total);
	add_str_or_null(h, "note", s->note);
	if (s->fleet)
		fleet_json_add(h, s);
	cJSON_AddArrayToObject(h, "runs");
	json_print(h, &o->b);
	if (!s->n_runs)
		return;
	o->b.len -= strlen("]\n}\n");
	for (i = 0; i < s->n_runs; i++) {
		one.len = 0;
		json_print(report_json(&s->runs[i], false), &one);
		buf_puts(&o->b, i ? ", " : "");
		for (j = 0, k = 0; j + 1 < one.len; j++)
			if (one.data[j] == '\n') {
				buf_push(&o->b, one.data + k, j + 1 - k);
				buf_puts(&o->b, "\t\t");
				k = j + 1;
			}
		buf_push(&o->b, one.data + k, one.len - 1 - k);
		file_out_flush(o, false);
	}
	buf_free(&one);
	buf_puts(&o->b, "]\n}\n");
}

bool
json_load_summary(struct arena *a, const char *path, struct summary *s)
{
	struct buf why = {0};
	const cJSON *runs, *r;
	cJSON *root;
	size_t i = 0;
	bool absent, ok = true;

	memset(s, 0, sizeof(*s));
	root = json_load(path, &why, &absent);
	if (!root) {
		warn("%s: %s", path, buf_str(&why));
		buf_free(&why);
		return false;
	}
	s->scenario = json_get_str(a, root, "scenario");
	s->system = json_get_str(a, root, "system");
	s->note = json_get_str(a, root, "note");
	fleet_json_load(a, root, s);
	runs = json_item(root, "runs");
	s->runs = arena_alloc(a, ((size_t)cJSON_GetArraySize(runs) + 1) * sizeof(*s->runs));
	cJSON_ArrayForEach(r, json_children(runs, false)) {
		why.len = 0;
		if (!report_from_json(a, r, &s->runs[i], &why)) {
			warn("%s: runs[%zu]: %s", path, i, buf_str(&why));
			ok = false;
			break;
		}
		s->counts[s->runs[i].outcome]++;
		i++;
	}
	s->n_runs = i;
	if (ok && !cJSON_IsArray(runs)) {
		warn("%s: no runs list", path);
		ok = false;
	}
	cJSON_Delete(root);
	buf_free(&why);
	return ok;
}
