/* write/plot/overlay.c: `kunai plot KIND --test ID OUT.svg`, the command of a
 * test's overlay edge: every run of test ID on one plot, so that one node's
 * curve is seen against its peers' on the same axes: bus bandwidth (or
 * another series) against message size, loss per epoch, or the GEMM rate
 * of every GPU as bars. The highlighted runs (overlay_highlights) are drawn
 * last, thick and red, and named; the test's references are dashed lines. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/results/format.h"
#include "reports/write/plot/gnuplot.h"
#include "reports/write/plot/overlay.h"
#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "reports/results/report_json.h"
#include "reports/write/summary.h"
#include "gen/base/util.h"

enum { NAMED_MAX = 12, LABEL_MAX = 40 };

void
overlay_highlights(const struct run_report *runs, size_t n, bool *hot)
{
	size_t i;

	/* the runs the grading called out; the peer comparison's suspects
	 * join them here when it lands */
	for (i = 0; i < n; i++)
		hot[i] = runs[i].outcome == OUTCOME_PERF_FAILED;
}

/* "node-05", "node-01,node-02 (perf-failed)": where the run ran, cut to
 * LABEL_MAX bytes, and its outcome when it is highlighted. */
static void
label(struct buf *b, const struct run_report *r, bool hot)
{
	size_t start = b->len;

	if (r->nodes && *r->nodes)
		buf_puts(b, r->nodes);
	else
		buf_printf(b, "iteration %d", r->iteration);
	if (r->step > 0)
		buf_printf(b, " step %d", r->step);
	if (b->len - start > LABEL_MAX) {
		b->len = start + LABEL_MAX - 3;
		buf_puts(b, "...");
	}
	if (hot)
		buf_printf(b, " (%s)", outcome_name(r->outcome));
}

/* The series an overlay of kind draws, for run r (NULL: none). */
static const char *
series_name(const char *kind, const struct run_report *r)
{
	size_t i;

	if (strcmp(kind, "busbw") == 0)
		return "busbw";
	if (strcmp(kind, "loss") == 0)
		return "epoch_loss";
	if (strcmp(kind, "ucc") == 0)
		return "time_avg";
	for (i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].x >= 0)
			return r->metrics[i].name;
	return NULL;
}

/* The precision a GEMM overlay draws: the first per-GPU rate (or CPU
 * rate) of any run. */
static const char *
gemm_name(const struct run_report *runs, size_t n)
{
	size_t i, j, len;

	for (i = 0; i < n; i++)
		for (j = 0; j < runs[i].n_metrics; j++) {
			const struct metric *m = &runs[i].metrics[j];
			len = strlen(m->name);
			if (len > 7 && ((strcmp(m->name + len - 7, "_tflops") == 0 && m->gpu >= 0) ||
			                strcmp(m->name + len - 7, "_gflops") == 0))
				return m->name;
		}
	return NULL;
}

/* Was some value of runs measured where reference f applies? A scope
 * names a system or (a part of) a GPU model: a B200 reference is no line
 * on a plot of H100s. */
static bool
in_scope(const struct plan_ref *f, const struct run_report *runs, size_t n)
{
	size_t i, j, k, len;

	if (!f->scope)
		return true;
	len = strlen(f->scope);
	for (i = 0; i < n; i++)
		for (j = 0; j < runs[i].n_metrics; j++) {
			const char *g = runs[i].metrics[j].gpu_model;
			for (; g && *g; g++) {
				for (k = 0; k < len && g[k] && tolower((unsigned char)g[k]) == tolower((unsigned char)f->scope[k]);
				     k++)
					;
				if (k == len)
					return true;
			}
		}
	return false;
}

/* Appends ", REF with lines ..." for each reference of t on metric name,
 * or on its peak (max_NAME: the curve's top must reach it). */
static void
ref_lines(struct buf *s, const struct plan_test *t, const char *name, const char *unit,
          const struct run_report *runs, size_t n)
{
	struct buf title = {0};
	size_t i;

	for (i = 0; t && i < t->n_refs; i++) {
		const struct plan_ref *f = &t->refs[i];
		bool peak = strncmp(f->metric, "max_", 4) == 0 && strcmp(f->metric + 4, name) == 0;
		if ((strcmp(f->metric, name) != 0 && !peak) || !in_scope(f, runs, n))
			continue;
		title.len = 0;
		buf_puts(&title, "reference ");
		if (peak)
			buf_printf(&title, "%s ", f->metric);
		fmt_value(&title, f->value, f->unit ? f->unit : unit);
		if (!isinf(f->lower)) {
			buf_puts(&title, " -");
			fmt_percent(&title, -f->lower);
		}
		if (f->scope)
			buf_printf(&title, ", %s", f->scope);
		if (f->sized) {
			buf_puts(&title, ", ");
			fmt_bytes(&title, f->min_size);
			buf_puts(&title, isinf(f->max_size) ? " and up" : " to ");
			if (!isinf(f->max_size))
				fmt_bytes(&title, f->max_size);
			buf_printf(s, ", ((x >= %.17g && x <= %.17g) ? %.17g : NaN)", f->min_size,
			           isinf(f->max_size) ? 1e300 : f->max_size, f->value);
		} else
			buf_printf(s, ", %.17g", f->value);
		buf_puts(s, " with lines dt 2 lw 2 lc rgb '#222222' title ");
		plot_quote(s, title.data);
	}
	buf_free(&title);
}

/* Curves: one data block per run that has points, the highlighted last. */
static size_t
series_data(const char *kind, const struct run_report *runs, size_t n, const bool *hot, struct buf *d,
            struct buf *vars, const char **unit, const char **name)
{
	size_t blocks = 0, i, j, named = 0, pass;
	struct buf l = {0};

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			const char *nm = series_name(kind, &runs[i]);
			size_t rows = 0;
			if ((pass == 1) != hot[i] || !nm)
				continue;
			for (j = 0; j < runs[i].n_metrics; j++) {
				const struct metric *m = &runs[i].metrics[j];
				if (m->x < 0 || strcmp(m->name, nm) != 0)
					continue;
				if (!rows++ && blocks)
					buf_puts(d, "\n\n");
				fmt_data(d, m->x);
				buf_putc(d, ' ');
				fmt_data(d, m->value);
				buf_putc(d, '\n');
				if (!*unit)
					*unit = m->unit;
			}
			if (!rows)
				continue;
			if (!*name)
				*name = nm;
			blocks++;
			l.len = 0;
			/* every highlighted run is named; the others while few */
			if (hot[i] || named++ < NAMED_MAX)
				label(&l, &runs[i], hot[i]);
			else if (named == NAMED_MAX + 1)
				buf_puts(&l, "...");
			buf_printf(vars, "titles[%zu] = ", blocks);
			plot_quote(vars, l.data ? l.data : "");
			buf_printf(vars, "\nhot[%zu] = %d\n", blocks, hot[i] ? 1 : 0);
		}
	buf_free(&l);
	return blocks;
}

/* Bars: one row per GPU (or node on the CPU path) of every run: x, label,
 * value, hot. */
static size_t
gemm_data(const char *name, const struct run_report *runs, size_t n, const bool *hot, struct buf *d,
          struct buf *hotlist, const char **unit)
{
	size_t rows = 0, i, j;
	struct buf l = {0};

	for (i = 0; i < n; i++) {
		bool checked = false, any = false;
		/* in a highlighted run, the GPUs out of their reference (all of
		 * them when none was checked against one) */
		for (j = 0; j < runs[i].n_metrics; j++)
			checked = checked || (strcmp(runs[i].metrics[j].name, name) == 0 &&
			                      (runs[i].metrics[j].check == CHECK_LOW || runs[i].metrics[j].check == CHECK_HIGH));
		for (j = 0; j < runs[i].n_metrics; j++) {
			const struct metric *m = &runs[i].metrics[j];
			bool h;
			if (strcmp(m->name, name) != 0)
				continue;
			h = hot[i] && (!checked || m->check == CHECK_LOW || m->check == CHECK_HIGH);
			l.len = 0;
			buf_puts(&l, m->node ? m->node : runs[i].nodes ? runs[i].nodes : "?");
			if (m->gpu >= 0)
				buf_printf(&l, " GPU %d", m->gpu);
			buf_printf(d, "%zu \"", rows++);
			for (const char *p = l.data; *p; p++)
				if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
					buf_putc(d, *p);
			buf_puts(d, "\" ");
			fmt_data(d, m->value);
			buf_printf(d, " %d\n", h ? 1 : 0);
			*unit = m->unit;
			if (h && checked) {
				buf_printf(hotlist, "%s%s (%s)", hotlist->len ? "; " : "", l.data, outcome_name(runs[i].outcome));
				any = true;
			}
		}
		if (hot[i] && !any) {
			l.len = 0;
			label(&l, &runs[i], true);
			buf_printf(hotlist, "%s%s", hotlist->len ? "; " : "", l.data);
		}
	}
	buf_free(&l);
	return rows;
}

bool
plot_overlay(const char *kind, const struct plan_test *t, const struct run_report *runs, size_t n,
             const bool *hot, const char *out)
{
	struct buf script = {0}, data = {0}, vars = {0}, tmp = {0}, title = {0}, cmd = {0}, hotlist = {0};
	const char *unit = NULL, *name = NULL;
	bool gemm = strcmp(kind, "gemm") == 0, ok = false;
	size_t rows;

	buf_printf(&tmp, "%s.tmp", out);
	if (gemm) {
		name = gemm_name(runs, n);
		rows = name ? gemm_data(name, runs, n, hot, &data, &hotlist, &unit) : 0;
	} else
		rows = series_data(kind, runs, n, hot, &data, &vars, &unit, &name);
	buf_printf(&title, "%s: %s of %zu run%s", t->id, name ? name : kind, n, n == 1 ? "" : "s");
	buf_puts(&script, "outfile = ");
	plot_quote(&script, tmp.data);
	buf_puts(&script, "\nplottitle = ");
	plot_quote(&script, title.data);
	buf_puts(&script, "\nylabel = ");
	cmd.len = 0;
	buf_printf(&cmd, "%s (%s)", name ? name : kind, unit ? unit : "");
	plot_quote(&script, cmd.data);
	if (gemm) {
		buf_puts(&script, "\n$data << EOD\n");
		buf_push(&script, data.data ? data.data : "", data.len);
		buf_puts(&script, "EOD\n");
	} else {
		buf_printf(&script, "\nnblocks = %zu\narray titles[%zu]\narray hot[%zu]\n", rows, rows ? rows : 1,
		           rows ? rows : 1);
		buf_push(&script, vars.data ? vars.data : "", vars.len);
		buf_puts(&script, "$data << EOD\n");
		buf_push(&script, data.data ? data.data : "", data.len);
		buf_puts(&script, "EOD\n");
	}
	if (rows && (!plot_script("common", &script) ||
	             !plot_script(gemm ? "overlay_gemm" : strcmp(kind, "loss") == 0 ? "overlay_loss" : "overlay_size",
	                          &script)))
		goto done;
	if (gemm && rows == 1) {
		/* one value: a point that says it, not a bar across the plot */
		buf_puts(&script, "plot $data using 1:3:($4 > 0 ? 0xd62728 : 0x7f8fa6):xtic(2) with points pt 7 ps 1.5 "
		                  "lc rgb variable notitle, $data using 1:3:(sprintf('%.4g', $3)) with labels offset 0,1 "
		                  "notitle");
		if (hotlist.len) {
			buf_puts(&script, ", NaN with points pt 7 lc rgb '#d62728' title ");
			plot_quote(&script, hotlist.data);
		}
	} else if (gemm) {
		buf_puts(&script, "plot $data using 1:3:(0.8):($4 > 0 ? 0xd62728 : 0x7f8fa6):xtic(2) with boxes lc rgb variable "
		                  "notitle");
		if (hotlist.len) {
			buf_puts(&script, ", NaN with boxes lc rgb '#d62728' title ");
			plot_quote(&script, hotlist.data);
		}
	} else
		buf_puts(&script, "plot for [i=1:nblocks] $data index (i-1) using 1:2 with linespoints pt 7 "
		                  "ps (hot[i] ? 0.7 : 0.35) lw (hot[i] ? 3 : 1) lc rgb (hot[i] ? '#d62728' : '#7f8fa6') "
		                  "title titles[i]");
	if (name)
		ref_lines(&script, t, name, unit, runs, n);
	buf_putc(&script, '\n');
	buf_printf(&title, ": nothing to plot");
	ok = plot_render(out, tmp.data, &script, rows == 0, title.data);
done:
	buf_free(&script);
	buf_free(&data);
	buf_free(&vars);
	buf_free(&tmp);
	buf_free(&title);
	buf_free(&cmd);
	buf_free(&hotlist);
	return ok;
}

int
plot_test_cmd(const char *kind, const char *id, const char *out)
{
	struct arena a = {0};
	struct plan p;
	struct summary s = {0};
	struct run_report *runs;
	const struct plan_test *t = NULL;
	struct buf path = {0}, why = {0};
	bool *hot, have_summary;
	size_t i, n = 0;
	int rc = 1;

	if (!json_load_plan(&a, "kunai.json", &p))
		goto done;
	for (i = 0; i < p.n_tests && !t; i++)
		if (strcmp(p.tests[i].id, id) == 0)
			t = &p.tests[i];
	if (!t) {
		warn("plot: no test '%s' in kunai.json", id);
		goto done;
	}
	/* the graded outcomes (skips too) from the summary; the values, with
	 * their series, from each run's report.json */
	have_summary = json_load_summary(&a, "report/summary.json", &s) && s.n_runs == p.n_runs;
	runs = arena_alloc(&a, (t->n_runs + 1) * sizeof(*runs));
	hot = arena_alloc(&a, t->n_runs + 1);
	for (i = 0; i < t->n_runs; i++) {
		const struct plan_run *r = &p.runs[t->runs[i]];
		path.len = 0;
		why.len = 0;
		buf_printf(&path, "%s/report.json", r->dir);
		if (!json_load_report(&a, path.data, &runs[n], &why) || strcmp(runs[n].dir, r->dir) != 0)
			continue;
		if (have_summary)
			runs[n].outcome = s.runs[t->runs[i]].outcome;
		n++;
	}
	overlay_highlights(runs, n, hot);
	rc = plot_overlay(kind, t, runs, n, hot, out) ? 0 : 1;
done:
	buf_free(&path);
	buf_free(&why);
	arena_free(&a);
	return rc;
}
