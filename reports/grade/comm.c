/* grade/comm.c: the NIXL benchmarks' grader. nixlbench prints a table
 * after a header naming "Block Size (B)", "Avg Lat. (us)" and "B/W
 * (GB/Sec)": a row of 6 columns is block, batch, latency, ..., bandwidth;
 * one of 10 is block, batch, bandwidth, latency, ... (CloudAI's reading). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "grade.h"
#include "gen/base/util.h"

struct nixl_table {
	struct arena *a;
	struct run_report *out;
	bool header;
	size_t rows;
};

/* Where s starts in the n bytes at p, or NULL. */
static const char *
find(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return p + i;
	return NULL;
}

static bool
has(const char *p, size_t n, const char *s)
{
	return find(p, n, s) != NULL;
}

static void
nixl_line(void *ctx, const char *p, size_t n, int task)
{
	struct nixl_table *t = ctx;
	char word[10][64];
	size_t nw = 0, i = 0, k;
	double block, lat, bw;
	char *end;
	struct metric *m;

	(void)task;
	if (!t->header) {
		t->header = has(p, n, "Block Size (B)") && has(p, n, "Avg Lat. (us)") && has(p, n, "B/W (GB/Sec)");
		return;
	}
	while (i < n) {
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		if (i == n)
			break;
		if (nw == 10)
			return;
		for (k = 0; i < n && p[i] != ' ' && p[i] != '\t'; i++)
			if (k < sizeof(word[0]) - 1)
				word[nw][k++] = p[i];
		word[nw++][k] = '\0';
	}
	if (nw != 6 && nw != 10)
		return;
	for (k = 0; k < 2; k++) {
		strtol(word[k], &end, 10);
		if (end == word[k] || *end)
			return;
	}
	block = strtod(word[0], NULL);
	lat = strtod(word[nw == 6 ? 2 : 3], &end);
	if (*end)
		return;
	bw = strtod(word[nw == 6 ? 5 : 2], &end);
	if (*end)
		return;
	if ((m = metric_add(t->a, t->out, "latency", "us", lat))) {
		m->x = block;
		m->x_name = "bytes";
	}
	if ((m = metric_add(t->a, t->out, "bandwidth", "GB/s", bw))) {
		m->x = block;
		m->x_name = "bytes";
	}
	t->rows++;
}

void
grade_nixl(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	struct nixl_table t = {a, out, false, 0};

	(void)r;
	grade_lines(text, len, nixl_line, &t);
	if (!t.rows)
		grade_demote(out, OUTCOME_FAILED, t.header ? "NIXL: a header but no result rows in stdout.txt"
		                                           : "NIXL: no nixlbench table in stdout.txt");
}

/* DeepEP's tests: the tuned bandwidths of "[tuning] Best dispatch ..." and
 * "[tuning] Best combine ..." (rank 0 of each node prints them; the nodes'
 * mean is kept): "X GB/s (RDMA)", "Y GB/s (NVL...)" or a plain "Z GB/s";
 * and the low-latency test's "Dispatch + combine bandwidth: X GB/s",
 * "Dispatch bandwidth: ..." and "Combine bandwidth: ..." (every rank's). */
enum { DEEPEP_N = 9 };
static const char *const deepep_names[DEEPEP_N] = {
	"dispatch_rdma_bw", "dispatch_nvl_bw", "dispatch_bw", "combine_rdma_bw", "combine_nvl_bw",
	"combine_bw", "ll_dispatch_combine_bw", "ll_dispatch_bw", "ll_combine_bw",
};

struct deepep_acc {
	double sum[DEEPEP_N];
	int n[DEEPEP_N];
};

/* The number just before the first "GB/s<tag>" at or after p, or -1. */
static double
gbs_before(const char *p, size_t n, const char *tag)
{
	struct buf key = {0};
	size_t k, i;
	double v = -1;

	buf_printf(&key, " GB/s%s", tag);
	k = key.len;
	for (i = 0; i + k <= n; i++)
		if (memcmp(p + i, key.data, k) == 0) {
			size_t s = i;
			while (s > 0 && (p[s - 1] == '.' || (p[s - 1] >= '0' && p[s - 1] <= '9')))
				s--;
			if (s < i) {
				char num[64];
				size_t len = i - s < sizeof(num) - 1 ? i - s : sizeof(num) - 1;
				memcpy(num, p + s, len);
				num[len] = '\0';
				v = strtod(num, NULL);
			}
			break;
		}
	buf_free(&key);
	return v;
}

static void
deepep_put(struct deepep_acc *acc, int i, double v)
{
	if (v >= 0) {
		acc->sum[i] += v;
		acc->n[i]++;
	}
}

static void
deepep_line(void *ctx, const char *p, size_t n, int task)
{
	struct deepep_acc *acc = ctx;
	int base;
	double rdma, nvl;

	(void)task;
	if (has(p, n, "[tuning] Best dispatch") || has(p, n, "[tuning] Best combine")) {
		base = has(p, n, "Best dispatch") ? 0 : 3;
		rdma = gbs_before(p, n, " (RDMA)");
		nvl = gbs_before(p, n, " (NVL");
		deepep_put(acc, base, rdma);
		deepep_put(acc, base + 1, nvl);
		if (rdma < 0 && nvl < 0)
			deepep_put(acc, base + 2, gbs_before(p, n, ""));
	} else if (has(p, n, "Dispatch + combine bandwidth:")) {
		deepep_put(acc, 6, gbs_before(p, n, ""));
	} else {
		/* "Dispatch bandwidth: X GB/s, ... | Combine bandwidth: Y GB/s, ..." */
		const char *d = find(p, n, "Dispatch bandwidth:"), *c = find(p, n, "Combine bandwidth:");
		if (d)
			deepep_put(acc, 7, gbs_before(d, n - (size_t)(d - p), ""));
		if (c)
			deepep_put(acc, 8, gbs_before(c, n - (size_t)(c - p), ""));
	}
}

void
grade_deepep(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	struct deepep_acc acc;
	int i;

	(void)r;
	memset(&acc, 0, sizeof(acc));
	grade_lines(text, len, deepep_line, &acc);
	for (i = 0; i < DEEPEP_N; i++)
		if (acc.n[i])
			metric_add(a, out, deepep_names[i], "GB/s", acc.sum[i] / acc.n[i]);
}
