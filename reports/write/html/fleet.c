/* write/html/fleet.c: the top of report/index.html (DESIGN 15): the verdict and
 * drain list, the multi-node runs tied to their nodes, a nodes x tests
 * matrix (each test's key value as a percentage of its peers' median,
 * colour-graded, worst row first, linking to the run pages) and a GPUs x
 * metrics view of the per-GPU values, worst first. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reports/results/campaign.h"
#include "reports/fleet/fleet.h"
#include "reports/write/html/html.h"
#include "reports/results/results.h"
#include "reports/results/format.h"
#include "gen/base/util.h"

enum { GPU_ROWS = 64 };

const char html_fleet_style[] =
	".verdict{font-size:1.15em;padding:.4em .6em;border:1px solid #ccc}\n"
	".verdict.drain{background:#fbe3e3}.verdict.ok{background:#e6f4e6}\n"
	"td.g0{background:#d8f0d8}td.g1{background:#fff4cc}td.g2{background:#fde0c0}td.g3{background:#f4b8b8}\n"
	"td.flag{font-weight:bold;outline:2px solid #b00000}\n"
	"td.drain{color:#b00000;font-weight:bold}td.inconclusive{color:#8a6d00}\n";

static void
esc(struct buf *out, const char *s)
{
	if (s)
		xml_escape(out, s, strlen(s), false);
}

/* Colour grade of a ratio to the median (1: as good as the median). */
static int
grade(double r)
{
	return r >= 0.97 ? 0 : r >= 0.90 ? 1 : r >= 0.80 ? 2 : 3;
}

struct cell {
	const struct fleet_value *v; /* the worst value of the node in the column; NULL: none */
	bool flagged;
};

struct name_ix {
	const char *name;
	size_t i;
};

static int
cmp_ix(const void *x, const void *y)
{
	return strcmp(((const struct name_ix *)x)->name, ((const struct name_ix *)y)->name);
}

static size_t
find_node(const struct name_ix *ix, size_t n, const char *name)
{
	struct name_ix key = {name, 0};
	const struct name_ix *r = name ? bsearch(&key, ix, n, sizeof(*ix), cmp_ix) : NULL;

	return r ? r->i : SIZE_MAX;
}

static void
value_cell(struct buf *out, const struct fleet *f, const struct cell *c, const char *const *stems)
{
	const struct fleet_group *g;

	if (!c->v) {
		buf_puts(out, "<td></td>");
		return;
	}
	g = &f->groups[c->v->group];
	buf_printf(out, "<td class=\"num g%d%s\" title=\"", grade(c->v->ratio), c->flagged ? " flag" : "");
	esc(out, g->metric);
	if (g->per_gpu)
		buf_printf(out, " GPU %d", c->v->m->gpu);
	buf_printf(out, ": %.4g", c->v->m->value);
	if (g->unit && *g->unit) {
		buf_putc(out, ' ');
		esc(out, g->unit);
	}
	buf_printf(out, "; median of %zu: %.4g\"><a href=\"runs/%s.html\">%.0f%%</a></td>", g->n_peers, g->median,
	           stems[c->v->run], 100 * c->v->ratio);
}

/* Per column, the group whose values stand for the test: the one of the
 * value a grader reported first (max_busbw before avg_busbw). */
static size_t *
key_groups(const struct fleet *f, const struct summary *s)
{
	size_t *key = xcalloc(f->n_columns + 1, sizeof(*key)), *rank = xcalloc(f->n_columns + 1, sizeof(*rank)), i;

	for (i = 0; i < f->n_columns; i++)
		key[i] = SIZE_MAX, rank[i] = SIZE_MAX;
	for (i = 0; i < f->n_values; i++) {
		const struct fleet_value *v = &f->values[i];
		size_t c = f->groups[v->group].column, r = (size_t)(v->m - s->runs[v->run].metrics);
		if (!f->groups[v->group].compared || r >= rank[c])
			continue;
		rank[c] = r;
		key[c] = v->group;
	}
	free(rank);
	return key;
}

static void
matrix(struct buf *out, const struct fleet *f, const struct summary *s, const char *const *stems)
{
	struct name_ix *ix = xcalloc(f->n_nodes + 1, sizeof(*ix));
	struct cell *cells = xcalloc(f->n_nodes * f->n_columns + 1, sizeof(*cells));
	size_t *key = key_groups(f, s), i, c, n;
	bool *used = xcalloc(f->n_columns + 1, sizeof(*used));

	for (i = 0; i < f->n_nodes; i++)
		ix[i].name = f->nodes[i].name, ix[i].i = i;
	qsort(ix, f->n_nodes, sizeof(*ix), cmp_ix);
	for (i = 0; i < f->n_values; i++) {
		const struct fleet_value *v = &f->values[i];
		const struct fleet_group *g = &f->groups[v->group];
		struct cell *cl;
		if ((n = find_node(ix, f->n_nodes, v->node)) == SIZE_MAX)
			continue;
		cl = &cells[n * f->n_columns + g->column];
		cl->flagged = cl->flagged || v->flagged;
		if (key[g->column] != v->group)
			continue;
		used[g->column] = true;
		if (!cl->v || v->ratio < cl->v->ratio)
			cl->v = v;
	}
	buf_puts(out, "<h2>Nodes &#215; tests</h2>\n<p>Each test's key value on the node as a percentage of the "
	              "median of its peers (100% or more: as good as the median; a framed cell: an outlier). "
	              "Worst node first.</p>\n<table class=\"matrix\">\n<thead><tr><th>node</th><th>verdict</th>");
	for (c = 0; c < f->n_columns; c++)
		if (used[c]) {
			buf_puts(out, "<th>");
			esc(out, f->columns[c]);
			buf_puts(out, "<br/>");
			esc(out, f->groups[key[c]].metric);
			buf_puts(out, "</th>");
		}
	buf_puts(out, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < f->n_nodes; i++) {
		static const char *const states[] = {"healthy", "inconclusive", "drain"};
		buf_puts(out, "<tr><td>");
		esc(out, f->nodes[i].name);
		buf_printf(out, "</td><td class=\"%s\">%s</td>", states[f->nodes[i].state], states[f->nodes[i].state]);
		for (c = 0; c < f->n_columns; c++)
			if (used[c])
				value_cell(out, f, &cells[i * f->n_columns + c], stems);
		buf_puts(out, "</tr>\n");
	}
	buf_puts(out, "</tbody>\n</table>\n");
	free(ix);
	free(cells);
	free(key);
	free(used);
}

/* One GPU of one node. */
struct gpu_row {
	const char *node;
	int gpu;
	double worst;
	size_t first; /* its first value in the sorted list */
};

static int
cmp_gpu_value(const void *x, const void *y)
{
	const struct fleet_value *a = *(const struct fleet_value *const *)x, *b = *(const struct fleet_value *const *)y;
	int c = strcmp(a->node, b->node);

	if (c)
		return c;
	if (a->m->gpu != b->m->gpu)
		return a->m->gpu < b->m->gpu ? -1 : 1;
	return a->group < b->group ? -1 : a->group > b->group;
}

static int
cmp_gpu_row(const void *x, const void *y)
{
	const struct gpu_row *a = x, *b = y;
	int c;

	if (a->worst != b->worst)
		return a->worst < b->worst ? -1 : 1;
	c = strcmp(a->node, b->node);
	return c ? c : a->gpu - b->gpu;
}

static void
gpu_view(struct buf *out, const struct fleet *f, const char *const *stems)
{
	const struct fleet_value **v = xcalloc(f->n_values + 1, sizeof(*v));
	struct gpu_row *rows = xcalloc(f->n_values + 1, sizeof(*rows));
	size_t *col = xcalloc(f->n_groups + 1, sizeof(*col)), n = 0, nr = 0, ng = 0, i, j, g;

	for (i = 0; i < f->n_groups; i++) {
		col[i] = SIZE_MAX;
		if (f->groups[i].per_gpu && f->groups[i].compared)
			col[i] = ng++;
	}
	for (i = 0; i < f->n_values; i++)
		if (col[f->values[i].group] != SIZE_MAX && f->values[i].node)
			v[n++] = &f->values[i];
	if (!n)
		goto done;
	qsort(v, n, sizeof(*v), cmp_gpu_value);
	for (i = 0; i < n; i++) {
		if (!nr || strcmp(rows[nr - 1].node, v[i]->node) || rows[nr - 1].gpu != v[i]->m->gpu) {
			rows[nr].node = v[i]->node;
			rows[nr].gpu = v[i]->m->gpu;
			rows[nr].worst = v[i]->ratio;
			rows[nr++].first = i;
		} else if (v[i]->ratio < rows[nr - 1].worst)
			rows[nr - 1].worst = v[i]->ratio;
	}
	qsort(rows, nr, sizeof(*rows), cmp_gpu_row);
	buf_printf(out, "<h2>GPUs &#215; metrics</h2>\n<p>Per-GPU values as a percentage of the median of every GPU "
	                "of the same model that ran the test; worst GPU first%s.</p>\n<table class=\"matrix\">\n"
	                "<thead><tr><th>node</th><th>GPU</th>", nr > GPU_ROWS ? " (the worst only)" : "");
	for (g = 0; g < f->n_groups; g++)
		if (col[g] != SIZE_MAX) {
			buf_puts(out, "<th>");
			esc(out, f->groups[g].test);
			buf_puts(out, "<br/>");
			esc(out, f->groups[g].metric);
			buf_puts(out, "</th>");
		}
	buf_puts(out, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < nr && i < GPU_ROWS; i++) {
		buf_puts(out, "<tr><td>");
		esc(out, rows[i].node);
		buf_printf(out, "</td><td class=\"num\">%d</td>", rows[i].gpu);
		j = rows[i].first;
		for (g = 0; g < f->n_groups; g++) {
			struct cell c = {NULL, false};
			if (col[g] == SIZE_MAX)
				continue;
			/* the row's values are sorted by group; the worst of repeats */
			for (; j < n && !strcmp(v[j]->node, rows[i].node) && v[j]->m->gpu == rows[i].gpu && v[j]->group <= g;
			     j++)
				if (v[j]->group == g && (!c.v || v[j]->ratio < c.v->ratio))
					c.v = v[j], c.flagged = c.flagged || v[j]->flagged;
			value_cell(out, f, &c, stems);
		}
		buf_puts(out, "</tr>\n");
	}
	buf_puts(out, "</tbody>\n</table>\n");
	if (nr > GPU_ROWS)
		buf_printf(out, "<p>%zu more GPUs (see the CSV files).</p>\n", nr - GPU_ROWS);
done:
	free(v);
	free(rows);
	free(col);
}

void
html_fleet_views(struct buf *out, const struct summary *s, const char *const *stems)
{
	const struct fleet *f = s->fleet;

	if (!f)
		return;
	if (f->n_nodes && f->n_columns)
		matrix(out, f, s, stems);
	gpu_view(out, f, stems);
}

void
html_fleet_verdict(struct buf *out, const struct summary *s)
{
	const struct fleet *f = s->fleet;
	struct buf line = {0};
	size_t i;

	if (!f)
		return;
	fleet_verdict_line(f, &line);
	/* green only when the campaign passed: no drain among failed runs is
	 * no good news (DESIGN 18) */
	buf_printf(out, "<h2>Fleet verdict</h2>\n<p class=\"verdict %s\" id=\"verdict\"><strong>",
	           f->n_drain ? "drain" : campaign_status(s) == CAMPAIGN_PASSED ? "ok" : "open");
	esc(out, line.data);
	buf_puts(out, "</strong></p>\n");
	if (f->n_multi) {
		buf_puts(out, "<h3>Multi-node runs that failed or fell short</h3>\n<ul>\n");
		for (i = 0; i < f->n_multi; i++) {
			buf_puts(out, "<li>");
			esc(out, f->multi[i]);
			buf_puts(out, "</li>\n");
		}
		buf_puts(out, "</ul>\n");
	}
	for (i = 0; i < f->n_notes; i++) {
		buf_puts(out, i ? "<br/>" : "<p>Peers: ");
		esc(out, f->notes[i]);
		if (i + 1 == f->n_notes)
			buf_puts(out, "</p>\n");
	}
	buf_free(&line);
}
