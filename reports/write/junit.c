/* write/junit.c: report/junit.xml, for CI systems (Jenkins, GitLab, GitHub
 * actions) that read JUnit: one <testsuite> per test id, one <testcase> per
 * run. Run output is arbitrary bytes, so everything that reaches the file
 * goes through xml_escape and the result is well-formed whatever the runs
 * printed. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/results.h"
#include "reports/write/junit.h"
#include "reports/results/format.h"
#include "reports/results/campaign.h"
#include "reports/fleet/fleet.h"
#include "gen/base/util.h"

enum { TAIL_LINES = 50, TAIL_BYTES = 64 * 1024 };

enum junit_kind { JUNIT_PASS, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED };

/* DESIGN 12 in JUnit's terms: the test's fault, the infrastructure's, or
 * nothing to judge. */
static enum junit_kind
kind_of(enum outcome o)
{
	switch (o) {
	case OUTCOME_PASSED:
		return JUNIT_PASS;
	case OUTCOME_FAILED:
	case OUTCOME_PERF_FAILED:
	case OUTCOME_SUSPECT:
	case OUTCOME_TIMEOUT:
		return JUNIT_FAILURE;
	case OUTCOME_CANCELLED:
	case OUTCOME_NODE_FAIL:
	case OUTCOME_INFRA:
		return JUNIT_ERROR;
	default:
		return JUNIT_SKIPPED;
	}
}


static void
attr(struct buf *out, const char *name, const char *value)
{
	buf_printf(out, " %s=\"", name);
	xml_escape(out, value ? value : "", value ? strlen(value) : 0, true);
	buf_putc(out, '"');
}


static void
output(struct buf *out, const char *tag, const char *root, const char *dir, const char *file)
{
	struct buf path = {0}, text = {0};

	buf_printf(&path, "%s/%s/%s", root, dir, file);
	tail_lines(path.data, TAIL_LINES, TAIL_BYTES, &text);
	if (text.len) {
		buf_printf(out, "      <%s>", tag);
		xml_escape(out, text.data, text.len, false);
		buf_printf(out, "</%s>\n", tag);
	}
	buf_free(&path);
	buf_free(&text);
}

static void
testcase(struct buf *out, const char *root, const struct run_report *r)
{
	static const char *const tags[] = {NULL, "failure", "error", "skipped"};
	enum junit_kind k = kind_of(r->outcome);
	struct buf name = {0}, body = {0};

	buf_printf(&name, "%s iteration %d", r->id, r->iteration);
	if (r->step > 0)
		buf_printf(&name, " step %d", r->step);
	buf_puts(out, "    <testcase");
	attr(out, "name", name.data);
	attr(out, "classname", r->id);
	buf_printf(out, " time=\"%.3f\">\n", r->duration_s > 0 ? r->duration_s : 0.0);
	if (k != JUNIT_PASS) {
		buf_printf(out, "      <%s", tags[k]);
		attr(out, "type", outcome_name(r->outcome));
		attr(out, "message", r->reason ? r->reason : outcome_name(r->outcome));
		if (k == JUNIT_SKIPPED) {
			buf_puts(out, "/>\n");
		} else {
			buf_printf(&body, "outcome: %s\n", outcome_name(r->outcome));
			if (r->reason)
				buf_printf(&body, "reason: %s\n", r->reason);
			if (r->has_exit_code)
				buf_printf(&body, "exit code: %d\n", r->exit_code);
			if (r->job_id)
				buf_printf(&body, "job: %s\n", r->job_id);
			buf_printf(&body, "dir: %s", r->dir);
			buf_putc(out, '>');
			xml_escape(out, body.data, body.len, false);
			buf_printf(out, "</%s>\n", tags[k]);
		}
	}
	output(out, "system-out", root, r->dir, "stdout.txt");
	output(out, "system-err", root, r->dir, "stderr.txt");
	buf_puts(out, "    </testcase>\n");
	buf_free(&name);
	buf_free(&body);
}

/* tests/failures/errors/skipped/time of a set of runs. */
static void
totals(struct buf *out, const struct run_report *const *runs, size_t n, size_t drained)
{
	size_t k[4] = {0}, i;
	double t = 0;

	for (i = 0; i < n; i++) {
		k[kind_of(runs[i]->outcome)]++;
		if (runs[i]->duration_s > 0)
			t += runs[i]->duration_s;
	}
	buf_printf(out, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"", n + drained,
	           k[JUNIT_FAILURE] + drained, k[JUNIT_ERROR], k[JUNIT_SKIPPED], t);
}

void
junit_write(const char *root, const struct plan *p, const struct summary *s, struct file_out *o)
{
	struct buf *out = &o->b;
	const struct run_report **runs = xcalloc(s->n_runs + 1, sizeof(*runs));
	enum campaign_status status = campaign_status(s);
	size_t t, i;

	for (i = 0; i < s->n_runs; i++)
		runs[i] = &s->runs[i];
	buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	attr(out, "name", s->scenario);
	/* the fleet verdict's suite: a failure per drained node */
	totals(out, runs, s->n_runs, s->fleet ? s->fleet->n_drain : 0);
	buf_puts(out, ">\n");
	/* s->runs[i] is the report of p->runs[i]: group them by test, in order */
	for (t = 0; t < p->n_tests; t++) {
		const struct plan_test *pt = &p->tests[t];
		for (i = 0; i < pt->n_runs; i++)
			runs[i] = &s->runs[pt->runs[i]];
		buf_puts(out, "  <testsuite");
		attr(out, "name", pt->id);
		totals(out, runs, pt->n_runs, 0);
		buf_puts(out, pt->n_runs ? ">\n" : "/>\n");
		if (!pt->n_runs)
			continue;
		/* the campaign's one status (DESIGN 18), and what a pass means
		 * here (the CPU path, no reference) */
		buf_printf(out, "    <properties>\n      <property name=\"kunai.status\" value=\"%s\"/>\n",
		           campaign_name(status));
		if (s->note) {
			buf_puts(out, "      <property name=\"kunai.note\"");
			attr(out, "value", s->note);
			buf_puts(out, "/>\n");
		}
		buf_puts(out, "    </properties>\n");
		for (i = 0; i < pt->n_runs; i++) {
			testcase(out, root, runs[i]);
			file_out_flush(o, false);
		}
		buf_puts(out, "  </testsuite>\n");
	}
	if (s->fleet)
		fleet_junit(s->fleet, out);
	buf_puts(out, "</testsuites>\n");
	free(runs);
}
