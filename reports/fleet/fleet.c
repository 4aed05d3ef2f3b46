/* fleet/fleet.c: the fleet verdict (DESIGN 15, fleet.h): every value compared
 * with its peers (median and median absolute deviation per test, metric
 * and GPU model), the outliers made suspect, and per node: drain (an
 * outlier, a value outside its reference, a single-node run that failed
 * where its peers passed), inconclusive (nothing on it passed, or a run on
 * it ended without an answer) or healthy. Sorting, no hashing: every list
 * comes out in the same order from the same results. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fleet/fleet.h"
#include "reports/fleet/priv.h"
#include "reports/results/results.h"
#include "gen/base/util.h"

enum { MAX_WHY = 8 };

static bool
listed(const char *const *l, const char *name)
{
	for (; l && *l; l++)
		if (!strcmp(*l, name))
			return true;
	return false;
}

/* A value being compared, before the groups exist. */
struct sample {
	const char *key, *loc; /* group key; where (node, or node#gpu) */
	size_t run, column;
	const struct metric *m;
	enum fleet_dir dir;
};

static int
cmp_sample(const void *x, const void *y)
{
	const struct sample *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	if (!c)
		c = strcmp(a->loc, b->loc);
	return c ? c : a->run < b->run ? -1 : a->run > b->run;
}

/* Did this run measure something worth comparing? */
static bool
measured(const struct run_report *r)
{
	return r->outcome == OUTCOME_PASSED || r->outcome == OUTCOME_PERF_FAILED || r->outcome == OUTCOME_SUSPECT;
}

static size_t
collect(struct arena *a, const struct plan *p, const struct summary *s, const size_t *col, struct sample **out)
{
	size_t cap = 0, n = 0, i, k;
	struct sample *v = NULL;
	struct buf key = {0};

	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		const struct plan_peers *pp;
		if (col[i] == SIZE_MAX || !measured(r))
			continue;
		pp = &p->tests[p->runs[i].test].peers;
		if (!pp->enabled)
			continue;
		for (k = 0; k < r->n_metrics; k++) {
			const struct metric *m = &r->metrics[k];
			enum fleet_dir d;
			if (m->x >= 0 || (pp->metrics && !listed(pp->metrics, m->name)))
				continue;
			d = listed(pp->higher, m->name) ? FLEET_DIR_HIGHER
			    : listed(pp->lower, m->name) ? FLEET_DIR_LOWER
			                                 : fleet_direction(m->name, m->unit);
			if (d == FLEET_DIR_NONE)
				continue;
			v = xreserve(v, n + 1, &cap, sizeof(*v));
			key.len = 0;
			buf_printf(&key, "%zu\x1f%s\x1f%s\x1f%s\x1f%c", col[i], m->name, m->unit ? m->unit : "",
			           m->gpu_model ? m->gpu_model : "", m->gpu >= 0 ? 'g' : 'n');
			v[n].key = arena_strdup(a, key.data);
			if (m->gpu >= 0)
				v[n].loc = arena_printf(a, "%s#%d", m->node ? m->node : r->nodes ? r->nodes : "", m->gpu);
			else
				v[n].loc = m->node ? m->node : r->nodes ? r->nodes : "";
			v[n].run = i;
			v[n].column = col[i];
			v[n].m = m;
			v[n].dir = d;
			n++;
		}
	}
	buf_free(&key);
	*out = v;
	return n;
}

/* The groups of the sorted samples, their statistics, and the outliers. */
static void
compare(struct arena *a, const struct plan *p, const struct summary *s, const struct sample *v, size_t n,
        struct fleet *f)
{
	double *vals = xmalloc((n + 1) * sizeof(*vals)), *scr = xmalloc((n + 1) * sizeof(*scr));
	size_t i = 0, j, k, cap = 0;
	bool *noted = arena_alloc(a, (f->n_columns + 1) * sizeof(*noted));

	f->values = arena_alloc(a, (n + 1) * sizeof(*f->values));
	f->notes = arena_alloc(a, (f->n_columns + 1) * sizeof(*f->notes));
	while (i < n) {
		const struct plan_peers *pp = &p->tests[p->runs[v[i].run].test].peers;
		struct fleet_group *g;
		double med;
		for (j = i; j < n && !strcmp(v[j].key, v[i].key); j++)
			;
		f->groups = arena_reserve(a, f->groups, f->n_groups, f->n_groups + 1, &cap, sizeof(*f->groups));
		g = &f->groups[f->n_groups];
		g->test = f->columns[v[i].column];
		g->column = v[i].column;
		g->metric = v[i].m->name;
		g->unit = v[i].m->unit;
		g->gpu_model = v[i].m->gpu_model;
		g->per_gpu = v[i].m->gpu >= 0;
		g->dir = v[i].dir;
		g->min_peers = pp->min_peers;
		g->n_values = j - i;
		for (k = i; k < j; k++) {
			vals[k - i] = v[k].m->value;
			g->n_peers += k == i || strcmp(v[k].loc, v[k - 1].loc) != 0;
		}
		g->median = med = fleet_median(vals, j - i);
		for (k = i; k < j; k++)
			vals[k - i] = v[k].m->value;
		/* throughputs and times spread by ratios (a node shared, throttled,
		 * ten times slow): their spread is measured as ratios, else as
		 * differences */
		g->ratio = fleet_log_mad(vals, j - i, med, scr, &g->mad);
		if (!g->ratio)
			g->mad = fleet_mad(vals, j - i, med, scr);
		g->compared = g->n_peers >= (size_t)pp->min_peers;
		if (!g->compared && !noted[g->column]) {
			noted[g->column] = true;
			f->notes[f->n_notes++] = arena_printf(a, "%s: not enough peers to compare (%zu %s; %d needed)",
			                                      g->test, g->n_peers,
			                                      g->per_gpu ? (g->n_peers == 1 ? "GPU" : "GPUs")
			                                      : strchr(v[i].loc, ',') ? (g->n_peers == 1 ? "run" : "runs")
			                                      : g->n_peers == 1 ? "node" : "nodes",
			                                      g->min_peers);
		}
		for (k = i; k < j; k++) {
			struct fleet_value *fv = &f->values[f->n_values++];
			const struct run_report *r = &s->runs[v[k].run];
			fv->run = v[k].run;
			fv->group = f->n_groups;
			fv->m = v[k].m;
			fv->node = v[k].m->node ? v[k].m->node : r->nodes;
			fv->flagged = g->compared &&
			              fleet_outlier(v[k].m->value, med, g->mad, g->ratio, g->dir, pp->tolerance, pp->mad_k,
			                            &fv->gap);
			if (!g->compared)
				fleet_outlier(v[k].m->value, med, g->mad, g->ratio, g->dir, 0, 0, &fv->gap);
			fv->ratio = 1 - fv->gap;
			if (fv->flagged)
				f->flagged_run[v[k].run] = true;
		}
		f->n_groups++;
		i = j;
	}
	free(vals);
	free(scr);
}

/* "max_busbw on gpu-node-05: 289.9 GB/s is 40% below the median of 8
 * nodes (483.1 GB/s)" */
static const char *
outlier_text(struct arena *a, const struct fleet *f, const struct fleet_value *v)
{
	const struct fleet_group *g = &f->groups[v->group];
	const char *u = g->unit && *g->unit ? g->unit : "";
	struct buf b = {0};
	const char *r;

	buf_printf(&b, "%s on %s", g->metric, v->node ? v->node : "(unknown node)");
	if (g->per_gpu)
		buf_printf(&b, " GPU %d", v->m->gpu);
	buf_printf(&b, ": %.4g%s%s is %.0f%% %s the median of %zu %s (%.4g%s%s)", v->m->value, *u ? " " : "", u,
	           100 * v->gap, g->dir == FLEET_DIR_HIGHER ? "below" : "above", g->n_peers,
	           g->per_gpu ? "GPUs" : "nodes", g->median, *u ? " " : "", u);
	r = arena_strdup(a, b.data);
	buf_free(&b);
	return r;
}

/* Is a further from its peers than b? Equal percentages: the value its
 * grader reported first (max_busbw before avg_busbw). */
static bool
worse(const struct fleet_value *a, const struct fleet_value *b)
{
	long pa = lround(1000 * a->gap), pb = lround(1000 * b->gap);

	return pa != pb ? pa > pb : a->m < b->m;
}

/* Passed runs holding an outlier become suspect, the worst one the reason. */
static void
mark_suspects(struct arena *a, struct summary *s, const struct fleet *f)
{
	const struct fleet_value **worst = xcalloc(s->n_runs + 1, sizeof(*worst));
	size_t *count = xcalloc(s->n_runs + 1, sizeof(*count)), i;

	for (i = 0; i < f->n_values; i++) {
		const struct fleet_value *v = &f->values[i];
		if (!v->flagged)
			continue;
		count[v->run]++;
		if (!worst[v->run] || worse(v, worst[v->run]))
			worst[v->run] = v;
	}
	for (i = 0; i < s->n_runs; i++) {
		struct run_report *r = &s->runs[i];
		if (!worst[i] || (r->outcome != OUTCOME_PASSED && r->outcome != OUTCOME_SUSPECT))
			continue;
		r->outcome = OUTCOME_SUSPECT;
		r->reason = outlier_text(a, f, worst[i]);
		if (count[i] > 1)
			r->reason = arena_printf(a, "%s; %zu values far from their peers in all", r->reason, count[i]);
	}
	free(worst);
	free(count);
}

/* ---- nodes ------------------------------------------------------------------ */

struct nodes {
	struct arena *a;
	struct fleet_node *v;
	size_t n;
	bool *passed; /* a run on it passed (or only its peers found it suspect) */
	const char ***inc;  /* inconclusive reasons, before the state is known */
	size_t *n_inc;
};

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Calls fn for each name of a comma-separated list. */
static void
each_node(struct nodes *ns, const char *list, void (*fn)(struct nodes *, size_t, void *), void *ctx)
{
	const char *p = list, *e;
	char tmp[256];

	while (p && *p) {
		size_t lo = 0, hi = ns->n, n;
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && n < sizeof(tmp)) {
			memcpy(tmp, p, n);
			tmp[n] = '\0';
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				int c = strcmp(ns->v[mid].name, tmp);
				if (c < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < ns->n && !strcmp(ns->v[lo].name, tmp))
				fn(ns, lo, ctx);
		}
		p = e ? e + 1 : NULL;
	}
}

static void
add_why(struct arena *a, const char ***l, size_t *n, const char *why)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*l)[i], why))
			return;
	if (*n == MAX_WHY)
		return;
	if (!*l)
		*l = arena_alloc(a, MAX_WHY * sizeof(**l));
	(*l)[(*n)++] = why;
}

static void
on_drain(struct nodes *ns, size_t i, void *why)
{
	add_why(ns->a, &ns->v[i].why, &ns->v[i].n_why, why);
}

static void
on_inconclusive(struct nodes *ns, size_t i, void *why)
{
	add_why(ns->a, &ns->inc[i], &ns->n_inc[i], why);
}

static void
on_passed(struct nodes *ns, size_t i, void *unused)
{
	(void)unused;
	ns->passed[i] = true;
}

struct worst_ctx {
	double ratio;
};

static void
on_ratio(struct nodes *ns, size_t i, void *ctx)
{
	double r = ((struct worst_ctx *)ctx)->ratio;

	if (r < ns->v[i].worst)
		ns->v[i].worst = r;
}

/* Every node a run or a value names, sorted, once. */
static void
node_list(struct nodes *ns, const struct summary *s)
{
	size_t cap = 0, n = 0, i, k;
	const char **v = NULL;

	for (i = 0; i < s->n_runs; i++) {
		const char *p = s->runs[i].nodes, *e;
		while (p && *p) {
			e = strchr(p, ',');
			v = xreserve(v, n + 1, &cap, sizeof(*v));
			v[n++] = e ? arena_strndup(ns->a, p, (size_t)(e - p)) : p;
			p = e ? e + 1 : NULL;
		}
		for (k = 0; k < s->runs[i].n_metrics; k++) {
			const struct metric *m = &s->runs[i].metrics[k];
			if (m->x >= 0 || !m->node || strchr(m->node, ',') || strstr(m->node, "<->"))
				continue;
			v = xreserve(v, n + 1, &cap, sizeof(*v));
			v[n++] = m->node;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	/* room for the distinct ones only: a node names many runs and values */
	for (i = 0, k = 0; i < n; i++)
		k += *v[i] && (i == 0 || strcmp(v[i], v[i - 1]) != 0);
	ns->v = arena_alloc(ns->a, (k + 1) * sizeof(*ns->v));
	for (i = 0; i < n; i++)
		if (*v[i] && (i == 0 || strcmp(v[i], v[i - 1]) != 0)) {
			ns->v[ns->n].name = v[i];
			ns->v[ns->n].worst = 1;
			ns->n++;
		}
	free(v);
	ns->passed = arena_alloc(ns->a, (ns->n + 1) * sizeof(*ns->passed));
	ns->inc = arena_alloc(ns->a, (ns->n + 1) * sizeof(*ns->inc));
	ns->n_inc = arena_alloc(ns->a, (ns->n + 1) * sizeof(*ns->n_inc));
}

/* The test's name for a drain reason. */
static const char *
test_label(const struct fleet *f, const size_t *col, size_t run, const struct run_report *r)
{
	return col[run] != SIZE_MAX ? f->columns[col[run]] : r->id;
}

static int
cmp_node(const void *x, const void *y)
{
	const struct fleet_node *a = x, *b = y;

	if (a->state != b->state)
		return a->state > b->state ? -1 : 1;
	if (a->worst != b->worst)
		return a->worst < b->worst ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "what NN% below peers" for a drain reason */
static const char *
short_gap(struct arena *a, const char *test, const struct metric *m, double gap, bool higher, const char *whom)
{
	if (m->gpu >= 0)
		return arena_printf(a, "%s %s GPU %d %.0f%% %s %s", test, m->name, m->gpu, 100 * gap,
		                    higher ? "below" : "above", whom);
	return arena_printf(a, "%s %s %.0f%% %s %s", test, m->name, 100 * gap, higher ? "below" : "above", whom);
}

/* How sure a drain on peers is: "..., reproduced 2 of 2 (68% below n1
 * side by side)" when it was measured again */
static const char *
again_text(struct arena *a, const struct fleet_value *v, const char *why)
{
	switch (v->again) {
	case FLEET_AGAIN_REPRODUCED:
		return arena_printf(a, "%s, reproduced 2 of 2: %.0f%% worse than %s side by side", why, 100 * v->again_gap,
		                    v->again_peer);
	case FLEET_AGAIN_FAILED:
		return arena_printf(a, "%s, reproduced 2 of 2: failed again where %s passed", why, v->again_peer);
	case FLEET_AGAIN_UNKNOWN:
		return arena_printf(a, "%s, measured again beside %s without an answer", why, v->again_peer);
	default:
		return why;
	}
}

/* A single-node run's outcome for its node: drain reasons for values
 * outside their references and failures where the peers passed,
 * inconclusive ones for runs that ended without an answer. */
/* A node where a test's single-node run ended well (passed, or measured
 * and judged on its numbers). */
struct ok_at {
	size_t col;
	const char *node;
};

static int
cmp_ok_at(const void *x, const void *y)
{
	const struct ok_at *a = x, *b = y;

	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return strcmp(a->node, b->node);
}

/* The distinct nodes per column where its single-node runs ended well;
 * *out: the pairs, sorted, once each. */
static size_t *
peers_ok(struct arena *a, const struct summary *s, const size_t *col, size_t n_cols, struct ok_at **out, size_t *n)
{
	size_t *per = arena_alloc(a, (n_cols + 1) * sizeof(*per)), i, k = 0;
	struct ok_at *v = arena_alloc(a, (s->n_runs + 1) * sizeof(*v));

	for (i = 0; i < s->n_runs; i++)
		if (col[i] != SIZE_MAX && fleet_count_nodes(s->runs[i].nodes) == 1 &&
		    (s->runs[i].outcome == OUTCOME_PASSED || s->runs[i].outcome == OUTCOME_SUSPECT ||
		     s->runs[i].outcome == OUTCOME_PERF_FAILED))
			v[k].col = col[i], v[k++].node = s->runs[i].nodes;
	qsort(v, k, sizeof(*v), cmp_ok_at);
	for (i = 0, *n = 0; i < k; i++)
		if (!*n || cmp_ok_at(&v[i], &v[*n - 1]) != 0) {
			v[(*n)++] = v[i];
			per[v[i].col]++;
		}
	*out = v;
	return per;
}

struct judge {
	const size_t *col, *col_ok; /* runs' columns; distinct nodes where each column ended well */
	const struct ok_at *ok;
	size_t n_ok;
};

static void
judge_run(struct nodes *ns, const struct plan *p, const struct summary *s, const struct fleet *f,
          const struct judge *j, size_t i)
{
	const size_t *col = j->col;
	const struct run_report *r = &s->runs[i];
	const char *label = test_label(f, col, i, r);
	size_t k, nn = fleet_count_nodes(r->nodes), located = 0, peers = 0;
	int need = col[i] != SIZE_MAX ? p->tests[p->runs[i].test].peers.min_peers : 4;

	if (r->outcome == OUTCOME_PASSED || r->outcome == OUTCOME_SUSPECT || r->ran_skipped)
		each_node(ns, r->nodes, on_passed, NULL);
	for (k = 0; k < r->n_metrics; k++) {
		const struct metric *m = &r->metrics[k];
		const char *node = m->node ? m->node : nn == 1 ? r->nodes : NULL;
		double dev;
		if ((m->check != CHECK_LOW && m->check != CHECK_HIGH) || !m->ref || m->x >= 0 || !node)
			continue;
		dev = m->ref->value != 0 ? fabs(m->value - m->ref->value) / fabs(m->ref->value) : 0;
		each_node(ns, node, on_drain, (void *)short_gap(ns->a, label, m, dev, m->check == CHECK_LOW, "reference"));
		located++;
	}
	if (nn != 1)
		return;
	if (r->outcome == OUTCOME_FAILED && col[i] != SIZE_MAX) {
		/* the other nodes where the same test ended well */
		struct ok_at key = {col[i], r->nodes};
		peers = j->col_ok[col[i]] - (bsearch(&key, j->ok, j->n_ok, sizeof(key), cmp_ok_at) != NULL);
	}
	if (r->outcome == OUTCOME_PERF_FAILED && !located)
		each_node(ns, r->nodes, on_drain, arena_printf(ns->a, "%s perf-failed: %s", r->id, r->reason ? r->reason : ""));
	else if (r->outcome == OUTCOME_FAILED && peers + 1 >= (size_t)need)
		each_node(ns, r->nodes, on_drain, arena_printf(ns->a, "%s failed where %zu peers passed", r->id, peers));
	else if (r->outcome == OUTCOME_FAILED || r->outcome == OUTCOME_TIMEOUT || r->outcome == OUTCOME_CANCELLED ||
	         r->outcome == OUTCOME_NODE_FAIL || r->outcome == OUTCOME_INFRA)
		each_node(ns, r->nodes, on_inconclusive, arena_printf(ns->a, "%s %s", r->id, outcome_name(r->outcome)));
}

struct implicated {
	struct buf *b;
	size_t n;
};

static void
on_implicated(struct nodes *ns, size_t i, void *ctx)
{
	struct implicated *im = ctx;

	if (ns->v[i].state != FLEET_DRAIN)
		return;
	buf_printf(im->b, "%s%s", im->n ? ", " : "", ns->v[i].name);
	im->n++;
}

/* "all (8 nodes) perf-failed: ...; it included gpu-node-05, which is
 * suspect" for each multi-node run that failed or fell short. */
static void
tie_multi(struct nodes *ns, const struct summary *s, struct fleet *f)
{
	struct buf b = {0}, names = {0};
	size_t i, cap = 0;

	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		struct implicated im = {&names, 0};
		size_t nn = fleet_count_nodes(r->nodes);
		if (nn < 2 || (r->outcome != OUTCOME_FAILED && r->outcome != OUTCOME_PERF_FAILED &&
		               r->outcome != OUTCOME_SUSPECT))
			continue;
		names.len = 0;
		each_node(ns, r->nodes, on_implicated, &im);
		b.len = 0;
		buf_printf(&b, "%s iteration %d (%zu nodes) %s: %s; ", r->id, r->iteration, nn, outcome_name(r->outcome),
		           r->reason ? r->reason : "");
		if (im.n)
			buf_printf(&b, "it included %s, which %s drained", names.data, im.n == 1 ? "is" : "are");
		else
			buf_puts(&b, "no node of it is implicated by the other runs");
		f->multi = arena_reserve(ns->a, f->multi, f->n_multi, f->n_multi + 1, &cap, sizeof(*f->multi));
		f->multi[f->n_multi++] = arena_strdup(ns->a, b.data);
	}
	buf_free(&b);
	buf_free(&names);
}

static int
cmp_flagged(const void *x, const void *y)
{
	const struct fleet_value *a = *(const struct fleet_value *const *)x, *b = *(const struct fleet_value *const *)y;
	int c;

	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	if ((c = strcmp(a->node, b->node)))
		return c;
	if (a->m->gpu != b->m->gpu)
		return a->m->gpu < b->m->gpu ? -1 : 1;
	return a->m < b->m ? -1 : a->m > b->m;
}

static void
verdict(struct arena *a, const struct plan *p, const struct summary *s, const size_t *col, struct fleet *f)
{
	struct nodes ns = {a, NULL, 0, NULL, NULL, NULL};
	const struct fleet_value **flagged = xcalloc(f->n_values + 1, sizeof(*flagged));
	struct judge j = {col, NULL, NULL, 0};
	struct ok_at *ok;
	size_t i, k;

	node_list(&ns, s);
	j.col_ok = peers_ok(a, s, col, f->n_columns, &ok, &j.n_ok);
	j.ok = ok;
	for (i = 0, k = 0; i < f->n_values; i++) {
		const struct fleet_value *v = &f->values[i];
		struct worst_ctx w = {v->ratio};
		if (!v->node || strchr(v->node, ','))
			continue;
		each_node(&ns, v->node, on_ratio, &w);
		if (v->flagged)
			flagged[k++] = v;
	}
	/* one reason per run, node and GPU: its first value's; a node's
	 * whole-run value (GEMM's minimum) says less than the GPU's own */
	qsort(flagged, k, sizeof(*flagged), cmp_flagged);
	for (i = 0; i < k; i++) {
		const struct fleet_value *v = flagged[i];
		const struct fleet_group *g = &f->groups[v->group];
		size_t n;
		if (i && flagged[i - 1]->run == v->run && !strcmp(flagged[i - 1]->node, v->node) &&
		    flagged[i - 1]->m->gpu == v->m->gpu)
			continue;
		for (n = i + 1; v->m->gpu < 0 && n < k && flagged[n]->run == v->run && !strcmp(flagged[n]->node, v->node) &&
		                flagged[n]->m->gpu < 0;
		     n++)
			;
		if (v->m->gpu < 0 && n < k && flagged[n]->run == v->run && !strcmp(flagged[n]->node, v->node))
			continue;
		each_node(&ns, v->node, on_drain, (void *)again_text(a, v, short_gap(a, g->test, v->m, v->gap,
		                                                                      g->dir == FLEET_DIR_HIGHER, "peers")));
	}
	free(flagged);
	for (i = 0; i < s->n_runs; i++)
		judge_run(&ns, p, s, f, &j, i);
	for (i = 0; i < ns.n; i++) {
		struct fleet_node *n = &ns.v[i];
		if (n->n_why)
			n->state = FLEET_DRAIN;
		else if (ns.n_inc[i] || !ns.passed[i]) {
			n->state = FLEET_INCONCLUSIVE;
			n->why = ns.inc[i];
			n->n_why = ns.n_inc[i];
			if (!n->n_why)
				add_why(a, &n->why, &n->n_why, "no run on it passed");
		}
	}
	tie_multi(&ns, s, f);
	qsort(ns.v, ns.n, sizeof(*ns.v), cmp_node);
	f->nodes = ns.v;
	f->n_nodes = ns.n;
	for (i = 0; i < ns.n; i++) {
		f->n_drain += ns.v[i].state == FLEET_DRAIN;
		f->n_inconclusive += ns.v[i].state == FLEET_INCONCLUSIVE;
		f->n_healthy += ns.v[i].state == FLEET_HEALTHY;
	}
}

void
fleet_grade(struct arena *a, const struct plan *p, struct summary *s, struct fleet *f)
{
	struct sample *v;
	size_t *col, n, i;

	memset(f, 0, sizeof(*f));
	f->flagged_run = arena_alloc(a, (s->n_runs + 1) * sizeof(*f->flagged_run));
	col = fleet_columns(a, p, s, f);
	n = collect(a, p, s, col, &v);
	if (n)
		qsort(v, n, sizeof(*v), cmp_sample);
	compare(a, p, s, v, n, f);
	free(v);
	fleet_again_apply(a, p, s, f);
	mark_suspects(a, s, f);
	verdict(a, p, s, col, f);
	memset(s->counts, 0, sizeof(s->counts));
	for (i = 0; i < s->n_runs; i++)
		s->counts[s->runs[i].outcome]++;
	s->fleet = f;
	s->n_drain = f->n_drain;
}

bool
fleet_run_flagged(const struct fleet *f, size_t run)
{
	return f && f->flagged_run && f->flagged_run[run];
}
