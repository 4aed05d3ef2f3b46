/* write/html/html.c: report/index.html and report/runs/STEM.html: static pages, no
 * script, no network. Every byte of a test name, a reason or a run's
 * output goes through xml_escape (which also turns bytes that are not
 * UTF-8 into U+FFFD); hrefs are the run stems, made of safe bytes only. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/campaign.h"
#include "reports/results/format.h"
#include "reports/write/html/html.h"
#include "reports/results/results.h"
#include "reports/results/report_json.h"
#include "reports/results/summary.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

#ifndef KUNAI_VERSION
#define KUNAI_VERSION "0.0.0-dev"
#endif

enum { TAIL_LINES = 50, TAIL_BYTES = 64 * 1024, FILE_BYTES = 64 * 1024, SERIES_ROWS = 2000, KEY_METRICS = 4,
       STATUS_RUNS = 20 };

static const char style[] =
	"<style>\n"
	"body{font-family:sans-serif;margin:1.5em;color:#222}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"th{background:#f0f0f0}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	".passed{background:#e6f4e6}.failed,.perf-failed,.suspect,.timeout{background:#fbe3e3}\n"
	".cancelled,.node-fail,.infra{background:#fdf0d5}.skipped,.not-run,.running{background:#eeeeee}\n"
	".low,.high{color:#b00000;font-weight:bold}\n"
	".status{font-size:1.2em;padding:.4em .6em;border:1px solid #ccc}\n"
	".status.failed{background:#f6c6c6;border-color:#b00000}.status.suspect,.status.incomplete{background:#fdf0d5}\n"
	".status.passed{background:#e6f4e6}\n"
	"pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow:auto;max-height:30em;white-space:pre-wrap}\n"
	"img{max-width:100%;border:1px solid #ddd}\n"
	"</style>\n";

static void
esc(struct buf *out, const char *s)
{
	if (s)
		xml_escape(out, s, strlen(s), false);
}

static void
head(struct buf *out, const char *title, const char *up)
{
	buf_puts(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>kunai: ");
	esc(out, title);
	buf_puts(out, "</title>\n");
	buf_puts(out, style);
	buf_printf(out, "<style>\n%s</style>\n", html_fleet_style);
	buf_puts(out, "</head>\n<body>\n");
	if (up)
		buf_printf(out, "<p><a href=\"%s\">&#8592; all runs</a></p>\n", up);
}

static void
run_name(struct buf *out, const struct run_report *r)
{
	esc(out, r->id);
	buf_printf(out, " iteration %d", r->iteration);
	if (r->step > 0)
		buf_printf(out, " step %d", r->step);
}

/* "9.22 GB/s", "8 GiB" */
static void
value(struct buf *out, const struct metric *m)
{
	struct buf t = {0};

	fmt_value(&t, m->value, m->unit);
	esc(out, buf_str(&t));
	buf_free(&t);
}

static void
where(struct buf *out, const struct metric *m)
{
	esc(out, m->node ? m->node : "");
	if (m->gpu >= 0)
		buf_printf(out, " GPU %d", m->gpu);
	if (m->gpu_model) {
		buf_puts(out, m->node || m->gpu >= 0 ? " (" : "(");
		esc(out, m->gpu_model);
		buf_putc(out, ')');
	}
}

static const char *
check_class(const struct metric *m)
{
	return m->check == CHECK_LOW ? "low" : m->check == CHECK_HIGH ? "high" : "";
}

static void
check_text(struct buf *out, const struct metric *m)
{
	static const char *const names[] = {"no reference", "ok", "below", "above"};

	buf_printf(out, "<td class=\"%s\">%s", check_class(m), names[m->check]);
	if (m->ref) {
		struct buf t = {0};

		fmt_value(&t, m->ref->value, m->ref->unit ? m->ref->unit : m->unit);
		buf_puts(out, " (reference ");
		esc(out, buf_str(&t));
		buf_free(&t);
		if (!isinf(m->ref->lower))
			buf_printf(out, ", -%.0f%%", -100 * m->ref->lower);
		if (!isinf(m->ref->upper))
			buf_printf(out, ", +%.0f%%", 100 * m->ref->upper);
		if (m->ref->scope) {
			buf_puts(out, ", for ");
			esc(out, m->ref->scope);
		}
		if (m->ref->sized) {
			buf_puts(out, ", sizes ");
			fmt_bytes(out, m->ref->min_size);
			buf_puts(out, isinf(m->ref->max_size) ? " and up" : " to ");
			if (!isinf(m->ref->max_size))
				fmt_bytes(out, m->ref->max_size);
		}
		buf_putc(out, ')');
	}
	buf_puts(out, "</td>");
}

/* The values an admin looks at first: those out of their reference, then
 * the referenced ones, then the others; whole-run values only. */
static void
key_metrics(struct buf *out, const struct run_report *r)
{
	static const enum metric_check order[] = {CHECK_LOW, CHECK_HIGH, CHECK_OK, CHECK_NONE};
	size_t i, k, shown = 0, whole = 0;

	for (k = 0; k < LEN(order); k++)
		for (i = 0; i < r->n_metrics && shown < KEY_METRICS; i++) {
			const struct metric *m = &r->metrics[i];
			if (m->check != order[k] || m->x >= 0)
				continue;
			if (shown++)
				buf_puts(out, "<br/>");
			buf_printf(out, "<span class=\"%s\">", check_class(m));
			esc(out, m->name);
			buf_puts(out, " ");
			value(out, m);
			if (m->gpu >= 0 || (r->nodes && strchr(r->nodes, ',') && m->node)) {
				buf_puts(out, " @ ");
				where(out, m);
			}
			buf_puts(out, "</span>");
		}
	for (i = 0; i < r->n_metrics; i++)
		whole += r->metrics[i].x < 0;
	if (whole > shown)
		buf_printf(out, "<br/>(%zu more)", whole - shown);
}

static void
counts(struct buf *out, const struct summary *s)
{
	size_t i;
	bool first = true;

	for (i = 0; i < OUTCOME_COUNT; i++) {
		if (!s->counts[i])
			continue;
		buf_printf(out, "%s<span class=\"%s\">%zu %s</span>", first ? "" : ", ", outcome_name((enum outcome)i),
		           s->counts[i], outcome_name((enum outcome)i));
		first = false;
	}
}

/* The results' date: the latest end of a run. */
static const char *
results_date(const struct summary *s)
{
	const char *d = NULL;
	size_t i;

	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].end_time && (!d || strcmp(s->runs[i].end_time, d) > 0))
			d = s->runs[i].end_time;
	return d;
}

/* The first box: the campaign's one status, coloured by the worst run
 * (DESIGN 18), and each run that did not pass with its reason. */
static void
status_box(struct buf *out, const struct summary *s, const size_t *order, const char *const *stems)
{
	enum campaign_status c = campaign_status(s);
	struct buf line = {0};
	size_t i, shown = 0;

	campaign_line(s, &line);
	buf_printf(out, "<p class=\"status %s\" id=\"status\"><strong>", campaign_name(c));
	esc(out, line.data);
	buf_puts(out, "</strong></p>\n");
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[order[i]];
		if (campaign_of_run(r->outcome, r->ran_skipped) == CAMPAIGN_PASSED)
			break;
		if (shown == STATUS_RUNS) {
			buf_printf(out, "<li>... and more in the runs table below</li>\n");
			break;
		}
		buf_puts(out, shown++ ? "" : "<ul class=\"failures\">\n");
		buf_printf(out, "<li class=\"%s\"><a href=\"runs/%s.html\">", outcome_name(r->outcome), stems[order[i]]);
		run_name(out, r);
		buf_printf(out, "</a> %s", outcome_name(r->outcome));
		if (r->reason) {
			buf_puts(out, ": ");
			esc(out, r->reason);
		}
		buf_puts(out, "</li>\n");
	}
	if (shown)
		buf_puts(out, "</ul>\n");
	buf_free(&line);
}

/* The status and the runs that did not pass first, then the fleet verdict,
 * then the tables, the plots last. */
static void
index_page(const struct summary *s, const char *const *stems, bool history, const char *overlays,
           struct buf *out)
{
	const char *date = results_date(s);
	size_t *order = campaign_order(s), i;
	struct buf paths = {0};

	head(out, s->scenario, NULL);
	buf_puts(out, "<h1>");
	esc(out, s->scenario);
	buf_puts(out, "</h1>\n");
	status_box(out, s, order, stems);
	html_fleet_verdict(out, s);
	buf_puts(out, "<p><strong>");
	summary_paths(s, &paths);
	esc(out, paths.data);
	buf_puts(out, "</strong></p>\n<table>\n<tr><th>scenario</th><td>");
	esc(out, s->scenario);
	buf_puts(out, "</td></tr>\n<tr><th>system</th><td>");
	esc(out, s->system ? s->system : "(unknown)");
	buf_puts(out, "</td></tr>\n<tr><th>results from</th><td>");
	esc(out, date ? date : "no run has ended");
	buf_puts(out, "</td></tr>\n<tr><th>kunai</th><td>" KUNAI_VERSION "</td></tr>\n");
	buf_printf(out, "<tr><th>runs</th><td>%zu: ", s->n_runs);
	counts(out, s);
	buf_puts(out, "</td></tr>\n</table>\n<p>Also: <a href=\"summary.md\">summary.md</a>, "
	              "<a href=\"summary.json\">summary.json</a>, <a href=\"junit.xml\">junit.xml</a>, "
	              "<a href=\"csv/index.html\">CSV files</a>");
	if (history)
		buf_puts(out, ", <a href=\"history.md\">history.md</a> (values against earlier campaigns)");
	buf_puts(out, ".</p>\n");
	buf_puts(out, "<h2>Runs</h2>\n<p>The worst first.</p>\n<table>\n<thead><tr><th>run</th><th>outcome</th>"
	              "<th>reason</th><th>key metrics</th><th>nodes</th><th>path</th><th>time</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[order[i]];
		buf_printf(out, "<tr class=\"%s\"><td><a href=\"runs/%s.html\">", outcome_name(r->outcome), stems[order[i]]);
		run_name(out, r);
		buf_printf(out, "</a></td><td>%s</td><td>", outcome_name(r->outcome));
		esc(out, r->reason);
		buf_puts(out, "</td><td>");
		key_metrics(out, r);
		buf_puts(out, "</td><td>");
		esc(out, r->nodes);
		buf_puts(out, "</td><td>");
		esc(out, r->path ? r->path : "");
		buf_puts(out, "</td><td class=\"num\">");
		if (r->duration_s >= 0)
			fmt_duration(out, r->duration_s, r->start_time, r->end_time);
		buf_puts(out, "</td></tr>\n");
	}
	buf_puts(out, "</tbody>\n</table>\n");
	html_fleet_views(out, s, stems);
	if (overlays && *overlays)
		buf_printf(out, "<h2>every run of a test on one plot</h2>\n%s", overlays);
	buf_puts(out, "</body>\n</html>\n");
	buf_free(&paths);
	free(order);
}

/* A run's file (its tail, or its start up to max bytes) in a <pre>. */
static void
file_block(struct buf *out, const char *root, const char *dir, const char *name, bool tail)
{
	struct buf path = {0}, text = {0};

	buf_printf(&path, "%s/%s/%s", root, dir, name);
	if (tail)
		tail_lines(path.data, TAIL_LINES, TAIL_BYTES, &text);
	else if (access(path.data, R_OK) == 0 && read_file(path.data, &text) && text.len > FILE_BYTES)
		text.len = FILE_BYTES;
	if (text.len) {
		buf_puts(out, "<h2>");
		esc(out, name);
		buf_puts(out, tail ? " (last lines)</h2>\n<pre>" : "</h2>\n<pre>");
		xml_escape(out, text.data, text.len, false);
		buf_puts(out, "</pre>\n");
	}
	buf_free(&path);
	buf_free(&text);
}

static void
value_row(struct buf *out, const struct metric *m, bool series)
{
	buf_puts(out, "<tr><td>");
	esc(out, m->name);
	if (series) {
		buf_puts(out, "</td><td class=\"num\">");
		if (m->x_name && strcmp(m->x_name, "bytes") == 0)
			fmt_bytes(out, m->x);
		else
			fmt_num(out, m->x);
	}
	buf_puts(out, "</td><td class=\"num\">");
	value(out, m);
	buf_puts(out, "</td><td>");
	where(out, m);
	buf_puts(out, "</td>");
	check_text(out, m);
	buf_puts(out, "</tr>\n");
}

static void
run_page(const char *root, const struct run_report *r, const char *stem, bool plot, struct buf *out)
{
	size_t i, n = 0;

	head(out, r->id, "../index.html");
	buf_puts(out, "<h1>");
	run_name(out, r);
	buf_printf(out, "</h1>\n<table>\n<tr><th>outcome</th><td class=\"%s\">%s</td></tr>\n<tr><th>reason</th><td>",
	           outcome_name(r->outcome), outcome_name(r->outcome));
	esc(out, r->reason ? r->reason : "");
	buf_puts(out, "</td></tr>\n<tr><th>scheduler</th><td>");
	if (r->job_state || r->job_outcome) {
		esc(out, r->job_state ? r->job_state : "");
		buf_puts(out, r->job_state ? " (job " : "(job ");
		esc(out, r->job_outcome ? r->job_outcome : "not ended");
		buf_puts(out, r->outcome == OUTCOME_PASSED || (r->job_outcome && !strcmp(r->job_outcome, outcome_name(r->outcome)))
		                  ? ")"
		                  : "; graded as above)");
	}
	buf_puts(out, "</td></tr>\n<tr><th>workload</th><td>");
	esc(out, r->workload ? r->workload : "");
	buf_puts(out, "</td></tr>\n<tr><th>path</th><td>");
	esc(out, r->path ? r->path : "");
	buf_puts(out, "</td></tr>\n<tr><th>nodes</th><td>");
	esc(out, r->nodes ? r->nodes : "");
	buf_puts(out, "</td></tr>\n<tr><th>job</th><td>");
	esc(out, r->job_id ? r->job_id : "");
	buf_puts(out, "</td></tr>\n<tr><th>start, end</th><td>");
	esc(out, r->start_time ? r->start_time : "");
	buf_puts(out, " &#8211; ");
	esc(out, r->end_time ? r->end_time : "");
	buf_puts(out, "</td></tr>\n<tr><th>exit code</th><td>");
	if (r->has_exit_code)
		buf_printf(out, "%d", r->exit_code);
	buf_puts(out, "</td></tr>\n<tr><th>run dir</th><td>");
	esc(out, r->dir);
	buf_puts(out, "</td></tr>\n</table>\n");
	if (plot)
		buf_printf(out, "<h2>plot</h2>\n<p><img src=\"../plots/%s.svg\" alt=\"plot of this run\"/></p>\n", stem);
	buf_puts(out, "<h2>metrics</h2>\n<table>\n<thead><tr><th>metric</th><th>value</th><th>where</th>"
	              "<th>reference</th></tr></thead>\n<tbody>\n");
	for (i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].x < 0)
			value_row(out, &r->metrics[i], false);
		else
			n++;
	buf_puts(out, "</tbody>\n</table>\n");
	if (n) {
		buf_printf(out, "<details><summary>%zu values per size or step</summary>\n<table>\n<thead><tr>"
		                "<th>metric</th><th>x</th><th>value</th><th>where</th><th>reference</th></tr></thead>\n"
		                "<tbody>\n", n);
		for (i = 0, n = 0; i < r->n_metrics && n < SERIES_ROWS; i++)
			if (r->metrics[i].x >= 0) {
				value_row(out, &r->metrics[i], true);
				n++;
			}
		buf_puts(out, "</tbody>\n</table>\n</details>\n");
	}
	file_block(out, root, r->dir, "stdout.txt", true);
	file_block(out, root, r->dir, "stderr.txt", true);
	file_block(out, root, r->dir, "run.sh", false);
	file_block(out, root, r->dir, "cloudai_sbatch_script.sh", false);
	file_block(out, root, r->dir, "job.json", false);
	buf_puts(out, "</body>\n</html>\n");
}

/* The overlay plot of each test that has one (report/plots/test-*.svg,
 * drawn by its ninja edge), in the order the tests first appear. */
static void
overlay_imgs(const char *root, const struct summary *s, struct buf *out)
{
	struct buf stem = {0}, path = {0};
	const char **seen = xcalloc(s->n_runs + 1, sizeof(*seen));
	size_t i, j, n = 0;
	struct stat st;

	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		/* a test's runs are mostly together: few ids to look through */
		for (j = n; j > 0 && strcmp(seen[j - 1], r->id) != 0; j--)
			;
		if (j > 0)
			continue;
		seen[n++] = r->id;
		if (!r->workload || !workload_plot(workload_find(r->workload)))
			continue;
		stem.len = 0;
		workload_test_stem(r->id, &stem);
		path.len = 0;
		buf_printf(&path, "%s/report/plots/%s.svg", root, stem.data);
		if (stat(path.data, &st) != 0)
			continue;
		buf_printf(out, "<p><img src=\"plots/%s.svg\" alt=\"every run of ", stem.data);
		xml_escape(out, r->id, strlen(r->id), true);
		buf_puts(out, "\"/></p>\n");
	}
	free(seen);
	buf_free(&stem);
	buf_free(&path);
}

bool
html_write(const char *root, const struct summary *s)
{
	struct buf page = {0}, path = {0}, stem = {0}, over = {0};
	char **stems = xcalloc(s->n_runs + 1, sizeof(*stems));
	struct stat st;
	bool ok = true;
	size_t i;

	for (i = 0; i < s->n_runs; i++) {
		stem.len = 0;
		workload_run_stem(i, s->runs[i].dir, &stem);
		stems[i] = xstrdup(stem.data);
	}
	for (i = 0; i < s->n_runs && ok; i++) {
		struct arena a = {0};
		struct run_report full;
		const struct run_report *r = &s->runs[i];
		struct buf why = {0};
		bool plot;

		/* the page shows the series too: they are in report.json only */
		path.len = 0;
		buf_printf(&path, "%s/%s/report.json", root, r->dir);
		if (json_load_report(&a, path.data, &full, &why) && !strcmp(full.dir, r->dir)) {
			full.outcome = r->outcome, full.reason = r->reason, full.ran_skipped = r->ran_skipped;
			r = &full;
		}
		path.len = 0;
		buf_printf(&path, "%s/report/plots/%s.svg", root, stems[i]);
		plot = stat(path.data, &st) == 0;
		page.len = 0;
		run_page(root, r, stems[i], plot, &page);
		path.len = 0;
		buf_printf(&path, "%s/report/runs/%s.html", root, stems[i]);
		ok = write_file_atomic(path.data, page.data, page.len);
		buf_free(&why);
		arena_free(&a);
	}
	page.len = 0;
	overlay_imgs(root, s, &over);
	path.len = 0;
	buf_printf(&path, "%s/report/history.md", root);
	index_page(s, (const char *const *)stems, stat(path.data, &st) == 0, over.data, &page);
	path.len = 0;
	buf_printf(&path, "%s/report/index.html", root);
	ok = ok && write_file_atomic(path.data, page.data, page.len);
	for (i = 0; i < s->n_runs; i++)
		free(stems[i]);
	free(stems);
	buf_free(&page);
	buf_free(&path);
	buf_free(&stem);
	buf_free(&over);
	return ok;
}
