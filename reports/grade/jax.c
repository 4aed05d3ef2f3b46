/* grade/jax.c: JaxToolbox (GPT, Grok, Nemotron). The batch script copies
 * the logs of both stages to stdout, each after a line "==> NAME <==":
 * profile_stderr_<rank>.txt (the profiling stage) and
 * error-<job>-<node>-<task>.txt (the run's stderr per task). CloudAI's
 * success check: with PGLE, a profile log that says "[PAX STATUS]: E2E time:
 * Elapsed time for " and shows none of the known errors; at least one error
 * log, each saying "E2E time: Elapsed time for" without a known error. Its
 * report: "[PAX STATUS]: train_step() took X seconds" of each task log
 * after its first 10 steps; kunai reports their mean, median, min, max and
 * standard deviation over the run, and the mean per node (named "node N", N the index
 * in the job that the file name gives). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

struct section {
	const char *name, *text; /* name: the file's; text not NUL-terminated */
	size_t name_len, len;
};

static const char *
find(const char *p, size_t n, const char *pat)
{
	size_t m = strlen(pat), i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(p + i, pat, m) == 0)
			return p + i;
	return NULL;
}

/* pyxis:\s+mktemp: failed to create directory via template */
static bool
pyxis_mktemp(const char *p, size_t n)
{
	const char *q = p, *end = p + n;

	while ((q = find(q, (size_t)(end - q), "pyxis:"))) {
		const char *s = q + 6;
		while (s < end && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++;
		if (s > q + 6 && find(s, (size_t)(end - s), "mktemp: failed to create directory via template") == s)
			return true;
		q += 6;
	}
	return false;
}

/* CloudAI's common errors, with its advice shortened. */
static const char *
common_error(const struct section *s)
{
	if (find(s->text, s->len, "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"))
		return "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected (check the GPU resources and "
		       "CUDA_VISIBLE_DEVICES)";
	if (find(s->text, s->len, "Terminating process because the coordinator detected missing heartbeats"))
		return "the coordinator detected missing heartbeats: another task died, or the nodes cannot "
		       "reach each other by host name and port";
	if (find(s->text, s->len, "NCCL operation ncclGroupEnd() failed"))
		return "NCCL operation ncclGroupEnd() failed: unhandled system error (does the NCCL test pass? "
		       "NCCL_DEBUG=INFO says more)";
	if (pyxis_mktemp(s->text, s->len))
		return "pyxis: mktemp: failed to create directory via template (not enough disk to cache the image)";
	return NULL;
}

static bool
prefixed(const struct section *s, const char *p)
{
	size_t n = strlen(p);

	return s->name_len >= n && strncmp(s->name, p, n) == 0;
}

/* The sections of text, in order. */
static size_t
sections(const char *text, size_t len, struct section *out, size_t max)
{
	const char *p = text, *end = text + len, *nl;
	size_t n = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl - p > 8 && strncmp(p, "==> ", 4) == 0 && strncmp(nl - 4, " <==", 4) == 0) {
			if (n && n <= max)
				out[n - 1].len = (size_t)(p - out[n - 1].text);
			if (n < max) {
				out[n].name = p + 4;
				out[n].name_len = (size_t)(nl - 4 - p - 4);
				out[n].text = nl < end ? nl + 1 : end;
				out[n].len = 0;
			}
			n++;
		}
		if (nl == end)
			break;
	}
	if (n && n <= max)
		out[n - 1].len = (size_t)(end - out[n - 1].text);
	return n < max ? n : max;
}

/* The step times of a task log after its first 10 steps. */
static void
step_times(const struct section *s, double **v, size_t *n, size_t *cap)
{
	const char *p = s->text, *end = s->text + s->len, *nl, *q;
	size_t seen = 0;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((q = find(p, (size_t)(nl - p), "[PAX STATUS]: train_step() took")) && ++seen > 10) {
			char *e;
			double x;
			q += strlen("[PAX STATUS]: train_step() took");
			x = strtod(q, &e);
			if (e > q && e <= nl && isfinite(x)) {
				*v = xreserve(*v, *n + 1, cap, sizeof(**v));
				(*v)[(*n)++] = x;
			}
		}
		if (nl == end)
			break;
	}
}

/* "error-<job>-<node>-<task>.txt": the node's index in the job, or NULL. */
static const char *
node_of(struct arena *a, const struct section *s)
{
	const char *p = s->name, *end = s->name + s->name_len, *d1, *d2;

	if (!prefixed(s, "error-"))
		return NULL;
	p += 6;
	d1 = memchr(p, '-', (size_t)(end - p));
	if (!d1)
		return NULL;
	d2 = memchr(d1 + 1, '-', (size_t)(end - d1 - 1));
	if (!d2 || d2 == d1 + 1)
		return NULL;
	return arena_printf(a, "node %.*s", (int)(d2 - d1 - 1), d1 + 1);
}

static void
stats(struct arena *a, struct run_report *out, double *v, size_t n)
{
	double m = grade_mean(v, n), sd = 0, med;
	size_t i;

	for (i = 0; i < n && n > 1; i++)
		sd += (v[i] - m) * (v[i] - m);
	sd = n > 1 ? sqrt(sd / (double)(n - 1)) : 0;
	med = grade_median(v, n);
	metric_add(a, out, "step_time_s", "s", m);
	metric_add(a, out, "step_time_median_s", "s", med);
	metric_add(a, out, "step_time_min_s", "s", v[0]);
	metric_add(a, out, "step_time_max_s", "s", v[n - 1]);
	metric_add(a, out, "step_time_stdev_s", "s", sd);
	metric_add(a, out, "steps", "count", (double)n);
}

void
grade_jax_toolbox(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                  struct run_report *out)
{
	const char *pgle = grade_arg(r, "enable_pgle"), *why = NULL;
	struct section sec[256];
	size_t n = sections(text, len, sec, LEN(sec)), i, j, nv = 0, cap = 0, errs = 0, profiles = 0;
	bool profiled = false;
	double *v = NULL;

	for (i = 0; i < n && !why; i++) {
		if (prefixed(&sec[i], "profile_stderr_")) {
			profiles++;
			if (!profiled && find(sec[i].text, sec[i].len, "[PAX STATUS]: E2E time: Elapsed time for ")) {
				profiled = true;
				if ((why = common_error(&sec[i])))
					why = arena_printf(a, "%.*s: %s", (int)sec[i].name_len, sec[i].name, why);
			}
		} else if (prefixed(&sec[i], "error-")) {
			errs++;
			if ((why = common_error(&sec[i])))
				why = arena_printf(a, "%.*s: %s", (int)sec[i].name_len, sec[i].name, why);
			else if (!find(sec[i].text, sec[i].len, "E2E time: Elapsed time for"))
				why = arena_printf(a, "%.*s lacks 'E2E time: Elapsed time for': the run stage did not finish",
				                   (int)sec[i].name_len, sec[i].name);
		}
	}
	/* without PGLE there is no profiling stage (CloudAI fails such a run) */
	if (!why && !(pgle && (strcmp(pgle, "False") == 0 || strcmp(pgle, "false") == 0))) {
		if (!profiles)
			why = "no profile_stderr_*.txt: the profiling stage did not run";
		else if (!profiled)
			why = "no profile_stderr_*.txt says '[PAX STATUS]: E2E time: Elapsed time for': the profiling stage "
			      "failed";
	}
	if (!why && !errs)
		why = "no error-*.txt: the run stage did not run";
	if (why)
		grade_demote(out, OUTCOME_FAILED, why);

	for (i = 0; i < n; i++)
		if (prefixed(&sec[i], "error-"))
			step_times(&sec[i], &v, &nv, &cap);
	if (nv)
		stats(a, out, v, nv);
	/* per node: the mean of its tasks' steps */
	for (i = 0; i < n; i++) {
		const char *node = node_of(a, &sec[i]);
		double *w = NULL;
		size_t nw = 0, wc = 0;
		bool first = true;
		if (!node)
			continue;
		for (j = 0; j < i && first; j++) {
			const char *o = node_of(a, &sec[j]);
			first = !o || strcmp(o, node) != 0;
		}
		if (!first)
			continue;
		for (j = i; j < n; j++) {
			const char *o = node_of(a, &sec[j]);
			if (o && strcmp(o, node) == 0)
				step_times(&sec[j], &w, &nw, &wc);
		}
		if (nw) {
			struct metric *m = metric_add(a, out, "node_step_time_s", "s", grade_mean(w, nw));
			if (m)
				m->node = node;
		}
		free(w);
	}
	free(v);
}
