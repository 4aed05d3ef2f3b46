/* report.c: `kunai report BUILD_DIR [--check]`: every run of kunai.json with
 * its outcome, whether it ran or not, as report/summary.json,
 * report/junit.xml and report/summary.md. Reads results, never runs or
 * submits anything (DESIGN 4). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "reports/results/report_json.h"
#include "reports/results/cloudai.h"
#include "reports/results/summary.h"
#include "reports/write/summary.h"
#include "reports/write/junit.h"
#include "reports/write/markdown.h"
#include "reports/grade/grade.h"
#include "reports/report.h"
#include "gen/base/escape.h"
#include "reports/results/campaign.h"
#include "reports/history/compare.h"
#include "reports/fleet/fleet.h"
#include "reports/results/format.h"
#include "reports/report_stamp.h"
#include "reports/write/html/html.h"
#include "gen/base/beneath.h"
#include "gen/base/lock.h"
#include "gen/base/util.h"

/* Is a report of time rep newer than the run's file name (a missing one
 * counts when it is not required)? */
static bool
newer(struct report_runs *w, struct timespec rep, const char *dir, const char *name, bool required)
{
	struct stat st;

	if (report_runs_stat(w, dir, name, &st) != 0)
		return !required;
	return !report_older(rep, st.st_mtim);
}

/* The run's report.json when it is newer than everything it was graded
 * from (job.json, stdout.txt, and kunai.json with its thresholds, whose
 * mtime is plan_t, NULL when unknown) and graded by this kunai's grader
 * of its workload (grade_version); otherwise the run is graded here,
 * and its report.json written. *changed: graded here, or its report.json
 * is not older than the last complete report (stamp_t; NULL: none).
 * series false: a report.json read leaves out the series (csv_add's).
 * *latest: the newest report.json mtime so far; *seen: its stat. */
static bool
collect(struct arena *a, const char *root, struct report_runs *w, const struct plan *p, const struct plan_run *r,
        const struct timespec *plan_t, const struct timespec *stamp_t, bool series, struct run_report *out,
        bool *changed, struct timespec *latest, struct stat *seen)
{
	struct buf rep = {0}, why = {0};
	struct stat before;
	bool exists, fresh, rewritten = false, ok = true;

	buf_printf(&rep, "%s/%s/report.json", root, r->dir);
	exists = report_runs_stat(w, r->dir, "report.json", seen) == 0;
	before = *seen;
	fresh = exists && plan_t && !report_older(seen->st_mtim, *plan_t);
	fresh = fresh && newer(w, seen->st_mtim, r->dir, "job.json", true);
	fresh = fresh && newer(w, seen->st_mtim, r->dir, "stdout.txt", false);
	/* and made by this kunai's grading of its workload (a report.json of an
	 * older grader, or of none recorded, is graded again) */
	if (!fresh || !json_load_values(a, rep.data, out, &why, series) || strcmp(out->dir, r->dir) != 0 ||
	    strcmp(out->id, r->id) != 0 || !out->grader ||
	    strcmp(out->grader, grade_version(a, out->workload)) != 0) {
		/* graded again to the same bytes (a run that never ran, a job.json
		 * touched), report.json is left as it was: nothing changed */
		/* the stat of the file written (of one left as it was: its own) */
		seen->st_size = -1;
		ok = grade_write(a, root, p, r, rep.data, out, seen);
		rewritten = (seen->st_size < 0 && stat(rep.data, seen) != 0) || !exists ||
		            seen->st_ino != before.st_ino || report_older(before.st_mtim, seen->st_mtim) ||
		            report_older(seen->st_mtim, before.st_mtim);
	}
	*changed = rewritten || !stamp_t || !report_older(seen->st_mtim, *stamp_t);
	if (report_older(*latest, seen->st_mtim))
		*latest = seen->st_mtim;
	buf_free(&rep);
	buf_free(&why);
	return ok;
}

static const char *
dup_or_null(struct arena *a, const char *s)
{
	return s ? arena_strdup(a, s) : NULL;
}

/* What the summary, the fleet verdict, JUnit and compare need of full,
 * copied into a: every field, and its values that are not one point of a
 * series (summary.json keeps only those; csv_add has the series). */
static void
compact(struct arena *a, struct strtab *t, const struct plan_run *pr, const struct run_report *full,
        struct run_report *out)
{
	size_t i, n = 0;

	*out = *full;
	out->dir = full->dir && strcmp(full->dir, pr->dir) == 0 ? pr->dir : dup_or_null(a, full->dir);
	out->id = full->id && strcmp(full->id, pr->id) == 0 ? pr->id : dup_or_null(a, full->id);
	out->reason = dup_or_null(a, full->reason);
	out->job_id = dup_or_null(a, full->job_id);
	out->start_time = dup_or_null(a, full->start_time);
	out->end_time = dup_or_null(a, full->end_time);
	out->job_state = strtab_intern(a, t, full->job_state);
	out->job_outcome = strtab_intern(a, t, full->job_outcome);
	out->workload = strtab_intern(a, t, full->workload);
	out->grader = strtab_intern(a, t, full->grader);
	out->path = strtab_intern(a, t, full->path);
	out->nodes = strtab_intern(a, t, full->nodes);
	out->run_dir = NULL;
	for (i = 0; i < full->n_metrics; i++)
		n += full->metrics[i].x < 0 || full->metrics[i].check != CHECK_NONE;
	out->metrics = n ? arena_alloc(a, n * sizeof(*out->metrics)) : NULL;
	out->n_metrics = out->cap_metrics = n;
	for (i = 0, n = 0; i < full->n_metrics; i++) {
		const struct metric *m = &full->metrics[i];
		struct metric *c;
		if (m->x >= 0 && m->check == CHECK_NONE)
			continue;
		c = &out->metrics[n++];
		*c = *m;
		c->name = strtab_intern(a, t, m->name);
		c->unit = strtab_intern(a, t, m->unit);
		c->node = strtab_intern(a, t, m->node);
		c->gpu_model = strtab_intern(a, t, m->gpu_model);
		c->x_name = strtab_intern(a, t, m->x_name);
		if (m->ref) {
			struct plan_ref *f = arena_alloc(a, sizeof(*f));
			*f = *m->ref;
			f->scope = strtab_intern(a, t, f->scope);
			f->metric = c->name;
			f->unit = strtab_intern(a, t, f->unit);
			c->ref = f;
		}
	}
}

static int
report_usage(const char *fmt, const char *arg)
{
	fputs("kunai: report: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: kunai report BUILD_DIR [--check] [--no-html | --html-only] [--history DIR...]\n", stderr);
	return 2;
}

static bool
write_out(const char *root, const char *name, struct buf *b)
{
	struct buf path = {0};
	bool ok;

	buf_printf(&path, "%s/report/%s", root, name);
	ok = write_file_atomic(path.data, b->data ? b->data : "", b->len);
	buf_free(&path);
	b->len = 0;
	return ok;
}

/* The directories a report writes in (and ninja's log for report.ninja):
 * none may be, or pass, a link. */
static const char *const report_dirs[] = {"report", "report/csv", "report/runs", "report/plots", ".kunai",
                                          ".kunai/report", NULL};

/* report/summary.json, or (p not NULL) report/junit.xml, written as made. */
static bool
stream_out(const char *root, const char *name, const struct summary *s, const struct plan *p)
{
	struct file_out o;
	struct buf path = {0};

	buf_printf(&path, "%s/report/%s", root, name);
	if (file_out_open(&o, path.data)) {
		if (p)
			junit_write(root, p, s, &o);
		else
			json_write_summary(s, &o);
	}
	buf_free(&path);
	return file_out_close(&o);
}

int
cmd_report(int argc, char **argv)
{
	struct arena a = {0}, one = {0};
	struct strtab strs = {0};
	struct csv *csv;
	struct stat *seen = NULL;
	struct report_runs *runs;
	struct plan p;
	struct summary s = {0};
	struct fleet fleet;
	struct buf b = {0};
	const char *root = NULL;
	struct timespec plan_t, stamp_t, latest = {0, 0};
	bool check = false, ok, plan_known = false, cloudai, quick, html = true, html_only = false;
	struct stamp_result res = {0};
	const char **hist = xcalloc((size_t)argc + 1, sizeof(*hist));
	size_t i, j, n_hist = 0;
	struct history_result hr = {0};
	struct stat st;
	int rc = 1, lockfd = -1;

	for (i = 1; i < (size_t)argc; i++) {
		if (strcmp(argv[i], "--check") == 0)
			check = true;
		else if (strcmp(argv[i], "--no-html") == 0)
			html = false;
		else if (strcmp(argv[i], "--html-only") == 0)
			html_only = true;
		else if (strcmp(argv[i], "--history") == 0) {
			/* every argument after it that is not an option */
			while (i + 1 < (size_t)argc && argv[i + 1][0] != '-')
				hist[n_hist++] = argv[++i];
			if (!n_hist) {
				free(hist);
				return report_usage("%s", "--history needs at least one DIR");
			}
		}
		else if (argv[i][0] == '-' && argv[i][1]) {
			free(hist);
			return report_usage("unknown option '%s'", argv[i]);
		} else if (root) {
			free(hist);
			return report_usage("more than one BUILD_DIR ('%s')", argv[i]);
		}
		else
			root = argv[i];
	}
	if (!root) {
		free(hist);
		return report_usage("%s", "missing BUILD_DIR");
	}
	if (html_only) {
		/* ninja's html edge: after the plots, from summary.json */
		if ((lockfd = lock_take(root, false, "report")) < 0 || !beneath_dirs_ok(root, report_dirs))
			goto done;
		buf_printf(&b, "%s/report/summary.json", root);
		ok = json_load_summary(&a, b.data, &s);
		b.len = 0;
		buf_printf(&b, "%s/kunai.json", root);
		/* the verdict again, from the same results: the same one */
		s.root = root;
		if (ok && json_load_plan(&a, b.data, &p))
			fleet_grade(&a, &p, &s, &fleet);
		rc = ok && html_write(root, &s) ? 0 : 1;
		goto done;
	}
	/* shared with the runner and other reports, not under a kunai gen;
	 * taken (and an interrupted gen undone) before kunai.json is read, so
	 * the plan read is the one the build dir holds. A dir with no
	 * kunai.json gets no .kunai made in it: the load below says why. */
	buf_printf(&b, "%s/kunai.json", root);
	/* a results dir of CloudAI's has none: its test-run.toml files are the plan */
	cloudai = access(b.data, F_OK) != 0 && cloudai_results_is(root);
	if (stat(b.data, &st) == 0 && (lockfd = lock_take(root, false, "report")) < 0) {
		ok = false;
		goto done;
	}
	/* (what it lacks, or what is wrong with it, told by the loader) */
	if (!cloudai && !(plan_known = report_mtime(b.data, &plan_t)) && !json_load_plan(&a, b.data, &p)) {
		ok = false;
		goto done;
	}
	b.len = 0;
	if (!beneath_dirs_ok(root, report_dirs)) {
		ok = false;
		goto done;
	}
	/* nothing changed since the last complete report (no report.json newer
	 * than its stamp or older than what it was graded from, kunai.json
	 * older): its files stand, and its stamp has the lines to print (what
	 * a run wrote reaches the terminal with no control byte: term_text) */
	quick = !n_hist && plan_known && report_stamp_read(root, &stamp_t, &res) && report_older(plan_t, stamp_t);
	if (quick && !html && report_fresh(root, &res, plan_t, stamp_t)) {
		/* its run dirs are kunai.json's, which is older: not even read */
		printf("kunai: %s\nkunai: %s (%s/report)\n", term_text(res.paths), term_text(res.counts), root);
		if (res.note)
			printf("kunai: %s\n", term_text(res.note));
		printf("kunai: %s\n", term_text(res.verdict));
		rc = check && res.fail ? 1 : 0;
		goto done;
	}
	buf_printf(&b, "%s/kunai.json", root);
	ok = cloudai ? cloudai_results_plan(&a, root, &p) : json_load_plan(&a, b.data, &p);
	b.len = 0;
	if (!ok)
		goto done;
	s.scenario = p.scenario;
	s.system = p.system;
	s.root = root;
	s.n_runs = p.n_runs;
	s.runs = arena_alloc(&a, (p.n_runs + 1) * sizeof(*s.runs));
	/* one run at a time: graded or read in a scratch arena, its series
	 * spooled to the CSV files, and only the rest kept */
	csv = csv_begin();
	seen = xcalloc(p.n_runs + 1, sizeof(*seen));
	runs = report_runs_open(root);
	/* nothing changed since the last complete report (no run graded, no
	 * report.json or kunai.json newer than its stamp): its files stand, and
	 * only the lines below are made again */
	for (i = 0; i < p.n_runs; i++) {
		struct run_report full;
		bool changed;
		ok = collect(&one, root, runs, &p, &p.runs[i], plan_known ? &plan_t : NULL, quick ? &stamp_t : NULL, !quick,
		             &full, &changed, &latest, &seen[i]) && ok;
		if (quick && changed) {
			/* the CSV rows of the runs so far, read again with their series */
			quick = false;
			for (j = 0; j <= i; j++) {
				struct run_report prev;
				struct arena t = {0};
				bool unused;
				if (collect(&t, root, runs, &p, &p.runs[j], &plan_t, NULL, true, &prev, &unused, &latest, &seen[j]))
					csv_add(csv, j, &prev);
				arena_free(&t);
			}
		}
		else if (!quick)
			csv_add(csv, i, &full);
		compact(&a, &strs, &p.runs[i], &full, &s.runs[i]);
		arena_free(&one);
	}
	strtab_free(&strs);
	report_runs_close(runs);
	report_mark_skipped(&a, &p, s.runs);
	/* peers: suspect runs, and the verdict per node (counts included) */
	fleet_grade(&a, &p, &s, &fleet);
	summary_note(&s, &b);
	s.note = b.len ? arena_strdup(&a, b.data) : NULL;
	b.len = 0;

	/* what the stamp keeps: the lines below */
	report_stamp_free(&res);
	summary_paths(&s, &b);
	res.paths = xstrdup(b.data);
	b.len = 0;
	/* the campaign's status with the counts (DESIGN 18) */
	campaign_line(&s, &b);
	res.counts = xstrdup(b.data);
	b.len = 0;
	fleet_verdict_line(&fleet, &b);
	res.verdict = xstrdup(b.data);
	b.len = 0;
	res.note = s.note ? xstrdup(s.note) : NULL;
	res.fail = !summary_all_ok(&s) || fleet.n_drain;
	if (quick)
		csv_free(csv);
	else {
		ok = stream_out(root, "summary.json", &s, NULL) && ok;
		ok = stream_out(root, "junit.xml", &s, &p) && ok;
		markdown_summary(&s, &b);
		ok = write_out(root, "summary.md", &b) && ok;
		ok = csv_finish(csv, root, &s) && ok;
		/* after every output: a report cut short leaves the old stamp */
		ok = ok && report_stamp_write(root, &p, seen, latest, &res);
	}
	if (n_hist) {
		history_check(&s, hist, n_hist, 0.05, &b, &hr);
		ok = write_out(root, "history.md", &b) && ok;
	}
	if (html)
		ok = html_write(root, &s) && ok;
	if (!ok)
		goto done;
	printf("kunai: %s\nkunai: %s (%s/report)\n", term_text(res.paths), term_text(res.counts), root);
	if (s.note)
		printf("kunai: %s\n", term_text((char *)s.note));
	if (n_hist && hr.unreadable)
		printf("kunai: history: %zu of %zu source%s could not be read (%s/report/history.md)\n", hr.unreadable,
		       n_hist, n_hist == 1 ? "" : "s", root);
	if (n_hist && !hr.checked)
		printf("kunai: history: %zu of %d campaigns needed; not checked (%s/report/history.md)\n", hr.campaigns,
		       hr.needed, root);
	else if (n_hist)
		printf("kunai: %zu value%s outside %s history (%s/report/history.md)\n", hr.flagged,
		       hr.flagged == 1 ? "" : "s", hr.flagged == 1 ? "its" : "their", root);
	printf("kunai: %s\n", term_text(res.verdict));
	/* a history that could not be judged is no pass; a node to drain neither */
	rc = check && (res.fail || (n_hist && (hr.flagged || hr.unreadable || !hr.checked))) ? 1 : 0;
done:
	report_stamp_free(&res);
	if (lockfd >= 0)
		close(lockfd);
	free(seen);
	free(hist);
	buf_free(&b);
	arena_free(&a);
	return rc;
}
