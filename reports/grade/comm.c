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

static bool
has(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(p + i, s, k) == 0)
			return true;
	return false;
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
