/* csv.c: report/csv/WORKLOAD[_SHAPE].csv, for spreadsheets: one file per
 * workload and shape of value (whole run, per_gpu, per_size, epoch, pair),
 * one row per run and node (and GPU, size or epoch), one column per metric
 * with its unit. Text fields go through csv_field (RFC 4180 quoting, a
 * leading ' where a spreadsheet would see a formula); numbers through
 * fmt_data (integers exact). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "gen/base/escape.h"
#include "reports/format.h"
#include "reports/html/html.h"
#include "reports/report.h"
#include "gen/base/util.h"

/* One file: a workload's values of one shape (whole run, per GPU, per
 * message size, per epoch), one column per metric. */
struct family {
	char *name; /* file name without .csv */
	const char *workload, *kind;
	const char **cols, **units;
	size_t n_cols, cap_cols;
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
family_of(struct family **f, size_t *n, size_t *cap, const struct run_report *r, const struct metric *m)
{
	const char *wl = r->workload ? r->workload : "other", *kind = kind_of(m);
	struct buf b = {0};
	size_t k;
	const char *p;

	for (k = *n; k > 0; k--)
		if (!strcmp((*f)[k - 1].workload, wl) && !strcmp((*f)[k - 1].kind, kind))
			return k - 1;
	for (p = wl; *p; p++)
		buf_putc(&b, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p) ? *p : '_');
	if (*kind)
		buf_printf(&b, "_%s", kind);
	*f = xreserve(*f, *n + 1, cap, sizeof(**f));
	memset(&(*f)[*n], 0, sizeof(**f));
	(*f)[*n].name = xstrdup(b.data);
	(*f)[*n].workload = wl;
	(*f)[*n].kind = kind;
	buf_free(&b);
	return (*n)++;
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
	f->cols[f->n_cols] = m->name;
	f->units[f->n_cols] = m->unit;
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

/* Appends the rows of run r in family fi: one per (node, GPU, x). */
static void
run_rows(struct buf *out, const struct run_report *r, const struct family *f, size_t fi,
         const unsigned char *fam_of, const size_t *col_of, struct row **rows, size_t *cap)
{
	size_t n = 0, i, k, c;

	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		if (fam_of[i] != fi)
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
		(*rows)[k].cells[col_of[i]] = m;
	}
	for (k = 0; k < n; k++) {
		const struct metric *m = (*rows)[k].first;
		csv_field(out, r->dir);
		buf_putc(out, ',');
		csv_field(out, r->id);
		buf_printf(out, ",%d,", r->iteration);
		if (r->step > 0)
			buf_printf(out, "%d", r->step);
		buf_printf(out, ",%s,", outcome_name(r->outcome));
		csv_field(out, m->node);
		buf_putc(out, ',');
		if (m->gpu >= 0)
			buf_printf(out, "%d", m->gpu);
		buf_putc(out, ',');
		csv_field(out, m->gpu_model);
		if (*f->kind && m->x >= 0) {
			buf_putc(out, ',');
			fmt_data(out, m->x);
		}
		else if (*f->kind && strcmp(f->kind, "per_gpu") != 0)
			buf_putc(out, ',');
		for (c = 0; c < f->n_cols; c++) {
			buf_putc(out, ',');
			if ((*rows)[k].cells[c])
				fmt_data(out, (*rows)[k].cells[c]->value);
		}
		buf_puts(out, "\r\n");
		free((*rows)[k].cells);
	}
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

bool
csv_write(const char *root, const struct summary *s)
{
	struct family *f = NULL;
	size_t n = 0, i, j, k, cap = 0, fcap = 0, *order;
	unsigned char **fam = xcalloc(s->n_runs + 1, sizeof(*fam));
	size_t **col = xcalloc(s->n_runs + 1, sizeof(*col));
	struct buf path = {0}, idx = {0}, out = {0};
	struct row *rows = NULL;
	bool ok = true;

	/* which file and column each value goes to */
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		fam[i] = xcalloc(r->n_metrics + 1, 1);
		col[i] = xcalloc(r->n_metrics + 1, sizeof(**col));
		for (j = 0; j < r->n_metrics; j++) {
			k = family_of(&f, &n, &fcap, r, &r->metrics[j]);
			if (k > 250)
				k = 250; /* a garbled output's many shapes share one file */
			fam[i][j] = (unsigned char)k;
			col[i][j] = column(&f[k], &r->metrics[j]);
		}
	}
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
		out.len = 0;
		header(&out, fk);
		for (i = 0; i < s->n_runs; i++)
			run_rows(&out, &s->runs[i], fk, order[k], fam[i], col[i], &rows, &cap);
		path.len = 0;
		buf_printf(&path, "%s/report/csv/%s.csv", root, fk->name);
		ok = write_file_atomic(path.data, out.data, out.len) && ok;
		buf_printf(&idx, "<li><a href=\"%s.csv\">%s.csv</a></li>\n", fk->name, fk->name);
	}
	if (!n)
		buf_puts(&idx, "<li>no run has metrics yet</li>\n");
	buf_puts(&idx, "</ul>\n</body>\n</html>\n");
	path.len = 0;
	buf_printf(&path, "%s/report/csv/index.html", root);
	ok = write_file_atomic(path.data, idx.data, idx.len) && ok;
	for (i = 0; i < s->n_runs; i++) {
		free(fam[i]);
		free(col[i]);
	}
	for (k = 0; k < n; k++) {
		free(f[k].name);
		free(f[k].cols);
		free(f[k].units);
	}
	free(fam);
	free(col);
	free(f);
	free(order);
	free(rows);
	buf_free(&path);
	buf_free(&idx);
	buf_free(&out);
	return ok;
}
