/* fleet/stats.c: the statistics of the peer comparison (fleet.h): median,
 * median absolute deviation, the outlier test, which way is better for a
 * metric, and which runs are peers (a test's signature). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fleet/fleet.h"
#include "reports/fleet/priv.h"
#include "reports/results/results.h"
#include "gen/base/hostlist.h"
#include "gen/base/util.h"

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double
fleet_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
fleet_mad(const double *v, size_t n, double med, double *scratch)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - med);
	return fleet_median(scratch, n);
}

bool
fleet_log_mad(const double *v, size_t n, double med, double *scratch, double *mad)
{
	size_t i;

	if (!(med > 0))
		return false;
	for (i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i]))
			return false;
		scratch[i] = fabs(log(v[i] / med));
	}
	*mad = fleet_median(scratch, n);
	return true;
}

bool
fleet_outlier(double v, double med, double mad, bool ratio, enum fleet_dir dir, double tolerance, double mad_k,
              double *gap)
{
	double worse = dir == FLEET_DIR_HIGHER ? med - v : dir == FLEET_DIR_LOWER ? v - med : 0, far = worse;

	*gap = med != 0 ? worse / fabs(med) : 0;
	/* on the ratio scale a value 10 times worse is log(10) away, however
	 * far the peers spread: a difference of values stops at the median */
	if (ratio && v > 0 && med > 0)
		far = dir == FLEET_DIR_HIGHER ? log(med / v) : dir == FLEET_DIR_LOWER ? log(v / med) : 0;
	/* a median of 0 has no "percent below": such a value is never one */
	return dir != FLEET_DIR_NONE && med != 0 && *gap > tolerance && far > mad_k * mad;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

enum fleet_dir
fleet_direction(const char *name, const char *unit)
{
	static const char *const lower[] = {"ns", "us", "ms", "s", "C"};
	size_t i;

	if (unit && *unit) {
		if (ends_with(unit, "/s") || !strcmp(unit, "IOPS") || !strcmp(unit, "lanes"))
			return FLEET_DIR_HIGHER;
		for (i = 0; i < LEN(lower); i++)
			if (!strcmp(unit, lower[i]))
				return FLEET_DIR_LOWER;
		return FLEET_DIR_NONE;
	}
	if (strstr(name, "latency") || ends_with(name, "time"))
		return FLEET_DIR_LOWER;
	if (strstr(name, "busbw") || strstr(name, "throughput") || strstr(name, "flops"))
		return FLEET_DIR_HIGHER;
	return FLEET_DIR_NONE;
}

size_t
fleet_count_nodes(const char *nodes)
{
	return hostlist_count(nodes);
}

/* The test as peers see it: definition, arguments, number of nodes. */
static const char *
signature(struct arena *a, struct strtab *sigs, const struct plan *p, size_t i, const struct run_report *r,
          struct buf *b)
{
	const struct plan_run *pr = &p->runs[i];
	const struct plan_test *t = &p->tests[pr->test];
	size_t k;

	b->len = 0;
	buf_printf(b, "%s\x1f%s", t->name ? t->name : t->id, t->workload ? t->workload : "");
	for (k = 0; k < pr->n_args; k++)
		buf_printf(b, "\x1e%s=%s", pr->args[k].key, pr->args[k].value);
	buf_printf(b, "\x1f%zu", fleet_count_nodes(r->nodes));
	/* the runs of a test share theirs: held once */
	return strtab_intern(a, sigs, b->data);
}

struct col {
	const char *sig;
	size_t first, index;
};

static int
cmp_col(const void *x, const void *y)
{
	const struct col *a = x, *b = y;
	int c = strcmp(a->sig, b->sig);

	return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

static int
cmp_col_first(const void *x, const void *y)
{
	const struct col *a = x, *b = y;

	return a->first < b->first ? -1 : a->first > b->first;
}

/* Every run's column (its signature's index, by first appearance);
 * SIZE_MAX for runs of no known test. Sets f->columns. */
size_t *
fleet_columns(struct arena *a, const struct plan *p, const struct summary *s, struct fleet *f)
{
	struct col *c = xcalloc(s->n_runs + 1, sizeof(*c));
	size_t *col = arena_alloc(a, (s->n_runs + 1) * sizeof(*col)), i, n = 0, k;
	struct strtab sigs = {0};
	struct buf b = {0};

	for (i = 0; i < s->n_runs; i++) {
		col[i] = SIZE_MAX;
		/* a run that never started has no nodes and no values */
		if (i >= p->n_runs || strcmp(p->runs[i].dir, s->runs[i].dir) != 0 || !s->runs[i].nodes)
			continue;
		c[n].sig = signature(a, &sigs, p, i, &s->runs[i], &b);
		c[n].first = i;
		n++;
	}
	qsort(c, n, sizeof(*c), cmp_col);
	/* each distinct signature once, at its first run */
	for (i = 0, k = 0; i < n; i++)
		if (i == 0 || strcmp(c[i].sig, c[i - 1].sig) != 0)
			c[k++] = c[i];
		else
			col[c[i].first] = c[k - 1].first; /* for now: the first run's index */
	qsort(c, k, sizeof(*c), cmp_col_first);
	f->columns = arena_alloc(a, (k + 1) * sizeof(*f->columns));
	for (i = 0; i < k; i++) {
		const struct plan_test *t = &p->tests[p->runs[c[i].first].test];
		size_t nn = fleet_count_nodes(s->runs[c[i].first].nodes), j;
		const char *name = t->name ? t->name : t->id;
		f->columns[i] = nn > 1 ? arena_printf(a, "%s (%zu nodes)", name, nn) : name;
		/* the same test with other arguments: named by its test id too */
		for (j = 0; j < i && strcmp(f->columns[j], f->columns[i]) != 0; j++)
			;
		if (j < i)
			f->columns[i] = arena_printf(a, "%s [%s]", f->columns[i], t->id);
		col[c[i].first] = c[i].first;
		c[i].index = i;
	}
	f->n_columns = k;
	/* first-run indices to column numbers: c is sorted by first */
	for (i = 0; i < s->n_runs; i++) {
		size_t lo = 0, hi = k;
		if (col[i] == SIZE_MAX)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (c[mid].first < col[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		col[i] = c[lo].index;
	}
	free(c);
	buf_free(&b);
	strtab_free(&sigs);
	return col;
}

static const struct metric *
find_value(const struct metric *v, size_t n, const struct metric *m)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].gpu == m->gpu && !strcmp(v[i].name, m->name))
			return &v[i];
	return NULL;
}

/* Did a run measured again end with values to judge? */
static bool
answered(const char *outcome)
{
	return outcome && (!strcmp(outcome, "passed") || !strcmp(outcome, "suspect") || !strcmp(outcome, "perf-failed"));
}

void
fleet_again_apply(struct arena *a, const struct plan *p, const struct summary *s, struct fleet *f)
{
	struct fleet_again_record *rec = xcalloc(s->n_runs + 1, sizeof(*rec));
	signed char *have = xcalloc(s->n_runs + 1, 1);
	size_t i;

	for (i = 0; s->root && i < f->n_values; i++) {
		struct fleet_value *v = &f->values[i];
		const struct run_report *r = &s->runs[v->run];
		const struct fleet_group *g = &f->groups[v->group];
		const struct fleet_again_record *e = &rec[v->run];
		const struct metric *self, *peer;
		double tol = p->tests[p->runs[v->run].test].peers.tolerance;
		if (!v->flagged || !r->job_id || hostlist_count(r->nodes) != 1)
			continue;
		if (!have[v->run])
			have[v->run] = fleet_again_load(a, s->root, r->dir, &rec[v->run]) ? 1 : -1;
		/* measured again for an earlier job of this run: not for this one */
		if (have[v->run] < 0 || !e->job_id || strcmp(e->job_id, r->job_id) != 0)
			continue;
		v->again_peer = e->peer;
		if (!answered(e->outcome)) {
			v->again = answered(e->peer_outcome) ? FLEET_AGAIN_FAILED : FLEET_AGAIN_UNKNOWN;
			continue;
		}
		self = find_value(e->values, e->n_values, v->m);
		peer = find_value(e->peer_values, e->n_peer_values, v->m);
		if (!self || !peer || !answered(e->peer_outcome)) {
			v->again = FLEET_AGAIN_UNKNOWN;
			continue;
		}
		/* side by side, the peer is the median of two */
		if (fleet_outlier(self->value, peer->value, 0, false, g->dir, tol, 0, &v->again_gap)) {
			v->again = FLEET_AGAIN_REPRODUCED;
			continue;
		}
		v->again = FLEET_AGAIN_CLEARED;
		v->flagged = false;
		f->notes = arena_grow(a, (void *)f->notes, f->n_notes, f->n_notes + 1, sizeof(*f->notes));
		f->notes[f->n_notes++] = arena_printf(
		    a, "%s: %s %s %.0f%% %s peers, then %.0f%% %s %s measured again side by side: not reproduced, not drained",
		    v->node ? v->node : r->nodes, g->test, g->metric, 100 * v->gap, g->dir == FLEET_DIR_HIGHER ? "below" : "above",
		    100 * fabs(v->again_gap), (v->again_gap >= 0) == (g->dir == FLEET_DIR_HIGHER) ? "below" : "above", e->peer);
	}
	/* a run stays flagged only by a value that still is */
	for (i = 0; i < s->n_runs; i++)
		f->flagged_run[i] = false;
	for (i = 0; i < f->n_values; i++)
		if (f->values[i].flagged)
			f->flagged_run[f->values[i].run] = true;
	free(rec);
	free(have);
}
