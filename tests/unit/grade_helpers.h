/* grade_helpers.h: what the grader unit tests share (static, one copy per test). */
#ifndef KUNAI_GRADE_HELPERS_H
#define KUNAI_GRADE_HELPERS_H

#include <math.h>
#include <string.h>

#include "reports/results/results.h"
#include "tap.h"
#include "gen/base/util.h"

static inline bool
near(double a, double b)
{
	return fabs(a - b) < 1e-9 * (fabs(a) + fabs(b) + 1);
}

static inline void
put(const char *dir, const char *name, const char *text)
{
	struct buf p = {0};

	buf_printf(&p, "%s/%s", dir, name);
	ok(write_file_atomic(p.data, text, strlen(text)), "fabricate %s", name);
	buf_free(&p);
}

static inline double
metric(const struct run_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0)
			return r->metrics[i].value;
	return -1;
}

static inline const struct metric *
metric_of(const struct run_report *r, const char *name, const char *node)
{
	size_t i;

	for (i = 0; i < r->n_metrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0 &&
		    (node ? r->metrics[i].node && strcmp(r->metrics[i].node, node) == 0 : !r->metrics[i].node))
			return &r->metrics[i];
	return NULL;
}

#endif
