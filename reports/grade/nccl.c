/* grade/nccl.c: the graders of output in nccl-tests' format (NcclTest,
 * KunaiAllReduce, KunaiBisection): busbw, algbw and time per message size,
 * max/avg busbw, wrong values; the "# Rank" lines say which nodes and GPU
 * models took part. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/parse.h"
#include "reports/grade/grade.h"
#include "gen/base/util.h"

void kunai_scan(struct arena *a, const char *text, size_t len, bool metrics, struct run_report *out);

/* The one GPU model of every rank, "a, b" when they differ, NULL if none. */
static const char *
models(struct arena *a, const struct nccl_detail *d, bool *gpu)
{
	struct buf b = {0};
	const char *r;
	size_t i, j;

	*gpu = false;
	for (i = 0; i < d->n_ranks; i++) {
		const char *m = d->ranks[i].model;
		if (!m || !*m)
			continue;
		if (strcmp(m, "cpu") != 0)
			*gpu = true;
		for (j = 0; j < i && !(d->ranks[j].model && strcmp(d->ranks[j].model, m) == 0); j++)
			;
		if (j == i)
			buf_printf(&b, "%s%s", b.len ? ", " : "", m);
	}
	r = b.len ? arena_strdup(a, b.data) : NULL;
	buf_free(&b);
	return r;
}

static void
series(struct arena *a, struct run_report *out, const struct nccl_row *row, const char *model)
{
	static const char *const names[2][3] = {{"time", "algbw", "busbw"},
	                                        {"time_inplace", "algbw_inplace", "busbw_inplace"}};
	struct metric *m;
	int h, k;

	for (h = 0; h < 2; h++) {
		if (!row->ok[h])
			continue;
		for (k = 0; k < 3; k++) {
			double v = k == 0 ? row->time_us[h] : k == 1 ? row->algbw[h] : row->busbw[h];
			if (!(m = metric_add(a, out, names[h][k], k == 0 ? "us" : "GB/s", v)))
				continue;
			m->x = row->size;
			m->x_name = "bytes";
			m->gpu_model = model ? model : m->gpu_model;
		}
	}
}

/* nccl-tests: bus bandwidth metrics; wrong results fail the run, and a busbw
 * below cmd_args.min_busbw (GB/s) is a performance failure. */
static void
nccl_common(struct arena *a, const struct plan_run *r, const char *text, size_t len, bool json_metrics,
            struct run_report *out)
{
	const char *min = grade_arg(r, "min_busbw"), *model;
	struct nccl_result n;
	struct nccl_detail d;
	bool parsed = nccl_parse_detail(a, text, len, &n, &d), gpu;
	struct metric *m;
	char *end;
	double want;
	size_t i;

	/* kunai's own all-reduce and bisection add a JSON line: its path,
	 * its failures, and bisection's per-pair numbers */
	kunai_scan(a, text, len, json_metrics, out);
	model = models(a, &d, &gpu);
	if (!out->path && d.n_ranks)
		out->path = gpu ? "gpu" : "cpu";
	if (parsed) {
		if (n.rows) {
			if ((m = metric_add(a, out, "max_busbw", "GB/s", n.max_busbw)))
				m->gpu_model = model ? model : m->gpu_model;
			metric_add(a, out, "max_busbw_size", "B", n.max_busbw_size);
		}
		if ((n.rows || n.footer_avg) && (m = metric_add(a, out, "avg_busbw", "GB/s", n.avg_busbw)))
			m->gpu_model = model ? model : m->gpu_model;
		metric_add(a, out, "results", "count", (double)n.rows);
		metric_add(a, out, "wrong", "count", (double)n.wrong);
		if (n.has_oob)
			metric_add(a, out, "out_of_bounds", "count", (double)n.oob);
		for (i = 0; i < d.n_rows; i++)
			series(a, out, &d.rows[i], model);
		if (n.oob > 0 || n.wrong > 0)
			grade_demote(out, OUTCOME_FAILED,
			             arena_printf(a, "nccl-tests: data check failed (%ld wrong, %ld out of bounds)", n.wrong,
			                       n.oob));
	} else if (len == 0)
		grade_demote(out, OUTCOME_FAILED, "stdout.txt is empty: the benchmark printed nothing");
	if (!min)
		return;
	want = strtod(min, &end);
	if (end == min || *end || !isfinite(want))
		grade_demote(out, OUTCOME_INFRA, arena_printf(a, "min_busbw '%s' is not a number", min));
	else if (!parsed || !n.rows)
		grade_demote(out, OUTCOME_PERF_FAILED, arena_printf(a, "no busbw in stdout.txt (min_busbw %s GB/s)", min));
	else if (n.max_busbw < want)
		grade_demote(out, OUTCOME_PERF_FAILED,
		             arena_printf(a, "max busbw %.2f GB/s is below min_busbw %s GB/s", n.max_busbw, min));
}

void
grade_nccl(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
           struct run_report *out)
{
	nccl_common(a, r, text, len, false, out);
}

/* "#  pair   0 <->   1        nodeA <-> nodeB          5.84" */
static void
pair_line(void *ctx, const char *p, size_t n, int task)
{
	struct { struct arena *a; struct run_report *out; } *c = ctx;
	char tmp[512], a_[128], b_[128];
	int x, y;
	double bw;
	struct metric *m;

	(void)task;
	if (n >= sizeof(tmp) || n < 8 || p[0] != '#')
		return;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	if (sscanf(tmp, "# pair %d <-> %d %127s <-> %127s %lf", &x, &y, a_, b_, &bw) != 5)
		return;
	if ((m = metric_add(c->a, c->out, "pair_bw", "GB/s", bw))) {
		m->node = arena_printf(c->a, "%s<->%s", a_, b_);
		m->x = x;
		m->x_name = "pair";
	}
}

/* KunaiBisection: nccl-tests rows, then each pair's GB/s and the aggregate. */
void
grade_bisection(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                struct run_report *out)
{
	struct { struct arena *a; struct run_report *out; } c = {a, out};

	nccl_common(a, r, text, len, true, out);
	grade_lines(text, len, pair_line, &c);
}
