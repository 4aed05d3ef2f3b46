/* grade/train.c: step time, TFLOP/s per GPU and loss from the logs of the
 * training workloads, with CloudAI's rules for which steps count
 * (report_generation_strategy.py of each): NeMoLauncher's
 * "train_step_timing in s: [..]" list (the last 20 of more than 100; the
 * median), NeMo 2.0's per-step "train_step_timing in s: X" (global steps
 * 80-100 when there are 20 of them, else all but the first; the mean),
 * Megatron-Bridge's "Step Time : X s ... GPU utilization: Y TFLOP/s/GPU"
 * and Megatron-LM's "elapsed time per iteration (ms): X ... throughput per
 * GPU (TFLOP/s/GPU): Y" (the last 10; the mean). The loss is the last
 * "reduced_train_loss" (NeMo) or "lm loss" (Megatron) value seen. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/parse.h"
#include "reports/grade/grade.h"
#include "gen/base/util.h"

/* Finds pat in [p, end), ignoring ASCII case; NULL when absent. */
static const char *
ci_find(const char *p, const char *end, const char *pat)
{
	size_t n = strlen(pat), i;

	for (; p + n <= end; p++) {
		for (i = 0; i < n && tolower((unsigned char)p[i]) == tolower((unsigned char)pat[i]); i++)
			;
		if (i == n)
			return p;
	}
	return NULL;
}

/* The number after pat (and blanks, ':' or '='), or false. */
static bool
number_after(const char *p, const char *end, const char *pat, double *v)
{
	const char *q = ci_find(p, end, pat);
	char *e;

	if (!q)
		return false;
	q += strlen(pat);
	while (q < end && (*q == ' ' || *q == ':' || *q == '=' || *q == '\t'))
		q++;
	if (q >= end || !(isdigit((unsigned char)*q) || *q == '.' || *q == '-'))
		return false;
	*v = strtod(q, &e);
	return e > q && e <= end;
}

struct series {
	double *v;
	size_t n, cap;
};

static void
push(struct series *s, double x)
{
	s->v = xreserve(s->v, s->n + 1, &s->cap, sizeof(*s->v));
	s->v[s->n++] = x;
}

/* NeMoLauncher: the first line with the whole list. */
static void
nemo_launcher(const char *p, const char *end, struct series *t)
{
	const char *q;

	if (!(q = ci_find(p, end, "train_step_timing in s: [")))
		return;
	q += strlen("train_step_timing in s: [");
	while (q < end && *q != ']') {
		char *e;
		double x = strtod(q, &e);
		if (e == q)
			break;
		push(t, x);
		q = e;
		while (q < end && (*q == ',' || *q == ' '))
			q++;
	}
}

bool
train_parse(enum train_log kind, const char *text, size_t len, struct train_result *out)
{
	const char *p = text, *end = text + len, *nl;
	struct series t = {0}, f = {0}, late = {0};
	size_t first = 0;
	double x, y;

	memset(out, 0, sizeof(*out));
	if (kind == TRAIN_NEMO_LAUNCHER)
		nemo_launcher(p, end, &t);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (number_after(p, nl, "reduced_train_loss", &x) || number_after(p, nl, "lm loss", &x)) {
			out->loss = x;
			out->has_loss = true;
		}
		switch (kind) {
		case TRAIN_NEMO_LAUNCHER:
			break;
		case TRAIN_NEMO_RUN:
			if (!ci_find(p, nl, "train_step_timing in s: [") &&
			    number_after(p, nl, "train_step_timing in s:", &x)) {
				push(&t, x);
				if (number_after(p, nl, "global_step:", &y) && y >= 80 && y <= 100)
					push(&late, x);
			}
			break;
		case TRAIN_MBRIDGE:
			if (number_after(p, nl, "step time", &x) && ci_find(p, nl, "TFLOP/s/GPU") &&
			    number_after(p, nl, "GPU utilization", &y)) {
				push(&t, x);
				push(&f, y);
			}
			break;
		case TRAIN_MEGATRON:
			if (number_after(p, nl, "elapsed time per iteration (ms)", &x) &&
			    number_after(p, nl, "throughput per GPU (TFLOP/s/GPU)", &y)) {
				push(&t, x / 1000.0);
				push(&f, y);
			}
			break;
		}
		if (nl == end)
			break;
	}
	out->steps = t.n;
	switch (kind) {
	case TRAIN_NEMO_LAUNCHER:
		first = t.n > 100 ? t.n - 20 : 0;
		if (t.n)
			out->step_time = grade_median(t.v + first, t.n - first);
		break;
	case TRAIN_NEMO_RUN:
		if (late.n >= 20)
			out->step_time = grade_mean(late.v, late.n);
		else if (t.n > 1)
			out->step_time = grade_mean(t.v + 1, t.n - 1);
		else if (t.n)
			out->step_time = t.v[0];
		break;
	case TRAIN_MBRIDGE:
	case TRAIN_MEGATRON:
		/* no step lines: t.v is NULL, and NULL + 0 is undefined */
		first = t.n > 10 ? t.n - 10 : 0;
		if (t.n)
			out->step_time = grade_mean(t.v + first, t.n - first);
		if (f.n > first)
			out->tflops_per_gpu = grade_mean(f.v + first, f.n - first);
		out->has_tflops = f.n > 0;
		break;
	}
	out->has_step_time = t.n > 0;
	free(t.v);
	free(f.v);
	free(late.v);
	return out->has_step_time || out->has_loss;
}

static bool
has_text(const char *text, size_t len, const char *w)
{
	size_t n = strlen(w), i;

	for (i = 0; i + n <= len; i++)
		if (memcmp(text + i, w, n) == 0)
			return true;
	return false;
}

/* Training logs: step time, steps, tokens/s (when the run's arguments give
 * the global batch and sequence length), TFLOP/s per GPU and the loss. */
static void
grade_train(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out,
            enum train_log kind, const char *gbs_key, const char *seq_key)
{
	const char *gbs = grade_arg(r, gbs_key), *seq = grade_arg(r, seq_key);
	struct train_result t;

	if (!train_parse(kind, text, len, &t))
		return;
	if (t.has_step_time) {
		metric_add(a, out, "step_time_s", "s", t.step_time);
		metric_add(a, out, "steps", "count", (double)t.steps);
		if (gbs && seq && t.step_time > 0 && atof(gbs) > 0 && atof(seq) > 0)
			metric_add(a, out, "tokens_per_s", "tokens/s", atof(gbs) * atof(seq) / t.step_time);
	}
	if (t.has_tflops)
		metric_add(a, out, "tflops_per_gpu", "TFLOP/s", t.tflops_per_gpu);
	if (t.has_loss)
		metric_add(a, out, "train_loss", "loss", t.loss);
}

void
grade_nemo_launcher(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                    struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_NEMO_LAUNCHER, "training.model.global_batch_size",
	            "training.model.encoder_seq_length");
}

void
grade_nemo_run(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
               struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_NEMO_RUN, "data.global_batch_size", "data.seq_length");
}

void
grade_megatron_bridge(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                      struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_MBRIDGE, "gb", "seq_length");
}

/* Megatron-LM: iteration metrics; CloudAI's success check wants one
 * iteration line or a validation loss. */
void
grade_megatron_run(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                   struct run_report *out)
{
	struct train_result t;

	grade_train(a, r, text, len, out, TRAIN_MEGATRON, "global_batch_size", "seq_length");
	if ((!train_parse(TRAIN_MEGATRON, text, len, &t) || !t.has_step_time) &&
	    !has_text(text, len, "validation loss at iteration"))
		grade_demote(out, OUTCOME_FAILED, "stdout.txt has no Megatron iteration metrics and no validation loss");
}
