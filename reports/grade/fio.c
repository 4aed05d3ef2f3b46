/* grade/fio.c: fio's text output: one summary per operation ("  write:
 * IOPS=1234, BW=154MiB/s (162MB/s)(80.0MiB/532msec)") and the average
 * latency under it ("lat (usec): min=..., avg=...", else "clat"), read as
 * CloudAI's Fio report reads them. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/parse.h"
#include "reports/grade/grade.h"
#include "gen/base/util.h"

/* Bandwidth units in MiB/s, latency units in microseconds. */
static const struct {
	const char *unit;
	double scale;
} bw_units[] = {
	{"B/s", 1.0 / 1048576}, {"KiB/s", 1.0 / 1024}, {"MiB/s", 1}, {"GiB/s", 1024},
	{"TiB/s", 1048576}, {"kB/s", 1e3 / 1048576}, {"KB/s", 1e3 / 1048576},
	{"MB/s", 1e6 / 1048576}, {"GB/s", 1e9 / 1048576}, {"TB/s", 1e12 / 1048576},
}, lat_units[] = {
	{"nsec", 0.001}, {"usec", 1}, {"msec", 1000}, {"sec", 1e6},
};

static bool
unit_scale(const char *u, size_t n, bool bw, double *scale)
{
	size_t i, m = bw ? LEN(bw_units) : LEN(lat_units);

	for (i = 0; i < m; i++) {
		const char *name = bw ? bw_units[i].unit : lat_units[i].unit;
		if (strlen(name) == n && strncmp(name, u, n) == 0) {
			*scale = bw ? bw_units[i].scale : lat_units[i].scale;
			return true;
		}
	}
	return false;
}

/* "1234", "12.3k", "1.5M": fio's scaled counts. */
static bool
scaled(const char *s, const char *end, double *v)
{
	char tmp[64], *e;
	size_t n = (size_t)(end - s);
	double mul = 1;

	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	switch (tolower((unsigned char)tmp[n - 1])) {
	case 'k': mul = 1e3, tmp[n - 1] = '\0'; break;
	case 'm': mul = 1e6, tmp[n - 1] = '\0'; break;
	case 'g': mul = 1e9, tmp[n - 1] = '\0'; break;
	}
	*v = strtod(tmp, &e) * mul;
	return e != tmp && !*e;
}

/* One "read|write|trim: IOPS=..., BW=<num><unit>" line. */
static bool
op_line(const char *l, const char *end, struct fio_op *op)
{
	static const char *const ops[] = {"read", "write", "trim"};
	const char *p = l, *q;
	double scale;
	size_t i, n;

	while (p < end && isspace((unsigned char)*p))
		p++;
	for (i = 0; i < LEN(ops); i++) {
		n = strlen(ops[i]);
		if ((size_t)(end - p) > n && strncmp(p, ops[i], n) == 0 && p[n] == ':')
			break;
	}
	if (i == LEN(ops))
		return false;
	p += strlen(ops[i]) + 1;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p < 5 || strncmp(p, "IOPS=", 5) != 0)
		return false;
	p += 5;
	q = memchr(p, ',', (size_t)(end - p));
	if (!q || !scaled(p, q, &op->iops))
		return false;
	p = q + 1;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p < 3 || strncmp(p, "BW=", 3) != 0)
		return false;
	p += 3;
	op->bw_mib = strtod(p, (char **)&q);
	if (q == p)
		return false;
	for (p = q; q < end && (isalpha((unsigned char)*q) || *q == '/'); q++)
		;
	if (!unit_scale(p, (size_t)(q - p), true, &scale))
		return false;
	op->bw_mib *= scale;
	op->name = ops[i];
	op->lat_usec = op->p50_usec = op->p99_usec = op->p999_usec = -1;
	return true;
}

/* "    lat (usec): min=1, max=9, avg=2.5, stdev=..." (or clat): *is_lat tells which. */
static bool
lat_line(const char *l, const char *end, double *usec, bool *is_lat)
{
	const char *p = l, *u, *a;
	double scale;

	if (p >= end || !isspace((unsigned char)*p))
		return false;
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p > 4 && strncmp(p, "clat", 4) == 0)
		*is_lat = false, p += 4;
	else if (end - p > 3 && strncmp(p, "lat", 3) == 0)
		*is_lat = true, p += 3;
	else
		return false;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '(')
		return false;
	u = ++p;
	while (p < end && *p != ')')
		p++;
	if (p + 1 >= end || p[1] != ':' || !unit_scale(u, (size_t)(p - u), false, &scale))
		return false;
	for (a = p; a + 4 < end; a++)
		if (strncmp(a, "avg=", 4) == 0 && (a == p || a[-1] == ' ' || a[-1] == ','))
			break;
	if (a + 4 >= end)
		return false;
	*usec = strtod(a + 4, NULL) * scale;
	return true;
}

/* "    clat percentiles (usec):": the unit's scale. */
static bool
pct_header(const char *l, const char *end, double *scale)
{
	const char *p = l, *u;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (end - p < 18 || strncmp(p, "clat percentiles (", 18) != 0)
		return false;
	u = p += 18;
	while (p < end && *p != ')')
		p++;
	return p < end && unit_scale(u, (size_t)(p - u), false, scale);
}

/* "     |  1.00th=[   50],  5.00th=[   53], ...": p50, p99, p99.9. */
static bool
pct_line(const char *l, const char *end, double scale, struct fio_op *op)
{
	static const struct {
		const char *at;
		size_t off;
	} want[] = {
		{"50.00th=[", offsetof(struct fio_op, p50_usec)},
		{"99.00th=[", offsetof(struct fio_op, p99_usec)},
		{"99.90th=[", offsetof(struct fio_op, p999_usec)},
	};
	const char *p = l, *q;
	size_t i;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p >= end || *p != '|')
		return false;
	for (i = 0; i < LEN(want); i++) {
		size_t n = strlen(want[i].at);
		for (q = p; q + n < end; q++)
			if (strncmp(q, want[i].at, n) == 0 && (q[-1] == ' ' || q[-1] == '|')) {
				*(double *)((char *)op + want[i].off) = strtod(q + n, NULL) * scale;
				break;
			}
	}
	return true;
}

size_t
fio_parse(const char *text, size_t len, struct fio_op *ops, size_t max)
{
	const char *l = text, *end = text + len, *nl;
	size_t n = 0;
	bool is_lat, in_pct = false;
	double usec, scale = 1;

	for (; l < end; l = nl < end ? nl + 1 : end) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		if (in_pct && pct_line(l, nl, scale, &ops[n - 1]))
			continue;
		in_pct = false;
		if (n < max && op_line(l, nl, &ops[n]))
			n++;
		else if (n > 0 && pct_header(l, nl, &scale))
			in_pct = true;
		/* "lat" wins over "clat"; else the first one found */
		else if (n > 0 && lat_line(l, nl, &usec, &is_lat) && (ops[n - 1].lat_usec < 0 || is_lat))
			ops[n - 1].lat_usec = usec;
	}
	return n;
}

/* fio: per operation read_/write_/trim_ iops, bw (MiB/s) and latency (us),
 * CloudAI's names, and "default", the value cmd_args.metric_operation,
 * metric_name and metric_aggregate choose (CloudAI's Fio report). A run
 * whose stdout holds no summary failed. */
void
grade_fio(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
          struct run_report *out)
{
	const char *op = grade_arg(r, "metric_operation"), *name = grade_arg(r, "metric_name");
	const char *agg = grade_arg(r, "metric_aggregate"), *unit;
	struct fio_op ops[16];
	size_t n = fio_parse(text, len, ops, LEN(ops)), i, k = 0;
	double v, acc = 0;

	if (n == 0) {
		grade_demote(out, OUTCOME_FAILED, "fio: no summary (IOPS=, BW= lines) in stdout.txt");
		return;
	}
	for (i = 0; i < n; i++) {
		metric_add(a, out, arena_printf(a, "%s_iops", ops[i].name), "1/s", ops[i].iops);
		metric_add(a, out, arena_printf(a, "%s_bw", ops[i].name), "MiB/s", ops[i].bw_mib);
		if (ops[i].lat_usec >= 0)
			metric_add(a, out, arena_printf(a, "%s_latency", ops[i].name), "us", ops[i].lat_usec);
		if (ops[i].p50_usec >= 0)
			metric_add(a, out, arena_printf(a, "%s_clat_p50", ops[i].name), "us", ops[i].p50_usec);
		if (ops[i].p99_usec >= 0)
			metric_add(a, out, arena_printf(a, "%s_clat_p99", ops[i].name), "us", ops[i].p99_usec);
		if (ops[i].p999_usec >= 0)
			metric_add(a, out, arena_printf(a, "%s_clat_p99_9", ops[i].name), "us", ops[i].p999_usec);
	}
	op = op ? op : "all", name = name ? name : "bw", agg = agg ? agg : "sum";
	unit = strcmp(name, "iops") == 0 ? "1/s" : strcmp(name, "latency") == 0 ? "us" : "MiB/s";
	for (i = 0; i < n; i++) {
		if (strcmp(op, "first") == 0 ? i > 0 : strcmp(op, "all") != 0 && strcmp(op, ops[i].name) != 0)
			continue;
		v = strcmp(name, "iops") == 0 ? ops[i].iops : strcmp(name, "latency") == 0 ? ops[i].lat_usec
		                                                                            : ops[i].bw_mib;
		if (v < 0)
			continue;
		if (k == 0 || strcmp(agg, "sum") == 0 || strcmp(agg, "mean") == 0)
			acc = k == 0 ? v : acc + v;
		else if (strcmp(agg, "min") == 0 ? v < acc : strcmp(agg, "max") == 0 && v > acc)
			acc = v;
		k++;
	}
	if (k > 0)
		metric_add(a, out, "default", unit, strcmp(agg, "mean") == 0 ? acc / (double)k : acc);
}
