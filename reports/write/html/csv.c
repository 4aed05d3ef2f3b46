/* write/html/csv.c: report/csv/WORKLOAD[_SHAPE].csv, for spreadsheets: one file per
 * workload and shape of value (whole run, per_gpu, per_size, epoch, pair),
 * one row per run and node (and GPU, size or epoch), one column per metric
 * with its unit. Text fields go through csv_field (RFC 4180 quoting, a
 * leading ' where a spreadsheet would see a formula); numbers through
 * fmt_data (integers exact). A run's rows are spooled to a temporary file
 * per family as the run is read (csv_add), so that no run's series stays
 * in memory; csv_finish writes the files, with each run's outcome as the
 * report finally grades it. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/base/escape.h"
#include "reports/results/format.h"
#include "reports/write/html/html.h"
#include "reports/results/results.h"
#include "gen/base/util.h"

/* One file: a workload's values of one shape (whole run, per GPU, per
 * message size, per epoch), one column per metric; its rows so far in
 * spool. */
struct family {
	char *name; /* file name without .csv */
	char *workload, *kind;
	char **cols, **units;
	size_t n_cols, cap_cols;
	FILE *spool;
};

/* Every family seen; spooled rows: run index, the family's column count
 * then, length, then the row from the node on (no line end). */
struct csv {
	struct family *f;
	size_t n, cap;
	bool failed;
};

/* The shape of m: what its rows are keyed by besides the run and node. */
static const char *
kind_of(const struct metric *m)
{
	if (m->x >= 0)
		return m->x_name && !strcmp(m->x_name, "bytes") ? "per_size" : m->x_name ? m->x_name : "x";
	return m->gpu >= 0 ? "per_gpu" : "";
}

static size_t
family_of(struct csv *c, const struct run_report *r, const struct metric *m)
{
	const char *wl = r->workload ? r->workload : "other", *kind = kind_of(m);
	struct buf b = {0};
	size_t k;
	const char *p;

	for (k = c->n; k > 0; k--)
		if (!strcmp(c->f[k - 1].workload, wl) && !strcmp(c->f[k - 1].kind, kind))
			return k - 1;
	for (p = wl; *p; p++)
		buf_putc(&b, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p) ? *p : '_');
	if (*kind)
		buf_printf(&b, "_%s", kind);
	c->f = xreserve(c->f, c->n + 1, &c->cap, sizeof(*c->f));
	memset(&c->f[c->n], 0, sizeof(*c->f));
	c->f[c->n].name = xstrdup(b.data);
	c->f[c->n].workload = xstrdup(wl);
	c->f[c->n].kind = xstrdup(kind);
	buf_free(&b);
	return c->n++;
}

static size_t
column(struct family *f, const struct metric *m)
{
	size_t c;

	for (c = 0; c < f->n_cols; c++)
		if (!strcmp(f->cols[c], m->name))
			return c;
	if (f->n_cols == f->cap_cols) {
		size_t cap = f->cap_cols; /* cols and units share one room */
		f->cols = xreserve(f->cols, f->n_cols + 1, &cap, sizeof(*f->cols));
		f->units = xreserve(f->units, f->n_cols + 1, &f->cap_cols, sizeof(*f->units));
	}
	f->cols[f->n_cols] = xstrdup(m->name);
	f->units[f->n_cols] = m->unit ? xstrdup(m->unit) : NULL;
	return f->n_cols++;
}

static bool
same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

struct row {
	const struct metric *first; /* node, gpu, model, x */
	const struct metric **cells;
};

/* Spools the rows of run i in family fi: one per (node, GPU, x). */
static void
run_rows(struct csv *c, size_t i, const struct run_report *r, size_t fi, const unsigned char *fam_of,
         const size_t *col_of, struct row **rows, size_t *cap)
{
	struct family *f = &c->f[fi];
	struct buf out = {0};
	size_t n = 0, j, k, col, head[3];

	for (j = 0; j < r->n_metrics; j++) {
		const struct metric *m = &r->metrics[j];
		if (fam_of[j] != fi)
			continue;
		for (k = 0; k < n; k++)
			if (same((*rows)[k].first->node, m->node) && (*rows)[k].first->gpu == m->gpu &&
			    (*rows)[k].first->x == m->x)
				break;
		if (k == n) {
			*rows = xreserve(*rows, n + 1, cap, sizeof(**rows));
			(*rows)[n].first = m;
			(*rows)[n].cells = xcalloc(f->n_cols + 1, sizeof(*(*rows)[n].cells));
			n++;
		}
		(*rows)[k].cells[col_of[j]] = m;
	}
	if (n && !f->spool && !(f->spool = tmpfile())) {
		warn("csv: a temporary file:");
		c->failed = true;
	}
	for (k = 0; k < n; k++) {
		const struct metric *m = (*rows)[k].first;
		out.len = 0;
		csv_field(&out, m->node);
		buf_putc(&out, ',');
		if (m->gpu >= 0)
			buf_printf(&out, "%d", m->gpu);
		buf_putc(&out, ',');
		csv_field(&out, m->gpu_model);
		if (*f->kind && m->x >= 0) {
			buf_putc(&out, ',');
			fmt_data(&out, m->x);
		}
		else if (*f->kind && strcmp(f->kind, "per_gpu") != 0)
			buf_putc(&out, ',');
		for (col = 0; col < f->n_cols; col++) {
			buf_putc(&out, ',');
			if ((*rows)[k].cells[col])
				fmt_data(&out, (*rows)[k].cells[col]->value);
		}
		free((*rows)[k].cells);
		head[0] = i, head[1] = f->n_cols, head[2] = out.len;
		if (f->spool && (fwrite(head, sizeof(head), 1, f->spool) != 1 ||
		                 (out.len && fwrite(out.data, out.len, 1, f->spool) != 1))) {
			warn("csv: write a temporary file:");
			c->failed = true;
		}
	}
	buf_free(&out);
}

struct csv *
csv_begin(void)
{
	return xcalloc(1, sizeof(struct csv));
}

void
csv_add(struct csv *c, size_t i, const struct run_report *r)
{
	unsigned char *fam = xcalloc(r->n_metrics + 1, 1);
	size_t *col = xcalloc(r->n_metrics + 1, sizeof(*col));
	struct row *rows = NULL;
	size_t j, k, cap = 0;

	/* which file and column each value goes to */
	for (j = 0; j < r->n_metrics; j++) {
		k = family_of(c, r, &r->metrics[j]);
		if (k > 250)
			k = 250; /* a garbled output's many shapes share one file */
		fam[j] = (unsigned char)k;
		col[j] = column(&c->f[k], &r->metrics[j]);
	}
	for (k = 0; k < c->n && k <= 250; k++)
		run_rows(c, i, r, k, fam, col, &rows, &cap);
	free(fam);
	free(col);
	free(rows);
}

static void
header(struct buf *out, const struct family *f)
{
	size_t c;
	struct buf h = {0};

	buf_puts(out, "run,id,iteration,step,outcome,node,gpu,gpu_model");
	if (*f->kind && strcmp(f->kind, "per_gpu") != 0)
		buf_printf(out, ",%s", strcmp(f->kind, "per_size") == 0 ? "bytes" : f->kind);
	for (c = 0; c < f->n_cols; c++) {
		h.len = 0;
		buf_puts(&h, f->cols[c]);
		if (f->units[c] && *f->units[c])
			buf_printf(&h, " (%s)", f->units[c]);
		buf_putc(out, ',');
		csv_field(out, h.data);
	}
	buf_puts(out, "\r\n");
	buf_free(&h);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct family *)a)->name, ((const struct family *)b)->name);
}

/* Copies family f's spooled rows to o, each after its run's columns. */
static bool
spool_out(const struct family *f, const struct summary *s, struct file_out *o)
{
	char *row = NULL;
	size_t head[3], pad, cap = 0;
	bool ok = true;

	if (!f->spool)
		return true;
	rewind(f->spool);
	while (fread(head, sizeof(head), 1, f->spool) == 1) {
		const struct run_report *r = head[0] < s->n_runs ? &s->runs[head[0]] : NULL;
		if (head[2] + 1 > cap) {
			cap = head[2] + 1;
			row = xrealloc(row, cap);
		}
		if (!r || (head[2] && fread(row, head[2], 1, f->spool) != 1)) {
			ok = false;
			break;
		}
		csv_field(&o->b, r->dir);
		buf_putc(&o->b, ',');
		csv_field(&o->b, r->id);
		buf_printf(&o->b, ",%d,", r->iteration);
		if (r->step > 0)
			buf_printf(&o->b, "%d", r->step);
		buf_printf(&o->b, ",%s,", outcome_name(r->outcome));
		buf_push(&o->b, row, head[2]);
		/* columns that later runs brought */
		for (pad = head[1]; pad < f->n_cols; pad++)
			buf_putc(&o->b, ',');
		buf_puts(&o->b, "\r\n");
		file_out_flush(o, false);
	}
	if (!ok || ferror(f->spool)) {
		warn("csv: read a temporary file:");
		ok = false;
	}
	free(row);
	return ok;
}

bool
csv_finish(struct csv *c, const char *root, const struct summary *s)
{
	size_t n = c->n, j, k, *order;
	struct buf path = {0}, idx = {0};
	struct family *f = c->f;
	struct file_out o;
	bool ok = !c->failed;

	order = xcalloc(n + 1, sizeof(*order));
	{
		struct family *sorted = xcalloc(n + 1, sizeof(*sorted));
		/* no family at all when no run has a value (f is still NULL) */
		if (n) {
			memcpy(sorted, f, n * sizeof(*f));
			qsort(sorted, n, sizeof(*sorted), by_name);
		}
		for (k = 0; k < n; k++)
			for (j = 0; j < n; j++)
				if (f[j].name == sorted[k].name)
					order[k] = j;
		free(sorted);
	}
	buf_puts(&idx, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
	               "<meta charset=\"utf-8\"/>\n<title>kunai: CSV files</title>\n</head>\n<body>\n<p><a "
	               "href=\"../index.html\">&#8592; all runs</a></p>\n<h1>CSV files, one per workload and shape"
	               "</h1>\n<ul>\n");
	for (k = 0; k < n && k <= 250; k++) {
		const struct family *fk = &f[order[k]];
		path.len = 0;
		buf_printf(&path, "%s/report/csv/%s.csv", root, fk->name);
		if (file_out_open(&o, path.data)) {
			header(&o.b, fk);
			if (order[k] <= 250)
				ok = spool_out(fk, s, &o) && ok;
		}
		ok = file_out_close(&o) && ok;
		buf_printf(&idx, "<li><a href=\"%s.csv\">%s.csv</a></li>\n", fk->name, fk->name);
	}
	if (!n)
		buf_puts(&idx, "<li>no run has metrics yet</li>\n");
	buf_puts(&idx, "</ul>\n</body>\n</html>\n");
	path.len = 0;
	buf_printf(&path, "%s/report/csv/index.html", root);
	ok = write_file_atomic(path.data, idx.data, idx.len) && ok;
	csv_free(c);
	free(order);
	buf_free(&path);
	buf_free(&idx);
	return ok;
}

void
csv_free(struct csv *c)
{
	struct family *f = c->f;
	size_t j, k;

	for (k = 0; k < c->n; k++) {
		free(f[k].name);
		free(f[k].workload);
		free(f[k].kind);
		for (j = 0; j < f[k].n_cols; j++) {
			free(f[k].cols[j]);
			free(f[k].units[j]);
		}
		free(f[k].cols);
		free(f[k].units);
		if (f[k].spool)
			fclose(f[k].spool);
	}
	free(f);
	free(c);
}
