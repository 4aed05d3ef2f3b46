/* results/cloudai.c: a results dir that CloudAI wrote, read as the plan
 * that kunai.json would give (cloudai.h, cloudai_results_plan). CloudAI's
 * layout is kunai's: <id>/<iteration>[/<step>]/, each with its
 * test-run.toml (the TestRun: name, current_iteration, step, and the test
 * definition with test_template_name and cmd_args) beside stdout.txt and
 * stderr.txt; it writes no job.json, so grade_run grades such a run from
 * its output alone. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "reports/results/cloudai.h"
#include "gen/base/util.h"
#include "gen/toml/toml.h"

/* test-run.toml is small; a larger one is no TestRun */
#define TEST_RUN_MAX (4u << 20)

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (no dot files), sorted; NULL when dir cannot be read. */
static char **
names(struct arena *a, const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			v = xreserve(v, *n + 1, &cap, sizeof(*v));
			v[(*n)++] = arena_strdup(a, e->d_name);
		}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static bool
all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s) && strlen(s) < 10;
}

static bool
is_file(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* cmd_args flattened to dotted keys, each value as text, as kunai.json
 * holds them. */
static void
flatten(struct arena *a, const struct toml_table *t, const char *prefix, struct plan_arg **v, size_t *n,
        size_t *cap)
{
	size_t i;

	for (i = 0; t && i < t->len; i++) {
		const struct toml_value *x = t->items[i].value;
		const char *key = *prefix ? arena_printf(a, "%s.%s", prefix, t->items[i].key) : t->items[i].key;
		const char *val = NULL;
		switch (x->type) {
		case TOML_TABLE:
			flatten(a, x->u.table, key, v, n, cap);
			continue;
		case TOML_STRING:
			val = x->u.str.s;
			break;
		case TOML_INTEGER:
			val = arena_printf(a, "%lld", (long long)x->u.integer);
			break;
		case TOML_FLOAT:
			val = arena_printf(a, "%.17g", x->u.flt);
			break;
		case TOML_BOOL:
			val = x->u.boolean ? "True" : "False";
			break;
		default:
			continue; /* lists, dates: no grader reads them */
		}
		*v = xreserve(*v, *n + 1, cap, sizeof(**v));
		(*v)[*n].key = arena_strdup(a, key);
		(*v)[(*n)++].value = arena_strdup(a, val);
	}
}

static const char *
str_of(const struct toml_table *t, const char *key)
{
	const struct toml_value *v = t ? toml_get(t, key) : NULL;

	return v && v->type == TOML_STRING ? v->u.str.s : NULL;
}

static const struct toml_table *
table_of(const struct toml_table *t, const char *key)
{
	const struct toml_value *v = t ? toml_get(t, key) : NULL;

	return v && v->type == TOML_TABLE ? v->u.table : NULL;
}

/* One run dir's test-run.toml into r (and its test's template and
 * name); false, reporting, when it is no TestRun. */
static bool
read_run(struct arena *a, const char *root, const char *dir, struct plan_run *r, const char **workload,
         const char **name)
{
	struct buf path = {0}, text = {0};
	struct toml_error err;
	struct toml_value *doc;
	const struct toml_table *td;
	struct plan_arg *v = NULL;
	size_t cap = 0, n = 0;
	bool ok = false;

	buf_printf(&path, "%s/%s/test-run.toml", root, dir);
	if (!read_file_max(path.data, &text, TEST_RUN_MAX, "a test-run.toml"))
		goto out;
	doc = toml_parse(a, path.data, text.data ? text.data : "", text.len, &err);
	if (!doc) {
		error_at(path.data, err.line, err.col, "%s", err.msg);
		goto out;
	}
	td = table_of(doc->u.table, "test_definition");
	*workload = str_of(td, "test_template_name");
	*name = str_of(td, "name");
	if (!*workload) {
		warn("%s: error: no test_definition.test_template_name (not CloudAI's test-run.toml?)", path.data);
		goto out;
	}
	flatten(a, table_of(td, "cmd_args"), "", &v, &n, &cap);
	r->args = arena_alloc(a, (n + 1) * sizeof(*r->args));
	if (n)
		memcpy(r->args, v, n * sizeof(*v));
	r->n_args = n;
	ok = true;
out:
	free(v);
	buf_free(&path);
	buf_free(&text);
	return ok;
}

/* CloudAI names its results dir <scenario>_<YYYY-MM-DD_HH-MM-SS>. */
static const char *
scenario_name(struct arena *a, const char *root)
{
	const char *base = strrchr(root, '/');
	size_t n;

	base = base && base[1] ? base + 1 : root;
	n = strlen(base);
	if (n > 20 && base[n - 20] == '_' && base[n - 9] == '_' && base[n - 15] == '-')
		return arena_strndup(a, base, n - 20);
	return base;
}

bool
cloudai_results_is(const char *root)
{
	struct arena a = {0};
	char **top, **its;
	size_t n, m, i, j;
	bool yes = false;
	struct buf p = {0};

	top = names(&a, root, &n);
	for (i = 0; i < n && !yes; i++) {
		p.len = 0;
		buf_printf(&p, "%s/%s", root, top[i]);
		its = names(&a, p.data, &m);
		for (j = 0; j < m && !yes; j++) {
			p.len = 0;
			buf_printf(&p, "%s/%s/%s/test-run.toml", root, top[i], its[j]);
			yes = all_digits(its[j]) && is_file(p.data);
		}
		free(its);
	}
	free(top);
	buf_free(&p);
	arena_free(&a);
	return yes;
}

bool
cloudai_results_plan(struct arena *a, const char *root, struct plan *p)
{
	struct arena scratch = {0};
	struct plan_peers peers;
	struct plan_run *runs = NULL;
	const char **wl = NULL, **tname = NULL;
	size_t n_runs = 0, cap = 0, cap2 = 0, cap3 = 0, n, m, k, i, j, s, t, *fill;
	char **top, **its, **steps;
	struct buf d = {0};
	bool ok = true;

	memset(p, 0, sizeof(*p));
	p->cloudai = true;
	p->scenario = scenario_name(a, root);
	top = names(&scratch, root, &n);
	for (i = 0; i < n; i++) {
		d.len = 0;
		buf_printf(&d, "%s/%s", root, top[i]);
		its = names(&scratch, d.data, &m);
		for (j = 0; j < m; j++) {
			if (!all_digits(its[j]))
				continue;
			/* <id>/<iteration>/, or its sweep points <id>/<iteration>/<step>/ */
			d.len = 0;
			buf_printf(&d, "%s/%s/%s", root, top[i], its[j]);
			steps = names(&scratch, d.data, &k);
			for (s = 0; s <= k; s++) {
				const char *dir = s == 0 ? arena_printf(a, "%s/%s", top[i], its[j])
				                         : arena_printf(a, "%s/%s/%s", top[i], its[j], steps[s - 1]);
				struct plan_run *r;
				if (s > 0 && (!all_digits(steps[s - 1]) || atoi(steps[s - 1]) < 1))
					continue;
				d.len = 0;
				buf_printf(&d, "%s/%s/test-run.toml", root, dir);
				if (!is_file(d.data))
					continue;
				runs = xreserve(runs, n_runs + 1, &cap, sizeof(*runs));
				wl = xreserve(wl, n_runs + 1, &cap2, sizeof(*wl));
				tname = xreserve(tname, n_runs + 1, &cap3, sizeof(*tname));
				r = memset(&runs[n_runs], 0, sizeof(*r));
				r->dir = dir;
				r->id = arena_strdup(a, top[i]);
				r->iteration = atoi(its[j]);
				r->step = s == 0 ? 0 : atoi(steps[s - 1]);
				if (read_run(a, root, dir, r, &wl[n_runs], &tname[n_runs]))
					n_runs++;
				else
					ok = false;
			}
			free(steps);
		}
		free(its);
	}
	free(top);
	if (ok && !n_runs) {
		warn("%s: no kunai.json, and no run dir of CloudAI's (<id>/<iteration>/test-run.toml)", root);
		ok = false;
	}
	/* one test per id, in the order of its first run (the dirs are sorted) */
	fleet_peers_default(&peers);
	p->tests = arena_alloc(a, (n_runs + 1) * sizeof(*p->tests));
	p->runs = arena_alloc(a, (n_runs + 1) * sizeof(*p->runs));
	for (i = 0; ok && i < n_runs; i++) {
		for (t = 0; t < p->n_tests && strcmp(p->tests[t].id, runs[i].id) != 0; t++)
			;
		if (t == p->n_tests) {
			p->tests[t].id = runs[i].id;
			p->tests[t].workload = wl[i];
			p->tests[t].name = tname[i];
			p->tests[t].peers = peers;
			p->n_tests++;
		}
		runs[i].test = t;
		p->tests[t].n_runs++;
		p->runs[p->n_runs++] = runs[i];
	}
	fill = xcalloc(p->n_tests + 1, sizeof(*fill));
	for (t = 0; t < p->n_tests; t++)
		p->tests[t].runs = arena_alloc(a, (p->tests[t].n_runs + 1) * sizeof(size_t));
	for (i = 0; i < p->n_runs; i++)
		p->tests[p->runs[i].test].runs[fill[p->runs[i].test]++] = i;
	free(fill);
	free(runs);
	free(wl);
	free(tname);
	buf_free(&d);
	arena_free(&scratch);
	return ok;
}
