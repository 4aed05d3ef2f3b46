/* json_report.c: the JSON of results: kunai.json's run list read back,
 * job.json (written by the runner), report.json and summary.json. With
 * json.c, the only file that includes cJSON.h. Every input may be missing,
 * truncated or hand-edited: types are checked before every read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report.h"
#include "util.h"

/* Parses text as JSON; on failure puts "line:col: invalid JSON" in why. */
static cJSON *
parse(const struct buf *text, struct buf *why)
{
	const char *end = NULL, *p;
	int line = 1, col = 1;
	cJSON *root;

	root = cJSON_ParseWithLengthOpts(text->data ? text->data : "", text->len, &end, 0);
	if (root)
		return root;
	if (!end)
		end = cJSON_GetErrorPtr();
	for (p = text->data; p && end && p < end && p < text->data + text->len; p++) {
		if (*p == '\n')
			line++, col = 1;
		else
			col++;
	}
	buf_printf(why, "%d:%d: invalid JSON", line, col);
	return NULL;
}

/* Reads and parses path. Returns NULL with why set; *absent tells ENOENT. */
static cJSON *
load(const char *path, struct buf *why, bool *absent)
{
	struct buf text = {0};
	FILE *f;
	char tmp[65536];
	size_t n;
	cJSON *root;

	*absent = false;
	f = fopen(path, "rb");
	if (!f) {
		*absent = errno == ENOENT;
		buf_printf(why, "%s", strerror(errno));
		return NULL;
	}
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_push(&text, tmp, n);
	if (ferror(f)) {
		buf_printf(why, "read error");
		fclose(f);
		buf_free(&text);
		return NULL;
	}
	fclose(f);
	root = parse(&text, why);
	buf_free(&text);
	if (root && !cJSON_IsObject(root)) {
		buf_printf(why, "not a JSON object");
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

static const cJSON *
item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* v when it is an array (or, with object, an object), else NULL: the
 * children of anything else are not to be walked. */
static const cJSON *
children(const cJSON *v, bool object)
{
	return (object ? cJSON_IsObject(v) : cJSON_IsArray(v)) ? v : NULL;
}

/* A string member as an arena copy; numbers are formatted (a job id may be
 * written as either). NULL when absent, null or of another type. */
static const char *
get_str(struct arena *a, const cJSON *o, const char *key)
{
	const cJSON *v = item(o, key);
	char tmp[64];

	if (cJSON_IsString(v) && v->valuestring)
		return arena_strdup(a, v->valuestring);
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9007199254740992.0)
			snprintf(tmp, sizeof(tmp), "%.0f", v->valuedouble);
		else
			snprintf(tmp, sizeof(tmp), "%.17g", v->valuedouble);
		return arena_strdup(a, tmp);
	}
	return NULL;
}

/* An integer member; false when absent, null, fractional or out of range. */
static bool
get_int(const cJSON *o, const char *key, int *out)
{
	const cJSON *v = item(o, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < INT_MIN || v->valuedouble > INT_MAX)
		return false;
	*out = (int)v->valuedouble;
	return true;
}

/* ---- kunai.json -------------------------------------------------------------- */

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

static bool
load_tests(struct arena *a, const char *path, const cJSON *tests, struct plan *p)
{
	static const char *const kinds[] = {"start_post_comp", "start_post_init", "end_post_comp"};
	const cJSON *t, *d;
	size_t i = 0, j, k;

	p->n_tests = (size_t)cJSON_GetArraySize(tests);
	p->tests = arena_alloc(a, (p->n_tests + 1) * sizeof(*p->tests));
	cJSON_ArrayForEach(t, tests) {
		struct plan_test *pt = &p->tests[i++];
		pt->id = get_str(a, t, "id");
		if (!cJSON_IsObject(t) || !pt->id)
			return plan_error(path, "scenario.Tests entry without an id", NULL);
		pt->workload = get_str(a, item(t, "test"), "test_template_name");
	}
	/* dependencies name other tests: resolve once every id is known */
	i = 0;
	cJSON_ArrayForEach(t, tests) {
		struct plan_test *pt = &p->tests[i++];
		const cJSON *deps = item(t, "dependencies");
		pt->deps = arena_alloc(a, ((size_t)cJSON_GetArraySize(deps) + 1) * sizeof(*pt->deps));
		cJSON_ArrayForEach(d, children(deps, false)) {
			const char *type = get_str(a, d, "type"), *id = get_str(a, d, "id");
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
		const cJSON *args = item(r, "cmd_args");
		pr->dir = get_str(a, r, "dir");
		pr->id = get_str(a, r, "id");
		if (!cJSON_IsObject(r) || !pr->dir || !pr->id || !get_int(r, "iteration", &pr->iteration))
			return plan_error(path, "runs entry without dir, id or iteration", pr->dir);
		if (!safe_dir(pr->dir))
			return plan_error(path, "run dir outside the build dir", pr->dir);
		if (!get_int(r, "step", &pr->step))
			pr->step = 0;
		/* a test's runs are contiguous: try the previous run's test first */
		if (!(t < p->n_tests && strcmp(p->tests[t].id, pr->id) == 0) && !find_test(p, pr->id, &t))
			return plan_error(path, "run of an unknown test", pr->id);
		pr->test = t;
		p->tests[t].n_runs++;
		pr->args = arena_alloc(a, ((size_t)cJSON_GetArraySize(args) + 1) * sizeof(*pr->args));
		cJSON_ArrayForEach(arg, children(args, true)) {
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
	cJSON *root;
	bool absent, ok;

	memset(p, 0, sizeof(*p));
	root = load(path, &why, &absent);
	if (!root) {
		warn("%s: %s%s", path, buf_str(&why), absent ? " (not a build dir of kunai gen?)" : "");
		buf_free(&why);
		return false;
	}
	buf_free(&why);
	sc = item(root, "scenario");
	tests = item(sc, "Tests");
	runs = item(root, "runs");
	p->scenario = get_str(a, sc, "name");
	p->scheduler = get_str(a, item(root, "system"), "scheduler");
	if (cJSON_IsArray(item(root, "presets"))) {
		const cJSON *e;
		p->presets = arena_alloc(a, ((size_t)cJSON_GetArraySize(item(root, "presets")) + 1) * sizeof(*p->presets));
		cJSON_ArrayForEach(e, item(root, "presets"))
			if (cJSON_IsString(e))
				p->presets[p->n_presets++] = arena_strdup(a, e->valuestring);
	}
	if (!p->scenario || !cJSON_IsArray(tests) || !cJSON_IsArray(runs))
		ok = plan_error(path, "not a kunai.json (no scenario name, scenario.Tests or runs)", NULL);
	else
		ok = load_tests(a, path, tests, p) && load_runs(a, path, runs, p);
	cJSON_Delete(root);
	return ok;
}

/* ---- job.json ------------------------------------------------------------------ */

/* nodes may be a string, a list of names or a count. */
static const char *
get_nodes(struct arena *a, const cJSON *o)
{
	const cJSON *v = item(o, "nodes"), *n;
	struct buf b = {0};
	const char *s;

	if (!cJSON_IsArray(v))
		return get_str(a, o, "nodes");
	cJSON_ArrayForEach(n, v) {
		if (!cJSON_IsString(n))
			continue;
		if (b.len)
			buf_putc(&b, ',');
		buf_puts(&b, n->valuestring);
	}
	s = b.len ? arena_strdup(a, b.data) : NULL;
	buf_free(&b);
	return s;
}

int
json_load_job(struct arena *a, const char *path, struct job_record *j, struct buf *why)
{
	const char *outcome;
	const cJSON *v;
	cJSON *root;
	bool absent;

	memset(j, 0, sizeof(*j));
	root = load(path, why, &absent);
	if (!root)
		return absent ? 0 : -1;
	j->scheduler = get_str(a, root, "scheduler");
	j->job_id = get_str(a, root, "job_id");
	j->state = get_str(a, root, "state");
	j->reason = get_str(a, root, "reason");
	j->workload = get_str(a, root, "workload");
	j->nodes = get_nodes(a, root);
	j->host = get_str(a, root, "host");
	j->submit_time = get_str(a, root, "submit_time");
	j->start_time = get_str(a, root, "start_time");
	j->end_time = get_str(a, root, "end_time");
	j->has_exit_code = get_int(root, "exit_code", &j->exit_code);
	j->has_signal = get_int(root, "signal", &j->signal);
	if (!get_int(root, "attempt", &j->attempt))
		j->attempt = 0;
	v = item(root, "pid_start");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 9e18)
		j->pid_start = (long long)v->valuedouble;
	outcome = get_str(a, root, "outcome");
	cJSON_Delete(root);
	if (outcome && *outcome) {
		if (!outcome_parse(outcome, &j->outcome)) {
			buf_printf(why, "unknown outcome '%s'", outcome);
			return -1;
		}
		j->has_outcome = true;
	}
	return 1;
}

/* ---- report.json and summary.json ---------------------------------------------- */

static void
add_str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *
report_json(const struct run_report *r)
{
	cJSON *o = cJSON_CreateObject(), *m;
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
	add_str_or_null(o, "start_time", r->start_time);
	add_str_or_null(o, "end_time", r->end_time);
	if (r->duration_s >= 0)
		cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
	else
		cJSON_AddNullToObject(o, "duration_s");
	m = cJSON_AddObjectToObject(o, "metrics");
	for (i = 0; i < r->n_metrics; i++)
		cJSON_AddNumberToObject(m, r->metrics[i].name, r->metrics[i].value);
	return o;
}

static bool
report_from_json(struct arena *a, const cJSON *o, struct run_report *r, struct buf *why)
{
	const char *outcome = get_str(a, o, "outcome");
	const cJSON *m = item(o, "metrics"), *v, *d = item(o, "duration_s");

	memset(r, 0, sizeof(*r));
	r->dir = get_str(a, o, "dir");
	r->id = get_str(a, o, "id");
	if (!r->dir || !r->id || !get_int(o, "iteration", &r->iteration)) {
		buf_printf(why, "no dir, id or iteration");
		return false;
	}
	if (!outcome || !outcome_parse(outcome, &r->outcome)) {
		buf_printf(why, "unknown outcome '%s'", outcome ? outcome : "(none)");
		return false;
	}
	if (!get_int(o, "step", &r->step))
		r->step = 0;
	r->reason = get_str(a, o, "reason");
	r->has_exit_code = get_int(o, "exit_code", &r->exit_code);
	r->job_id = get_str(a, o, "job_id");
	r->start_time = get_str(a, o, "start_time");
	r->end_time = get_str(a, o, "end_time");
	r->duration_s = cJSON_IsNumber(d) && isfinite(d->valuedouble) && d->valuedouble >= 0 ? d->valuedouble : -1;
	r->metrics = arena_alloc(a, ((size_t)cJSON_GetArraySize(m) + 1) * sizeof(*r->metrics));
	cJSON_ArrayForEach(v, children(m, true)) {
		if (!cJSON_IsNumber(v) || !v->string)
			continue;
		r->metrics[r->n_metrics].name = arena_strdup(a, v->string);
		r->metrics[r->n_metrics].value = v->valuedouble;
		r->n_metrics++;
	}
	return true;
}

bool
json_load_report(struct arena *a, const char *path, struct run_report *r, struct buf *why)
{
	cJSON *root;
	bool absent, ok;

	root = load(path, why, &absent);
	if (!root)
		return false;
	ok = report_from_json(a, root, r, why);
	cJSON_Delete(root);
	return ok;
}

/* Appends o printed (cJSON's tab layout, as kunai.json) and a newline. */
static void
print(cJSON *o, struct buf *out)
{
	char *text = cJSON_Print(o);

	cJSON_Delete(o);
	if (!text)
		fatal("out of memory while printing JSON");
	buf_puts(out, text);
	buf_putc(out, '\n');
	cJSON_free(text);
}

void
json_write_report(const struct run_report *r, struct buf *out)
{
	print(report_json(r), out);
}

void
json_write_summary(const struct summary *s, struct buf *out)
{
	cJSON *o = cJSON_CreateObject(), *counts, *runs;
	double total = 0;
	size_t i;

	cJSON_AddStringToObject(o, "scenario", s->scenario ? s->scenario : "");
	cJSON_AddNumberToObject(o, "total", (double)s->n_runs);
	counts = cJSON_AddObjectToObject(o, "counts");
	for (i = 0; i < OUTCOME_COUNT; i++)
		cJSON_AddNumberToObject(counts, outcome_name((enum outcome)i), (double)s->counts[i]);
	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].duration_s > 0)
			total += s->runs[i].duration_s;
	cJSON_AddNumberToObject(o, "duration_s", total);
	runs = cJSON_AddArrayToObject(o, "runs");
	for (i = 0; i < s->n_runs; i++)
		cJSON_AddItemToArray(runs, report_json(&s->runs[i]));
	print(o, out);
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
	root = load(path, &why, &absent);
	if (!root) {
		warn("%s: %s", path, buf_str(&why));
		buf_free(&why);
		return false;
	}
	s->scenario = get_str(a, root, "scenario");
	runs = item(root, "runs");
	s->runs = arena_alloc(a, ((size_t)cJSON_GetArraySize(runs) + 1) * sizeof(*s->runs));
	cJSON_ArrayForEach(r, children(runs, false)) {
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

/* ---- phases/NAME.json ---------------------------------------------------------- */

void
json_write_phase(const struct phase_record *r, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	cJSON_AddStringToObject(o, "phase", r->name);
	cJSON_AddStringToObject(o, "outcome", r->outcome);
	if (r->reason)
		cJSON_AddStringToObject(o, "reason", r->reason);
	if (r->has_exit_code)
		cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	cJSON_AddStringToObject(o, "start_time", r->start_time);
	cJSON_AddStringToObject(o, "end_time", r->end_time);
	text = cJSON_Print(o);
	if (!text)
		fatal("out of memory");
	buf_puts(out, text);
	buf_putc(out, '\n');
	free(text);
	cJSON_Delete(o);
}

bool
json_load_phase(struct arena *a, const char *path, struct phase_record *r)
{
	struct buf why = {0};
	bool absent;
	cJSON *root = load(path, &why, &absent);
	const cJSON *v;

	buf_free(&why);
	memset(r, 0, sizeof(*r));
	if (!root)
		return false;
	r->name = get_str(a, root, "phase");
	r->outcome = get_str(a, root, "outcome");
	r->reason = get_str(a, root, "reason");
	r->start_time = get_str(a, root, "start_time");
	r->end_time = get_str(a, root, "end_time");
	if ((v = item(root, "exit_code")) && cJSON_IsNumber(v)) {
		r->has_exit_code = true;
		r->exit_code = v->valueint;
	}
	cJSON_Delete(root);
	return r->outcome != NULL;
}
