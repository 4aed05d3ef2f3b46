/* ninja_report.c: writes report.ninja, the report graph (grading, plots,
 * HTML) that `ninja report` builds with a nested ninja, so that `ninja run`
 * does not load an edge per plot. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ninja.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* Does run i's test case have an overlay, and is run i its first run? (A
 * case's runs are contiguous in rl.) */
static const char *
overlay_kind(const struct runlist *rl, size_t i)
{
	if (i && rl->items[i - 1].tc == rl->items[i].tc)
		return NULL;
	return workload_plot(rl->items[i].def->wl);
}

/* The plots of up to this many runs of one kind in a row: one gnuplot draws
 * them, whose start costs more than a plot. */
enum { PLOT_BATCH = 64 };

/* One overlay plot per test that has plots (every run of it on one plot,
 * `kunai plot KIND --test ID`): after the summary (the graded outcomes it
 * highlights) and every report.json of the test, through phonies of
 * NINJA_INPUT_GROUP (report/runs/STEM.K) for a test of more runs. Kept apart
 * from the per-run edges; listed in *svgs for the HTML edge, through
 * phonies (report/tests.K) where there are more than NINJA_INPUT_GROUP. */
static void
overlay_edges(struct buf *b, const struct runlist *rl, struct buf *svgs)
{
	struct buf stem = {0}, q = {0}, tests = {0}, name = {0}, inputs = {0};
	size_t i, end, n_tests = 0, n = 0;

	for (i = 0; i < rl->len; i++)
		n_tests += overlay_kind(rl, i) != NULL;
	for (i = 0; i < rl->len; i++) {
		const char *kind = overlay_kind(rl, i);
		if (!kind)
			continue;
		stem.len = 0;
		workload_test_stem(rl->items[i].tc->id, &stem);
		if (n_tests <= NINJA_INPUT_GROUP)
			buf_puts(svgs, " report/plots/");
		else if (n++ % NINJA_INPUT_GROUP == 0) {
			buf_printf(&tests, "%sbuild report/tests.%zu: phony report/plots/", n > 1 ? "\n" : "",
			           (n - 1) / NINJA_INPUT_GROUP);
			buf_printf(svgs, " report/tests.%zu", (n - 1) / NINJA_INPUT_GROUP);
		} else
			buf_puts(&tests, " report/plots/");
		ninja_escape_path(n_tests <= NINJA_INPUT_GROUP ? svgs : &tests, stem.data);
		buf_puts(n_tests <= NINJA_INPUT_GROUP ? svgs : &tests, ".svg");
		for (end = i; end < rl->len && rl->items[end].tc == rl->items[i].tc; end++)
			;
		name.len = 0;
		buf_printf(&name, "report/runs/%s", stem.data);
		inputs.len = 0;
		ninja_grouped_runs(b, &inputs, rl, i, end, name.data, "report.json");
		buf_puts(b, "build report/plots/");
		ninja_escape_path(b, stem.data);
		buf_puts(b, ".svg: plot_test report/summary.json |");
		buf_push(b, inputs.data, inputs.len);
		q.len = 0;
		sh_quote(&q, rl->items[i].tc->id);
		buf_printf(b, "\n  kind = %s\n  test = ", kind);
		ninja_escape_value(b, q.data);
		buf_putc(b, '\n');
	}
	if (tests.len) {
		buf_push(b, tests.data, tests.len);
		buf_putc(b, '\n');
	}
	buf_free(&stem);
	buf_free(&q);
	buf_free(&tests);
	buf_free(&name);
	buf_free(&inputs);
}

/* `kunai report` grades every run whose report.json is older than its
 * results, then summarises: one process, whatever ran or not. It leaves
 * unchanged files untouched (restat), so only the plot batches of runs
 * whose report.json changed are drawn again; the HTML report comes last. */
static void
report_edges(struct buf *b, const struct runlist *rl)
{
	struct buf stem = {0}, svgs = {0};
	bool bar = false;
	size_t i, end;

	buf_puts(b, "\nbuild always: phony\n");
	buf_puts(b, "build report/summary.json");
	for (i = 0; i < rl->len; i++) {
		if (!workload_plot(rl->items[i].def->wl))
			continue;
		buf_puts(b, bar ? " " : " | ");
		bar = true;
		ninja_path_in(b, rl->items[i].dir, "report.json");
	}
	buf_puts(b, ": report | always\n");
	for (i = 0; i < rl->len; i = end) {
		const char *kind = workload_plot(rl->items[i].def->wl), *k;
		size_t n = 0, j;
		end = i + 1;
		if (!kind)
			continue;
		/* the plots of up to PLOT_BATCH runs of one kind in a row: one
		 * gnuplot draws them, whose start costs more than a plot */
		for (end = i; end < rl->len && n < PLOT_BATCH; end++) {
			if (!(k = workload_plot(rl->items[end].def->wl)))
				continue;
			if (strcmp(k, kind) != 0)
				break;
			n++;
		}
		buf_puts(b, "build");
		for (j = i; j < end; j++) {
			if (!workload_plot(rl->items[j].def->wl))
				continue;
			stem.len = 0;
			workload_run_stem(j, rl->items[j].dir, &stem);
			buf_puts(b, " report/plots/");
			ninja_escape_path(b, stem.data);
			buf_puts(b, ".svg");
		}
		buf_puts(b, ": plot");
		for (j = i; j < end; j++)
			if (workload_plot(rl->items[j].def->wl)) {
				buf_putc(b, ' ');
				ninja_path_in(b, rl->items[j].dir, "report.json");
			}
		buf_printf(b, "\n  kind = %s\n", kind);
	}
	overlay_edges(b, rl, &svgs);
	/* the runs' plots, through phonies of NINJA_INPUT_GROUP */
	for (i = 0, end = 0; i < rl->len; i++) {
		if (!workload_plot(rl->items[i].def->wl))
			continue;
		if (end % NINJA_INPUT_GROUP == 0) {
			buf_printf(b, "%sbuild report/plots.%zu: phony", end ? "\n" : "", end / NINJA_INPUT_GROUP);
			buf_printf(&svgs, " report/plots.%zu", end / NINJA_INPUT_GROUP);
		}
		end++;
		stem.len = 0;
		workload_run_stem(i, rl->items[i].dir, &stem);
		buf_puts(b, " report/plots/");
		ninja_escape_path(b, stem.data);
		buf_puts(b, ".svg");
	}
	if (end)
		buf_putc(b, '\n');
	buf_puts(b, "build report/index.html: html report/summary.json");
	buf_push(b, svgs.data ? svgs.data : "", svgs.len);
	buf_puts(b, "\nbuild report: phony report/index.html\n");
	buf_free(&stem);
	buf_free(&svgs);
}

void
ninja_write_report(const struct campaign *c, const struct runlist *rl, struct buf *b)
{
	buf_puts(b, "# Generated by kunai gen; edits are lost when it regenerates.\n");
	buf_puts(b, "# The report graph: `ninja report` builds it (ninja -f report.ninja), so\n");
	buf_puts(b, "# that `ninja run` does not load an edge per plot. Its log is .kunai/report's.\n");
	buf_puts(b, "ninja_required_version = 1.11\n");
	buf_puts(b, "builddir = .kunai/report\n\n");
	buf_puts(b, "include local.ninja\n");
	buf_puts(b, "include $rulesdir/common.ninja\n\n");
	buf_puts(b, "scenario = ");
	ninja_escape_value(b, c->scenario->name);
	buf_puts(b, "\n");
	report_edges(b, rl);
	buf_puts(b, "\ndefault report\n");
}

