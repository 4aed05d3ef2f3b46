/* grade/osu.c: OSU micro-benchmarks (latency or bandwidth per message
 * size), UCC's perftest (time and bandwidth per size), and the workloads
 * whose only measure is their time (Sleep, BashCmd, SlurmContainer). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

enum { MAX_COLS = 16 };

struct table {
	struct arena *a;
	struct run_report *out;
	const char *name, *unit; /* of the column after the size (OSU) */
	size_t rows;
};

/* Splits a line into numbers; returns how many lead it (stops at the
 * first token that is not one). */
static size_t
numbers(const char *p, size_t n, double *v, size_t max)
{
	char tmp[512], *s, *end;
	size_t k = 0;

	if (n >= sizeof(tmp))
		return 0;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	for (s = tmp; k < max;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		v[k] = strtod(s, &end);
		if (end == s || (*end && *end != ' ' && *end != '\t'))
			break;
		k++;
		s = end;
	}
	return k;
}

static bool
has(const char *p, size_t n, const char *w)
{
	size_t m = strlen(w), i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(p + i, w, m) == 0)
			return true;
	return false;
}

static void
osu_line(void *ctx, const char *p, size_t n, int task)
{
	struct table *t = ctx;
	double v[MAX_COLS];
	struct metric *m;

	(void)task;
	if (n > 6 && p[0] == '#' && has(p, n, "Size")) {
		if (has(p, n, "Latency"))
			t->name = "latency", t->unit = "us";
		else if (has(p, n, "Bandwidth"))
			t->name = "bandwidth", t->unit = "MB/s";
		else if (has(p, n, "Messages/s"))
			t->name = "message_rate", t->unit = "1/s";
		return;
	}
	if (!t->name || n == 0 || p[0] == '#' || numbers(p, n, v, MAX_COLS) < 2 || v[0] < 0)
		return;
	if ((m = metric_add(t->a, t->out, t->name, t->unit, v[1]))) {
		m->x = v[0];
		m->x_name = "bytes";
		t->rows++;
	}
}

void
grade_osu(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
          struct run_report *out)
{
	struct table t = {a, out, NULL, NULL, 0};

	(void)r;
	grade_lines(text, len, osu_line, &t);
	if (!t.rows)
		grade_demote(out, OUTCOME_FAILED, t.name ? "OSU: a header but no result rows in stdout.txt"
		                                         : "OSU: no '# Size' table in stdout.txt");
}

/* ucc_perftest: "count size time_avg time_min time_max bw_avg bw_max bw_min". */
static void
ucc_line(void *ctx, const char *p, size_t n, int task)
{
	static const char *const names[] = {"time_avg", "time_min", "time_max", "bw_avg", "bw_max", "bw_min"};
	struct table *t = ctx;
	double v[MAX_COLS];
	struct metric *m;
	size_t k;

	(void)task;
	if (numbers(p, n, v, MAX_COLS) != 8 || v[1] < 0)
		return;
	for (k = 0; k < 6; k++)
		if ((m = metric_add(t->a, t->out, names[k], k < 3 ? "us" : "GB/s", v[2 + k]))) {
			m->x = v[1];
			m->x_name = "bytes";
		}
	t->rows++;
}

void
grade_ucc(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
          struct run_report *out)
{
	struct table t = {a, out, NULL, NULL, 0};

	(void)r;
	grade_lines(text, len, ucc_line, &t);
	if (!t.rows)
		grade_demote(out, OUTCOME_FAILED, "UCC: no result rows in stdout.txt");
}

/* Sleep, BashCmd, SlurmContainer: the run's time is its one measure. */
void
grade_time(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
           struct run_report *out)
{
	(void)r, (void)text, (void)len;
	if (out->duration_s >= 0)
		metric_add(a, out, "time", "s", out->duration_s);
}
