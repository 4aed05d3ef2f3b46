/* csv.c: report/csv/METRIC.csv, one file per metric name, one row per run
 * and value (per message size, GPU or node), for spreadsheets. Fields are
 * quoted as RFC 4180 says; text that a spreadsheet would take for a
 * formula gets a leading '. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "reports/html/html.h"
#include "reports/report.h"
#include "gen/base/util.h"

static void
field(struct buf *out, const char *s)
{
	const char *p;

	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n") && !strchr("=+@", s[0] ? s[0] : 'x')) {
		buf_puts(out, s);
		return;
	}
	buf_putc(out, '"');
	if (strchr("=+@", s[0]))
		buf_putc(out, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			buf_putc(out, '"');
		buf_putc(out, *p);
	}
	buf_putc(out, '"');
}

struct family {
	const char *name;
	struct buf rows;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct family *)a)->name, ((const struct family *)b)->name);
}

static void
row(struct buf *out, const struct run_report *r, const struct metric *m)
{
	static const char *const checks[] = {"no reference", "ok", "below", "above"};

	field(out, r->dir);
	buf_putc(out, ',');
	field(out, r->id);
	buf_printf(out, ",%d,", r->iteration);
	if (r->step > 0)
		buf_printf(out, "%d", r->step);
	buf_printf(out, ",%s,", outcome_name(r->outcome));
	field(out, m->name);
	buf_putc(out, ',');
	field(out, m->node);
	buf_putc(out, ',');
	if (m->gpu >= 0)
		buf_printf(out, "%d", m->gpu);
	buf_putc(out, ',');
	field(out, m->gpu_model);
	buf_putc(out, ',');
	field(out, m->x >= 0 ? m->x_name : NULL);
	buf_putc(out, ',');
	if (m->x >= 0)
		buf_printf(out, "%.9g", m->x);
	buf_printf(out, ",%.9g,", m->value);
	field(out, m->unit);
	buf_printf(out, ",%s,", checks[m->check]);
	if (m->ref)
		buf_printf(out, "%.9g", m->ref->value);
	buf_puts(out, "\r\n");
}

bool
csv_write(const char *root, const struct summary *s)
{
	struct family *f = NULL;
	size_t n = 0, i, j, k;
	struct buf path = {0}, idx = {0};
	bool ok = true;

	for (i = 0; i < s->n_runs; i++)
		for (j = 0; j < s->runs[i].n_metrics; j++) {
			const struct metric *m = &s->runs[i].metrics[j];
			/* few names, many values: the last family is the likely one */
			for (k = n; k > 0 && strcmp(f[k - 1].name, m->name) != 0; k--)
				;
			if (k == 0) {
				f = xrealloc(f, (n + 1) * sizeof(*f));
				memset(&f[n], 0, sizeof(*f));
				f[n].name = m->name;
				buf_puts(&f[n].rows, "run,id,iteration,step,outcome,metric,node,gpu,gpu_model,x_name,x,value,unit,"
				                     "check,reference\r\n");
				k = ++n;
			}
			row(&f[k - 1].rows, &s->runs[i], m);
		}
	if (n)
		qsort(f, n, sizeof(*f), by_name);
	buf_puts(&idx, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>kunai: CSV files"
	               "</title>\n</head>\n<body>\n<p><a href=\"../index.html\">&#8592; all runs</a></p>\n<h1>CSV files, "
	               "one per metric</h1>\n<ul>\n");
	for (i = 0; i < n; i++) {
		struct buf file = {0};
		const char *p;
		for (p = f[i].name; *p; p++)
			buf_putc(&file, strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *p) ? *p : '_');
		path.len = 0;
		buf_printf(&path, "%s/report/csv/%s.csv", root, file.data);
		ok = write_file_atomic(path.data, f[i].rows.data, f[i].rows.len) && ok;
		buf_printf(&idx, "<li><a href=\"%s.csv\">%s.csv</a></li>\n", file.data, file.data);
		buf_free(&file);
		buf_free(&f[i].rows);
	}
	if (!n)
		buf_puts(&idx, "<li>no run has metrics yet</li>\n");
	buf_puts(&idx, "</ul>\n</body>\n</html>\n");
	path.len = 0;
	buf_printf(&path, "%s/report/csv/index.html", root);
	ok = write_file_atomic(path.data, idx.data, idx.len) && ok;
	free(f);
	buf_free(&path);
	buf_free(&idx);
	return ok;
}
