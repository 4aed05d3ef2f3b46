/* grade/refs.c: values against the test's references (ReFrame's model,
 * DESIGN 13): the most specific reference of a metric wins (the system's
 * name, else a GPU model the value was measured on, else the one for every
 * system); a value with none is "no reference", never a pass or a failure. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"
#include "reports/results/format.h"

/* Is needle in hay, ignoring case? */
static bool
icontains(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i, k;

	for (i = 0; hay[i]; i++) {
		for (k = 0; k < n && hay[i + k] && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]); k++)
			;
		if (k == n)
			return true;
	}
	return n == 0;
}

static const struct plan_ref *
pick(const struct plan_test *t, const char *sys, const struct metric *m)
{
	const struct plan_ref *best = NULL;
	int rank = 0, r;
	size_t i;

	for (i = 0; i < t->n_refs; i++) {
		const struct plan_ref *f = &t->refs[i];
		if (strcmp(f->metric, m->name) != 0)
			continue;
		/* a ranged reference is for values at a message size in its range */
		if (f->sized && (m->x < 0 || !m->x_name || strcmp(m->x_name, "bytes") != 0 || m->x < f->min_size ||
		                 m->x > f->max_size))
			continue;
		if (!f->scope)
			r = 1;
		else if (sys && strcmp(f->scope, sys) == 0)
			r = 3;
		else if (m->gpu_model && icontains(m->gpu_model, f->scope))
			r = 2;
		else
			continue;
		if (r > rank)
			best = f, rank = r;
	}
	return best;
}

/* "bf16_tflops on node-003 GPU 5 (NVIDIA H100)" */
static void
where(struct buf *b, const struct metric *m)
{
	buf_puts(b, m->name);
	if (m->x >= 0 && m->x_name && strcmp(m->x_name, "bytes") == 0) {
		buf_puts(b, " at ");
		fmt_bytes(b, m->x);
	} else if (m->x >= 0) {
		buf_puts(b, " at ");
		if (m->x_name)
			buf_printf(b, "%s ", m->x_name);
		fmt_num(b, m->x);
	}
	if (m->node)
		buf_printf(b, " on %s", m->node);
	if (m->gpu >= 0)
		buf_printf(b, " GPU %d", m->gpu);
	if (m->gpu_model && strcmp(m->gpu_model, "cpu") == 0)
		buf_puts(b, " (CPU path)");
	else if (m->gpu_model)
		buf_printf(b, " (%s)", m->gpu_model);
}

void
refs_apply(struct arena *a, const struct plan_test *t, const char *sys, struct run_report *out)
{
	const struct metric *worst = NULL;
	double worst_dev = -1, lo, hi, dev;
	size_t i, misses = 0;
	struct buf b = {0};

	for (i = 0; t && i < out->n_metrics; i++) {
		struct metric *m = &out->metrics[i];
		const struct plan_ref *f = pick(t, sys, m);
		if (!f)
			continue;
		m->ref = f;
		lo = isinf(f->lower) ? -INFINITY : f->value + fabs(f->value) * f->lower;
		hi = isinf(f->upper) ? INFINITY : f->value + fabs(f->value) * f->upper;
		m->check = m->value < lo ? CHECK_LOW : m->value > hi ? CHECK_HIGH : CHECK_OK;
		if (m->check == CHECK_OK)
			continue;
		misses++;
		dev = f->value != 0 ? fabs(m->value - f->value) / fabs(f->value) : fabs(m->value);
		if (dev > worst_dev)
			worst = m, worst_dev = dev;
	}
	if (!worst)
		return;
	where(&b, worst);
	buf_puts(&b, ": ");
	fmt_value(&b, worst->value, worst->unit);
	buf_puts(&b, " is ");
	if (worst->ref->value != 0)
		buf_printf(&b, "%.0f%% %s", 100 * worst_dev, worst->check == CHECK_LOW ? "below" : "above");
	else
		buf_puts(&b, worst->check == CHECK_LOW ? "below" : "above");
	buf_puts(&b, " the reference ");
	fmt_value(&b, worst->ref->value, worst->unit);
	buf_puts(&b, " (tolerance ");
	fmt_percent(&b, fabs(worst->check == CHECK_LOW ? worst->ref->lower : worst->ref->upper));
	buf_putc(&b, ')');
	if (misses > 1)
		buf_printf(&b, "; %zu values outside their reference in all", misses);
	grade_demote(out, OUTCOME_PERF_FAILED, arena_strdup(a, b.data));
	buf_free(&b);
}
