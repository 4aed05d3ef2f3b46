/* grade/comm.c: the NIXL benchmarks' grader. nixlbench prints a table
 * after a header naming "Block Size (B)", "Avg Lat. (us)" and "B/W
 * (GB/Sec)": a row of 6 columns is block, batch, latency, ..., bandwidth;
 * one of 10 is block, batch, bandwidth, latency, ... (CloudAI's reading).
 * NIXL EP's node logs (grade_nixl_ep) and DeepEP's summaries too. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/grade/grade.h"
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
grade_nixl(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
           struct run_report *out)
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
grade_deepep(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
             struct run_report *out)
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

/* NIXL EP: CloudAI's failure patterns in its logs, in the order it tries
 * them, with its words. */
static const struct {
	const char *pat, *why;
} ep_fail[] = {
	{"python3: can't open file", "The benchmark entrypoint could not be opened."},
	{"Traceback (most recent call last):", "The benchmark launcher raised a Python traceback."},
	{"Timed out waiting for NIXL EP master services", "The master services never became ready."},
	{"no plan phases were found for rank", "A worker was launched for a rank that never appears in the plan."},
	{"recvValueWithTimeout failed", "A worker lost its TCPStore connection before the benchmark completed."},
	{"timed out after 300000ms", "A worker timed out waiting on the TCPStore."},
	{"Failed to prepare remote memory view", "NIXL EP failed to initialize its UCX remote memory view."},
	{"srun: error:", "Slurm reported an srun failure."},
	{"Exited with exit code", "A Slurm step exited with a non-zero status."},
};

/* The line at p (n bytes) without leading and trailing blanks. */
static void
ep_strip(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t'))
		(*p)++, (*n)--;
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t' || (*p)[*n - 1] == '\r'))
		(*n)--;
}

/* Which of CloudAI's planned-termination srun lines the line is (0-2), or -1. */
static int
ep_srun_kind(const char *p, size_t n)
{
	static const char *const head[] = {"srun: error: ", "srun: Terminating StepId=", "srun: Force Terminated StepId="};
	static const char tail[] = ": Terminated";
	size_t k, i;
	int j;

	for (j = 0; j < 3; j++) {
		k = strlen(head[j]);
		if (n <= k || memcmp(p, head[j], k) != 0)
			continue;
		if (j > 0) {
			for (i = k; i < n && p[i] != ' ' && p[i] != '\t'; i++)
				;
			return i == n ? j : -1;
		}
		/* "srun: error: HOST: task N: Terminated" */
		if (n < k + sizeof(tail) - 1 || memcmp(p + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) != 0)
			return -1;
		i = n - (sizeof(tail) - 1);
		while (i > k && p[i - 1] >= '0' && p[i - 1] <= '9')
			i--;
		if (i == n - (sizeof(tail) - 1) || i < k + 8 || memcmp(p + i - 7, ": task ", 7) != 0 || i - 7 <= k)
			return -1;
		return 0;
	}
	return -1;
}

struct ep_scan {
	bool skip_srun;      /* a planned removal's srun lines are left out */
	bool srun_any, srun_other, kinds[3];
	long primary;        /* the phase of "Primary NIXL EP launch exited ...", or -1 */
	size_t fail;         /* the first of ep_fail[] seen (LEN: none) */
	bool seen[sizeof(ep_fail) / sizeof(ep_fail[0])];
};

static void
ep_scan_line(void *ctx, const char *p, size_t n, int task)
{
	struct ep_scan *s = ctx;
	const char *q;
	size_t i;

	(void)task;
	ep_strip(&p, &n);
	if (s->skip_srun && n >= 5 && memcmp(p, "srun:", 5) == 0)
		return;
	if ((q = find(p, n, "Primary NIXL EP launch exited before phase ")) && s->primary < 0) {
		char num[24] = {0};
		const char *d = q + strlen("Primary NIXL EP launch exited before phase ");
		for (i = 0; d + i < p + n && i < sizeof(num) - 1 && d[i] >= '0' && d[i] <= '9'; i++)
			num[i] = d[i];
		if (i && d + i < p + n && has(d + i, (size_t)(p + n - d - i), " completed"))
			s->primary = strtol(num, NULL, 10);
	}
	for (i = 0; i < LEN(ep_fail); i++)
		s->seen[i] |= has(p, n, ep_fail[i].pat);
}

static void
ep_srun_line(void *ctx, const char *p, size_t n, int task)
{
	struct ep_scan *s = ctx;
	int k;

	(void)task;
	ep_strip(&p, &n);
	if (n < 5 || memcmp(p, "srun:", 5) != 0)
		return;
	s->srun_any = true;
	if ((k = ep_srun_kind(p, n)) < 0)
		s->srun_other = true;
	else
		s->kinds[k] = true;
}

/* CloudAI's failure reading of one log (name): demotes out and returns
 * true on a failure. removal: the plan removes ranks. */
static bool
ep_failed(struct arena *a, const char *name, const char *text, size_t len, bool removal, struct run_report *out)
{
	struct ep_scan s;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.primary = -1;
	if (removal) {
		grade_lines(text, len, ep_srun_line, &s);
		s.skip_srun = s.srun_any && !s.srun_other && s.kinds[0] && s.kinds[1] && s.kinds[2];
	}
	grade_lines(text, len, ep_scan_line, &s);
	if (s.primary == 0) {
		grade_demote(out, OUTCOME_FAILED,
		             arena_printf(a, "NIXL EP: the initial launch exited before phase 0 completed, so later stage "
		                             "launches never started and some node logs may be absent (%s)", name));
		return true;
	}
	if (s.primary > 0) {
		grade_demote(out, OUTCOME_FAILED,
		             arena_printf(a, "NIXL EP: the primary launch exited before phase %ld completed (%s)", s.primary, name));
		return true;
	}
	for (i = 0; i < LEN(ep_fail); i++)
		if (s.seen[i]) {
			grade_demote(out, OUTCOME_FAILED, arena_printf(a, "NIXL EP: %s (%s)", ep_fail[i].why, name));
			return true;
		}
	return false;
}

/* NIXL EP's summaries: "[rank N] Dispatch + combine bandwidth: X GB/s,
 * avg_t=A us, min_t=B us, max_t=C us" and, with kineto, "[rank N]
 * Dispatch bandwidth: X GB/s[, avg_t=A us] | Combine bandwidth: Y GB/s";
 * and the phases node 0 ended ("-> end phase N"). */
enum { EP_DC, EP_AVG, EP_MIN, EP_MAX, EP_D, EP_C, EP_N };

struct ep_acc {
	double sum[EP_N];
	int n[EP_N];
	int samples;       /* of this log */
	bool phase[64];    /* phases ended, node 0 (the first 64) */
	bool node0;
};

static void
ep_line(void *ctx, const char *p, size_t n, int task)
{
	struct ep_acc *acc = ctx;
	char line[1024];
	const char *q;
	double v[4];
	int rank, k = -1;

	(void)task;
	if (acc->node0 && (q = find(p, n, "-> end phase "))) {
		size_t off = (size_t)(q - p) + strlen("-> end phase ");
		long ph = off < n && p[off] >= '0' && p[off] <= '9' ? strtol(p + off, NULL, 10) : -1;
		if (ph >= 0 && ph < 64)
			acc->phase[ph] = true;
	}
	if (!(q = find(p, n, "[rank ")))
		return;
	n -= (size_t)(q - p);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, q, n);
	line[n] = '\0';
	if (sscanf(line, "[rank %d] Dispatch + combine bandwidth: %lf GB/s, avg_t=%lf us, min_t=%lf us, max_t=%lf us%n",
	           &rank, &v[0], &v[1], &v[2], &v[3], &k) == 5 && k > 0) {
		int i;
		for (i = 0; i < 4; i++) {
			acc->sum[EP_DC + i] += v[i];
			acc->n[EP_DC + i]++;
		}
		acc->samples++;
		return;
	}
	k = -1;
	if (sscanf(line, "[rank %d] Dispatch bandwidth: %lf GB/s%n", &rank, &v[0], &k) == 2 && k > 0) {
		const char *c = strstr(line + k, " | Combine bandwidth: ");
		int m = -1;
		/* ", avg_t=A us" or nothing between them */
		if (!c || (c != line + k && (sscanf(line + k, ", avg_t=%lf us%n", &v[2], &m) != 1 || line + k + m != c)))
			return;
		m = -1;
		if (sscanf(c, " | Combine bandwidth: %lf GB/s%n", &v[1], &m) != 1 || m < 0)
			return;
		acc->sum[EP_D] += v[0];
		acc->n[EP_D]++;
		acc->sum[EP_C] += v[1];
		acc->n[EP_C]++;
		acc->samples++;
	}
}

/* The node logs nixl-ep-node-N.log (N from 0 while they exist: the
 * launcher fills the nodes in order): failures, a summary in each, the
 * metrics ("default" is CloudAI's, the mean dispatch + combine bandwidth). */
static void
ep_logs(struct arena *a, const struct plan_run *r, const char *dir, struct run_report *out)
{
	static const char *const names[EP_N] = {"dispatch_combine_bw", "avg_t", "min_t", "max_t", "dispatch_bw",
	                                        "combine_bw"};
	static const char *const units[EP_N] = {"GB/s", "us", "us", "us", "GB/s", "GB/s"};
	const char *plan = grade_arg(r, "plan");
	struct ep_acc acc;
	struct buf path = {0}, text = {0};
	struct stat st;
	int node, i, phases = 0;
	bool failed = false;

	memset(&acc, 0, sizeof(acc));
	for (node = 0; node < 4096; node++) {
		const char *name = arena_printf(a, "nixl-ep-node-%d.log", node);
		path.len = 0;
		buf_printf(&path, "%s/%s", dir, name);
		if (stat(buf_str(&path), &st) != 0)
			break;
		text.len = 0;
		if (!S_ISREG(st.st_mode) || !read_file(buf_str(&path), &text)) {
			grade_demote(out, OUTCOME_FAILED, arena_printf(a, "NIXL EP: %s cannot be read", name));
			failed = true;
			continue;
		}
		failed |= ep_failed(a, name, text.data, text.len, plan && strchr(plan, '-'), out);
		acc.samples = 0;
		acc.node0 = node == 0;
		grade_lines(text.data, text.len, ep_line, &acc);
		if (!acc.samples && !failed) {
			grade_demote(out, OUTCOME_FAILED,
			             arena_printf(a, "NIXL EP: no bandwidth summary ('[rank N] Dispatch + combine bandwidth: "
			                             "...') in %s", name));
			failed = true;
		}
	}
	if (node == 0)
		grade_demote(out, OUTCOME_FAILED, "NIXL EP: no nixl-ep-node-0.log");
	if (acc.n[EP_DC])
		metric_add(a, out, "default", "GB/s", acc.sum[EP_DC] / acc.n[EP_DC]);
	for (i = 0; i < EP_N; i++)
		if (acc.n[i])
			metric_add(a, out, names[i], units[i], acc.sum[i] / acc.n[i]);
	for (i = 0; i < 64; i++)
		phases += acc.phase[i];
	if (node > 0)
		metric_add(a, out, "phases_completed", "count", phases);
	buf_free(&path);
	buf_free(&text);
}

/* NIXL EP: the launcher's stdout against CloudAI's failure patterns (its
 * own messages), then the node logs. */
void
grade_nixl_ep(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
              struct run_report *out)
{
	const char *plan = grade_arg(r, "plan");

	ep_failed(a, "stdout.txt", text, len, plan && strchr(plan, '-'), out);
	ep_logs(a, r, dir, out);
}
