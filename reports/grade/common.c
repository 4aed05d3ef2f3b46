/* grade/common.c: helpers of every grader: values with their location,
 * outcomes, arguments and line splitting. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

void
grade_demote(struct run_report *out, enum outcome o, const char *reason)
{
	if (out->outcome == OUTCOME_PASSED || out->ran_skipped) {
		out->outcome = o;
		out->reason = reason;
		out->ran_skipped = false;
	}
}

struct metric *
metric_add(struct arena *a, struct run_report *out, const char *name, const char *unit, double v)
{
	struct metric *m;

	if (!isfinite(v)) {
		grade_demote(out, OUTCOME_FAILED, arena_printf(a, "%s is %s in the output", name, isnan(v) ? "NaN" : "infinite"));
		return NULL;
	}
	out->metrics = arena_reserve(a, out->metrics, out->n_metrics, out->n_metrics + 1, &out->cap_metrics,
	                             sizeof(*out->metrics));
	m = &out->metrics[out->n_metrics++];
	memset(m, 0, sizeof(*m));
	m->name = name;
	m->unit = unit;
	m->value = v;
	m->gpu = -1;
	m->x = -1;
	m->node = out->nodes && !strchr(out->nodes, ',') ? out->nodes : NULL;
	if (out->path && strcmp(out->path, "cpu") == 0)
		m->gpu_model = "cpu";
	return m;
}

const char *
grade_arg(const struct plan_run *r, const char *key)
{
	size_t i;

	for (i = 0; r && i < r->n_args; i++)
		if (strcmp(r->args[i].key, key) == 0)
			return r->args[i].value;
	return NULL;
}

void
grade_lines(const char *text, size_t len, void (*fn)(void *ctx, const char *line, size_t n, int task),
            void *ctx)
{
	const char *p = text, *end = text + len, *eol, *q;
	int task;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		task = -1;
		/* srun --label: "N: " */
		for (q = p; q < eol && q - p < 7 && *q >= '0' && *q <= '9'; q++)
			;
		if (q > p && q + 1 < eol && q[0] == ':' && q[1] == ' ') {
			task = 0;
			for (; p < q; p++)
				task = task * 10 + (*p - '0');
			p = q + 2;
		}
		q = eol;
		if (q > p && q[-1] == '\r')
			q--;
		fn(ctx, p, (size_t)(q - p), task);
		if (eol == end)
			break;
	}
}

double
grade_mean(const double *v, size_t n)
{
	double t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += v[i];
	return n ? t / (double)n : 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double
grade_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
