/* write/plot/plot.c: `kunai plot KIND DIR/report.json OUT.svg`, the command of the
 * plot edges: the run's values as a gnuplot data block, then
 * reports/write/plot/common.gp and KIND.gp, on gnuplot's standard input. The SVG
 * goes through OUT.tmp and replaces OUT only when its bytes changed. With
 * no gnuplot the SVG says so, and the build goes on. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/results/format.h"
#include "reports/write/plot/gnuplot.h"
#include "reports/write/plot/overlay.h"
#include "reports/write/plot/plot.h"
#include "reports/results/results.h"
#include "reports/results/report_json.h"
#include "gen/base/util.h"

static const struct metric *
find(const struct run_report *r, const char *name, double x)
{
	size_t i;

	for (i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].x == x && strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	return NULL;
}

/* Appends the value or NaN (gnuplot's missing). */
static void
val(struct buf *d, const struct metric *m)
{
	if (m) {
		buf_putc(d, ' ');
		fmt_data(d, m->value);
	} else
		buf_puts(d, " NaN");
}

/* A series of name against x: one row per distinct x, in order. */
static size_t
series(struct buf *d, const struct run_report *r, const char *name, const char *second)
{
	size_t i, rows = 0;

	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		if (m->x < 0 || strcmp(m->name, name) != 0)
			continue;
		fmt_data(d, m->x);
		val(d, m);
		if (second)
			val(d, find(r, second, m->x));
		buf_putc(d, '\n');
		rows++;
	}
	return rows;
}

/* GEMM: per precision, one block of (x, "node GPU n", value). */
static size_t
gemm(struct buf *d, struct buf *vars, const struct run_report *r)
{
	struct buf names = {0}, label = {0};
	const char *unit = "TFLOP/s";
	size_t i, j, blocks = 0, rows = 0, x;

	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		size_t n = strlen(m->name);
		bool per_gpu = n > 7 && strcmp(m->name + n - 7, "_tflops") == 0 && m->gpu >= 0;
		bool cpu = n > 7 && strcmp(m->name + n - 7, "_gflops") == 0;
		if (!per_gpu && !cpu)
			continue;
		for (j = 0; j < i && strcmp(r->metrics[j].name, m->name) != 0; j++)
			;
		if (j < i)
			continue; /* this precision's block is written */
		if (cpu)
			unit = "GFLOP/s";
		if (blocks++)
			buf_puts(d, "\n\n");
		buf_printf(&names, "%s%.*s", names.len ? " " : "", (int)(n - 7), m->name);
		for (j = i, x = 0; j < r->n_metrics; j++) {
			const struct metric *o = &r->metrics[j];
			if (strcmp(o->name, m->name) != 0)
				continue;
			label.len = 0;
			buf_puts(&label, o->node ? o->node : "?");
			if (o->gpu >= 0)
				buf_printf(&label, " GPU %d", o->gpu);
			else
				buf_puts(&label, " cpu");
			buf_printf(d, "%zu \"", x++);
			for (const char *p = label.data; *p; p++)
				if (*p != '"' && (unsigned char)*p >= 0x20)
					buf_putc(d, *p);
			buf_puts(d, "\" ");
			fmt_data(d, o->value);
			buf_putc(d, '\n');
			rows++;
		}
	}
	buf_printf(vars, "nblocks = %zu\nnames = ", blocks);
	plot_quote(vars, names.data ? names.data : "");
	buf_puts(vars, "\nylabel = ");
	plot_quote(vars, unit);
	buf_putc(vars, '\n');
	buf_free(&names);
	buf_free(&label);
	return rows;
}

/* Fills the data block and the kind's variables; returns the row count. */
static size_t
data_for(const char *kind, const struct run_report *r, struct buf *d, struct buf *vars)
{
	size_t i;

	if (strcmp(kind, "busbw") == 0)
		return series(d, r, "busbw", "busbw_inplace");
	if (strcmp(kind, "loss") == 0)
		return series(d, r, "epoch_loss", NULL);
	if (strcmp(kind, "gemm") == 0)
		return gemm(d, vars, r);
	if (strcmp(kind, "osu") == 0 || strcmp(kind, "ucc") == 0) {
		const char *name = strcmp(kind, "ucc") == 0 ? "time_avg" : NULL;
		for (i = 0; !name && i < r->n_metrics; i++)
			if (r->metrics[i].x >= 0)
				name = r->metrics[i].name;
		if (!name)
			return 0;
		for (i = 0; i < r->n_metrics; i++)
			if (strcmp(r->metrics[i].name, name) == 0)
				break;
		buf_puts(vars, "names = ");
		plot_quote(vars, name);
		buf_puts(vars, "\nylabel = ");
		{
			struct buf y = {0};
			buf_printf(&y, "%s (%s)", name, i < r->n_metrics && r->metrics[i].unit ? r->metrics[i].unit : "");
			plot_quote(vars, y.data);
			buf_free(&y);
		}
		buf_putc(vars, '\n');
		return series(d, r, name, NULL);
	}
	return 0;
}

/* Appends run report in's plot (to tmp) to script, or when it has nothing
 * to plot, writes out's placeholder. Returns false after reporting. */
static bool
plot_one(const char *kind, const char *in, const char *out, const char *tmp, struct buf *script, bool *drawn)
{
	struct arena a = {0};
	struct run_report r;
	struct buf why = {0}, data = {0}, vars = {0}, title = {0};
	size_t rows = 0;
	bool ok = true;

	if (json_load_report(&a, in, &r, &why)) {
		rows = data_for(kind, &r, &data, &vars);
		buf_printf(&title, "%s iteration %d", r.id, r.iteration);
		if (r.step > 0)
			buf_printf(&title, " step %d", r.step);
		buf_printf(&title, " (%s)", outcome_name(r.outcome));
	} else
		buf_printf(&title, "%s: %s", in, buf_str(&why));
	*drawn = rows > 0;
	if (rows) {
		/* a batch's plots are drawn by one gnuplot: each from the defaults */
		buf_puts(script, script->len ? "reset\noutfile = " : "outfile = ");
		plot_quote(script, tmp);
		buf_puts(script, "\nplottitle = ");
		plot_quote(script, title.data);
		buf_putc(script, '\n');
		buf_push(script, vars.data ? vars.data : "", vars.len);
		buf_puts(script, "$data << EOD\n");
		buf_push(script, data.data ? data.data : "", data.len);
		buf_puts(script, "EOD\n");
		ok = plot_script("common", script) && plot_script(kind, script);
	} else {
		buf_printf(&title, ": nothing to plot");
		ok = plot_render(out, tmp, script, true, title.data);
	}
	buf_free(&why);
	buf_free(&data);
	buf_free(&vars);
	buf_free(&title);
	arena_free(&a);
	return ok;
}

/* `kunai plot KIND IN... OUT...`: the plots of a batch of runs (as many
 * report.json files as SVGs, in the same order) in one gnuplot: its start
 * costs more than a plot. */
int
cmd_plot(int argc, char **argv)
{
	struct buf script = {0}, svg = {0}, *tmp;
	bool *drawn, ok = true, any = false;
	size_t n, i;

	if (argc == 5 && strcmp(argv[2], "--test") == 0)
		return plot_test_cmd(argv[1], argv[3], argv[4]);
	if (argc < 4 || argc % 2) {
		fputs("usage: kunai plot KIND DIR/report.json... OUT.svg...   (KIND: busbw, gemm, loss, osu, ucc)\n"
		      "       kunai plot KIND --test ID OUT.svg               (every run of test ID, in the build dir)\n",
		      stderr);
		return 2;
	}
	n = (size_t)(argc - 2) / 2;
	tmp = xcalloc(n, sizeof(*tmp));
	drawn = xcalloc(n, sizeof(*drawn));
	for (i = 0; i < n && ok; i++) {
		/* a name no concurrent plot of the same file uses */
		buf_printf(&tmp[i], "%s.%ld.tmp", argv[2 + n + i], (long)getpid());
		ok = plot_one(argv[1], argv[2 + i], argv[2 + n + i], tmp[i].data, &script, &drawn[i]);
		any = any || drawn[i];
	}
	if (ok && any && !plot_have_gnuplot()) {
		for (i = 0; i < n && ok; i++)
			ok = !drawn[i] || plot_render(argv[2 + n + i], tmp[i].data, &script, false, NULL);
	} else if (ok && any) {
		ok = plot_gnuplot(script.data, script.len);
		for (i = 0; i < n; i++) {
			if (!drawn[i])
				continue;
			svg.len = 0;
			if (ok)
				ok = read_file(tmp[i].data, &svg) && write_file_atomic(argv[2 + n + i], svg.data, svg.len);
			unlink(tmp[i].data);
		}
	}
	for (i = 0; i < n; i++)
		buf_free(&tmp[i]);
	free(tmp);
	free(drawn);
	buf_free(&script);
	buf_free(&svg);
	return ok ? 0 : 1;
}
