/* results/plan.c: kunai.json read back as the plan that results are read
 * against (see plan.h): every test with its dependencies, references and
 * [peers] (the scenario's, then each test's over it), and every run with
 * its resolved cmd_args. kunai.json may be truncated or hand-edited: types
 * are checked before every read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "reports/results/report_json.h"
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
		if (!cJSON_IsNumber(json_item(v, "value")) || !json_tolerance(json_item(v, "lower"), &f.lower) ||
		    (up && !json_tolerance(up, &f.upper)))
			return;
		f.value = json_item(v, "value")->valuedouble;
		if (cJSON_IsString(u))
			f.unit = arena_strdup(a, u->valuestring);
		json_load_range(v, &f);
		add_ref(a, t, &f);
		return;
	}
	if (!cJSON_IsArray(v) || n < 2 || !cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) ||
	    !json_tolerance(cJSON_GetArrayItem(v, 1), &f.lower))
		return;
	if (cJSON_IsObject(cJSON_GetArrayItem(v, n - 1)))
		json_load_range(cJSON_GetArrayItem(v, --n), &f);
	f.value = cJSON_GetArrayItem(v, 0)->valuedouble;
	if (n > k && json_tolerance(cJSON_GetArrayItem(v, k), &f.upper))
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
	/* a test's runs mostly share their arguments' names and values */
	struct strtab strs = {0};
	bool ok = true;

	p->n_runs = (size_t)cJSON_GetArraySize(runs);
	p->runs = arena_alloc(a, (p->n_runs + 1) * sizeof(*p->runs));
	cJSON_ArrayForEach(r, runs) {
		struct plan_run *pr = &p->runs[i++];
		const cJSON *args = json_item(r, "cmd_args");
		pr->dir = json_get_str(a, r, "dir");
		pr->id = json_get_str(a, r, "id");
		if (!cJSON_IsObject(r) || !pr->dir || !pr->id || !json_get_int(r, "iteration", &pr->iteration)) {
			ok = plan_error(path, "runs entry without dir, id or iteration", pr->dir);
			break;
		}
		if (!safe_dir(pr->dir)) {
			ok = plan_error(path, "run dir outside the build dir", pr->dir);
			break;
		}
		if (!json_get_int(r, "step", &pr->step))
			pr->step = 0;
		/* a test's runs are contiguous: try the previous run's test first */
		if (!(t < p->n_tests && strcmp(p->tests[t].id, pr->id) == 0) && !find_test(p, pr->id, &t)) {
			ok = plan_error(path, "run of an unknown test", pr->id);
			break;
		}
		pr->test = t;
		p->tests[t].n_runs++;
		pr->args = arena_alloc(a, ((size_t)cJSON_GetArraySize(args) + 1) * sizeof(*pr->args));
		cJSON_ArrayForEach(arg, json_children(args, true)) {
			if (!cJSON_IsString(arg) || !arg->string)
				continue;
			pr->args[pr->n_args].key = strtab_intern(a, &strs, arg->string);
			pr->args[pr->n_args].value = strtab_intern(a, &strs, arg->valuestring);
			pr->n_args++;
		}
	}
	strtab_free(&strs);
	if (!ok)
		return false;
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
