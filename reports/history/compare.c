/* history/compare.c: `kunai compare OLD NEW` and the history of `kunai report
 * --history DIR...`: a campaign's values side by side with an earlier
 * one's, or with the spread of several earlier ones. A value is keyed by
 * test id, sweep step, metric, node and GPU, averaged over iterations;
 * series (per size, per epoch) are left out. Whether more is better comes
 * from the reference (an upper bound only: less is better) or the unit. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/base/escape.h"
#include "reports/history/compare.h"
#include "reports/results/format.h"
#include "reports/history/export.h"
#include "reports/results/results.h"
#include "reports/write/summary.h"
#include "gen/base/util.h"

struct kv {
	char *key; /* "id\x1fstep\x1fmetric\x1fnode\x1fgpu" */
	const struct metric *m;
	const char *id;
	int step;
	double sum;
	int n;
};

struct values {
	struct kv *v;
	size_t n;
};

bool
results_open(struct arena *a, const char *path, struct summary *s)
{
	struct export_src src = {0};
	struct buf p = {0};
	struct stat st;
	size_t n = strlen(path);
	bool ok, archive = false;

	/* a build dir, its report/summary.json, or an archive of kunai export
	 * (checked and extracted whole by export_open before anything is read) */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !(n >= 5 && strcmp(path + n - 5, ".json") == 0)) {
		if (!export_open(path, &src))
			return false;
		archive = true;
		buf_printf(&p, "%s/report/summary.json", src.dir);
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		buf_printf(&p, "%s/report/summary.json", path);
	} else {
		buf_puts(&p, path);
	}
	if (stat(p.data, &st) != 0) {
		warn("%s: no report/summary.json (run `kunai report` on it first)", path);
		ok = false;
	} else {
		ok = json_load_summary(a, p.data, s);
	}
	if (archive)
		export_close(&src);
	buf_free(&p);
	return ok;
}

/* Is more better for m? Its reference says so when one side is bounded;
 * else its unit: bandwidths, rates and accuracy up, times and counts down. */
static bool
more_is_better(const struct metric *m)
{
	static const char *const down[] = {"us", "s", "ms", "loss", "count", "ratio", "C", "W"};
	size_t i;

	if (m->ref && isinf(m->ref->upper) != isinf(m->ref->lower))
		return isinf(m->ref->upper);
	if (strstr(m->name, "accuracy"))
		return true;
	for (i = 0; m->unit && i < LEN(down); i++)
		if (strcmp(m->unit, down[i]) == 0)
			return false;
	return true;
}

/* The fraction a value may move the wrong way: its reference's tolerance
 * on that side, else def. */
static double
tolerance(const struct metric *m, double def)
{
	double t;

	if (!m->ref)
		return def;
	t = more_is_better(m) ? -m->ref->lower : m->ref->upper;
	return isinf(t) || t <= 0 ? def : t;
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

/* Every whole-run value of s, averaged over iterations, sorted by key. */
static void
values_of(const struct summary *s, struct values *out)
{
	struct buf k = {0};
	size_t i, j, w, cap = 0;

	out->v = NULL;
	out->n = 0;
	for (i = 0; i < s->n_runs; i++)
		for (j = 0; j < s->runs[i].n_metrics; j++) {
			const struct metric *m = &s->runs[i].metrics[j];
			/* a size in bytes says where, not how well */
			if (m->x >= 0 || s->runs[i].outcome == OUTCOME_NOT_RUN || (m->unit && !strcmp(m->unit, "B")))
				continue;
			k.len = 0;
			buf_printf(&k, "%s\x1f%d\x1f%s\x1f%s\x1f%d", s->runs[i].id, s->runs[i].step, m->name,
			           m->node ? m->node : "", m->gpu);
			out->v = xreserve(out->v, out->n + 1, &cap, sizeof(*out->v));
			out->v[out->n] = (struct kv){xstrdup(k.data), m, s->runs[i].id, s->runs[i].step, m->value, 1};
			out->n++;
		}
	buf_free(&k);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_key);
	/* iterations of one key: one entry with their sum */
	for (i = 0, w = 0; i < out->n; i++) {
		if (w && strcmp(out->v[w - 1].key, out->v[i].key) == 0) {
			out->v[w - 1].sum += out->v[i].sum;
			out->v[w - 1].n++;
			free(out->v[i].key);
			continue;
		}
		out->v[w++] = out->v[i];
	}
	out->n = w;
}

static void
values_free(struct values *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->v[i].key);
	free(v->v);
}

static const struct kv *
lookup(const struct values *v, const char *key)
{
	struct kv k = {(char *)key, NULL, NULL, 0, 0, 0};

	return v->n ? bsearch(&k, v->v, v->n, sizeof(k), by_key) : NULL;
}

static void
where(struct buf *b, const struct kv *e)
{
	const struct metric *m = e->m;

	buf_puts(b, e->id);
	if (e->step > 0)
		buf_printf(b, " step %d", e->step);
	buf_printf(b, " %s", m->name);
	if (m->node)
		buf_printf(b, " on %s", m->node);
	if (m->gpu >= 0)
		buf_printf(b, " GPU %d", m->gpu);
}

static int
compare_usage(const char *msg)
{
	fprintf(stderr, "kunai: compare: %s\nusage: kunai compare [--all] [--tolerance PCT] OLD NEW   "
	                "(build dirs or summary.json files)\n", msg);
	return 2;
}

/* One value in both campaigns. */
struct delta {
	const struct kv *n;
	double ov, nv, change, tol;
	bool worse, better;
	double excess; /* how far past its tolerance it moved the wrong way */
};

/* Regressions first, worst first; the rest in key order. */
static int
by_severity(const void *a, const void *b)
{
	const struct delta *x = a, *y = b;

	if (x->worse != y->worse)
		return x->worse ? -1 : 1;
	if (x->worse && x->excess != y->excess)
		return x->excess > y->excess ? -1 : 1;
	return strcmp(x->n->key, y->n->key);
}

static void
print_delta(const struct delta *d, struct buf *line)
{
	struct buf o = {0}, n = {0};

	line->len = 0;
	where(line, d->n);
	fmt_num(&o, d->ov);
	fmt_num(&n, d->nv);
	printf("%-60s %12s %12s %+7.1f%%  %s\n", line->data, o.data, n.data, 100 * d->change,
	       d->worse ? "REGRESSED" : d->better ? "better" : "same");
	buf_free(&o);
	buf_free(&n);
}

int
cmd_compare(int argc, char **argv)
{
	struct arena a = {0};
	struct summary s[2];
	struct values v[2] = {{0}};
	const char *path[2] = {NULL, NULL};
	struct delta *d = NULL;
	double def = 0.05;
	size_t i, np = 0, regressed = 0, same = 0, only_new = 0;
	struct buf line = {0};
	bool all = false;
	char *end;
	int rc = 1;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < (size_t)argc) {
			def = strtod(argv[++i], &end) / 100;
			if (*end || !(def >= 0))
				return compare_usage("--tolerance takes a percentage");
		} else if (strcmp(argv[i], "--all") == 0)
			all = true;
		else if (argv[i][0] == '-' && argv[i][1])
			return compare_usage("unknown option");
		else if (np < 2)
			path[np++] = argv[i];
		else
			return compare_usage("more than two results");
	}
	if (np != 2)
		return compare_usage("OLD and NEW are needed");
	if (!results_open(&a, path[0], &s[0]) || !results_open(&a, path[1], &s[1]))
		goto done;
	values_of(&s[0], &v[0]);
	values_of(&s[1], &v[1]);
	d = xcalloc(v[1].n + 1, sizeof(*d));
	for (i = 0; i < v[1].n; i++) {
		const struct kv *n = &v[1].v[i], *o = lookup(&v[0], n->key);
		struct delta *e = &d[same];
		bool up;
		if (!o) {
			only_new++;
			continue;
		}
		same++;
		e->n = n;
		e->ov = o->sum / o->n;
		e->nv = n->sum / n->n;
		up = more_is_better(n->m);
		e->tol = tolerance(n->m, def);
		e->change = e->ov != 0 ? (e->nv - e->ov) / fabs(e->ov) : (e->nv == 0 ? 0 : INFINITY);
		e->worse = up ? e->change < -e->tol : e->change > e->tol;
		e->better = up ? e->change > e->tol : e->change < -e->tol;
		e->excess = (up ? -e->change : e->change) - e->tol;
		regressed += e->worse;
	}
	if (same)
		qsort(d, same, sizeof(*d), by_severity);
	if (regressed || all)
		printf("%-60s %12s %12s %8s  %s\n", "value", "old", "new", "change", "verdict");
	for (i = 0; i < same && (all || d[i].worse); i++)
		print_delta(&d[i], &line);
	printf("kunai: %zu values in both, %zu only in NEW, %zu only in OLD; %zu regressed beyond their tolerance%s\n",
	       same, only_new, v[0].n - same, regressed,
	       all || same == regressed ? "" : " (--all shows every value)");
	rc = regressed ? 1 : 0;
done:
	free(d);
	values_free(&v[0]);
	values_free(&v[1]);
	buf_free(&line);
	arena_free(&a);
	return rc;
}

void
history_check(const struct summary *cur, const char *const *dirs, size_t n, double def, struct buf *out,
              struct history_result *res)
{
	struct values now, *hist = xcalloc(n + 1, sizeof(*hist));
	struct arena a = {0};
	struct buf line = {0};
	size_t i, k, flagged = 0, h;

	memset(res, 0, sizeof(*res));
	res->needed = HISTORY_NEEDED;
	values_of(cur, &now);
	buf_puts(out, "# history\n\n");
	for (k = 0; k < n; k++) {
		struct summary s;
		if (results_open(&a, dirs[k], &s)) {
			values_of(&s, &hist[k]);
			res->campaigns++;
			continue;
		}
		res->unreadable++;
		buf_puts(out, "**Not read:** ");
		md_text(out, dirs[k]);
		buf_puts(out, " (no readable summary.json).\n\n");
	}
	if (res->campaigns < HISTORY_NEEDED) {
		buf_printf(out, "**Not checked:** history: %zu of %d campaigns needed; not checked.\n", res->campaigns,
		           HISTORY_NEEDED);
		goto done;
	}
	buf_printf(out, "Each value against the same value (test, step, metric, node, GPU; mean of the "
	                "iterations) in %zu earlier campaign%s: flagged when it is worse than the worst of at least "
	                "%d earlier values by more than its tolerance (the reference's, else ",
	           res->campaigns, res->campaigns == 1 ? "" : "s", HISTORY_NEEDED);
	fmt_percent(out, def);
	buf_puts(out, ") of their median.\n\n| value | now | earlier (min .. max, n) | verdict |\n| --- | ---: | --- | --- |\n");
	for (i = 0; i < now.n; i++) {
		const struct kv *e = &now.v[i];
		double v = e->sum / e->n, lo = INFINITY, hi = -INFINITY, vals[256], med, tol;
		bool up = more_is_better(e->m), bad;
		for (k = 0, h = 0; k < n && h < LEN(vals); k++) {
			const struct kv *o = lookup(&hist[k], e->key);
			if (!o)
				continue;
			vals[h] = o->sum / o->n;
			lo = fmin(lo, vals[h]);
			hi = fmax(hi, vals[h]);
			h++;
		}
		if (h < HISTORY_NEEDED)
			continue;
		for (k = 1; k < h; k++) /* insertion sort: few values */
			for (size_t j = k; j > 0 && vals[j - 1] > vals[j]; j--) {
				double t = vals[j];
				vals[j] = vals[j - 1];
				vals[j - 1] = t;
			}
		med = h % 2 ? vals[h / 2] : (vals[h / 2 - 1] + vals[h / 2]) / 2;
		tol = tolerance(e->m, def) * fabs(med);
		bad = up ? v < lo - tol : v > hi + tol;
		flagged += bad;
		line.len = 0;
		where(&line, e);
		buf_puts(out, "| ");
		md_text(out, line.data);
		buf_puts(out, " | ");
		line.len = 0;
		fmt_value(&line, v, e->m->unit);
		md_text(out, line.data);
		buf_puts(out, " | ");
		fmt_num(out, lo);
		buf_puts(out, " .. ");
		fmt_num(out, hi);
		buf_printf(out, ", %zu | %s |\n", h, bad ? "OUTSIDE its history" : "within");
	}
	buf_printf(out, "\n%zu value%s outside %s history.\n", flagged, flagged == 1 ? "" : "s",
	           flagged == 1 ? "its" : "their");
	res->checked = true;
	res->flagged = flagged;
done:
	values_free(&now);
	for (k = 0; k < n; k++)
		values_free(&hist[k]);
	free(hist);
	buf_free(&line);
	arena_free(&a);
}
