/* results/summary.c: what a campaign's graded runs say together (see
 * summary.h): the runs that can no longer start once what they wait for
 * failed, whether every run passed, and what a pass means here (GPU or
 * CPU path, references checked or not). */
#include <stdint.h>
#include <string.h>

#include "reports/results/results.h"
#include "reports/results/summary.h"
#include "gen/base/util.h"

/* Does a predecessor's result keep its dependants from starting?
 * start_post_init (start_only) needs only that it started. */
static bool
blocks(const struct run_report *r, bool start_only)
{
	/* a program that ran and skipped (health without nvidia-smi) ended
	 * well: what comes after it runs */
	if (r->outcome == OUTCOME_SKIPPED)
		return !r->ran_skipped;
	if (!outcome_is_failure(r->outcome))
		return false;
	return !start_only || !r->start_time;
}

/* The run that keeps run i from starting, or SIZE_MAX: the previous
 * iteration of its test (every sweep point of it), every run of a
 * start_post_comp target, the first run of a start_post_init target. */
static size_t
blocker(const struct plan *p, const struct run_report *reports, size_t i, bool *start_only)
{
	const struct plan_run *r = &p->runs[i];
	const struct plan_test *t = &p->tests[r->test];
	size_t j, k;

	*start_only = false;
	for (k = 0; r->iteration > 0 && k < t->n_runs; k++) {
		size_t o = t->runs[k];
		if (p->runs[o].iteration == r->iteration - 1 && blocks(&reports[o], false))
			return o;
	}
	for (j = 0; j < t->n_deps; j++) {
		const struct plan_test *d = &p->tests[t->deps[j].test];
		if (t->deps[j].type == PLAN_AFTER_COMP) {
			for (k = 0; k < d->n_runs; k++)
				if (blocks(&reports[d->runs[k]], false))
					return d->runs[k];
		} else if (t->deps[j].type == PLAN_AFTER_START && d->n_runs &&
		           blocks(&reports[d->runs[0]], true)) {
			*start_only = true;
			return d->runs[0];
		}
	}
	return SIZE_MAX;
}

void
report_mark_skipped(struct arena *a, const struct plan *p, struct run_report *reports)
{
	bool changed = true, start_only;
	size_t i, b;

	/* a skip can make later runs skipped, and dependencies may point
	 * forward in the list: repeat until nothing changes (gen rejects
	 * cycles; a hand-made one only ends the loop early) */
	while (changed) {
		changed = false;
		for (i = 0; i < p->n_runs; i++) {
			const struct run_report *o;
			if (reports[i].outcome != OUTCOME_NOT_RUN)
				continue;
			b = blocker(p, reports, i, &start_only);
			if (b == SIZE_MAX || b == i)
				continue;
			o = &reports[b];
			reports[i].outcome = OUTCOME_SKIPPED;
			reports[i].reason = arena_printf(a, "not started: %s iteration %d%s%s did not %s (%s)", o->id,
			                         o->iteration, o->step > 0 ? " step " : "",
			                         o->step > 0 ? arena_printf(a, "%d", o->step) : "",
			                         start_only ? "start" : "pass", outcome_name(o->outcome));
			changed = true;
		}
	}
}

bool
summary_all_ok(const struct summary *s)
{
	size_t i;

	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].outcome != OUTCOME_PASSED && !s->runs[i].ran_skipped)
			return false;
	return true;
}

void
summary_paths(const struct summary *s, struct buf *out)
{
	size_t gpu = 0, cpu = 0, i;

	for (i = 0; i < s->n_runs; i++) {
		if (!s->runs[i].path)
			continue;
		if (strcmp(s->runs[i].path, "gpu") == 0)
			gpu++;
		else
			cpu++;
	}
	if (!gpu && !cpu)
		buf_puts(out, "no run measured a GPU or CPU path");
	else if (!cpu)
		buf_printf(out, "GPU path: all %zu measured run%s ran on GPUs", gpu, gpu == 1 ? "" : "s");
	else if (!gpu)
		buf_printf(out, "CPU path: no GPU was used (%zu run%s measured on the CPU)", cpu, cpu == 1 ? "" : "s");
	else
		buf_printf(out, "mixed: %zu run%s on GPUs, %zu on the CPU path (no GPU)", gpu, gpu == 1 ? "" : "s", cpu);
}

void
summary_note(const struct summary *s, struct buf *out)
{
	size_t gpu = 0, cpu = 0, passed = 0, unref = 0, i, j;
	size_t start = out->len;

	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		bool checked = false;
		if (r->path && strcmp(r->path, "gpu") == 0)
			gpu++;
		else if (r->path)
			cpu++;
		if (r->outcome != OUTCOME_PASSED)
			continue;
		passed++;
		for (j = 0; j < r->n_metrics && !checked; j++)
			checked = r->metrics[j].check != CHECK_NONE;
		unref += !checked;
	}
	if (cpu && !gpu)
		buf_puts(out, "CPU path: no GPU was used");
	else if (cpu)
		buf_printf(out, "CPU path: %zu run%s measured on the CPU, no GPU", cpu, cpu == 1 ? "" : "s");
	if (unref) {
		buf_puts(out, out->len > start ? "; " : "");
		buf_puts(out, "passed = ran and gave correct results; ");
		if (unref == passed)
			buf_puts(out, "no performance reference was checked");
		else
			buf_printf(out, "%zu of %zu passed runs had no performance reference", unref, passed);
	}
}
