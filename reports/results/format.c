/* format.c: how the reports write numbers (see format.h). Every report
 * (summary.md, the HTML, the CSV, the plots' data, the terminal, the
 * reasons of a grade) formats through here, so one value reads the same
 * everywhere. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "reports/results/format.h"
#include "gen/base/util.h"

/* Integral and exactly representable: printed with %.0f it is exact. */
static int
integral(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

/* v exactly when integral, else with prec significant digits */
static void
fmt_prec(struct buf *b, double v, int prec)
{
	if (integral(v))
		buf_printf(b, "%.0f", v);
	else
		buf_printf(b, "%.*g", prec, v);
}

void
fmt_num(struct buf *b, double v)
{
	fmt_prec(b, v, 4);
}

void
fmt_data(struct buf *b, double v)
{
	fmt_prec(b, v, 9);
}

void
fmt_bytes(struct buf *b, double v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double x = v;
	size_t u = 0;

	while (fabs(x) >= 1024 && u + 1 < LEN(units)) {
		x /= 1024;
		u++;
	}
	fmt_num(b, x);
	buf_printf(b, " %s", units[u]);
}

void
fmt_seconds(struct buf *b, double s)
{
	if (fabs(s) < 10)
		buf_printf(b, "%.2f s", s);
	else
		buf_printf(b, "%.1f s", s);
}

void
fmt_duration(struct buf *b, double s, const char *start, const char *end)
{
	/* "2024-05-01T12:00:03Z": a second is all such a record can tell */
	if (start && end && !strchr(start, '.') && !strchr(end, '.')) {
		if (s < 1)
			buf_puts(b, "< 1 s");
		else
			buf_printf(b, "%.0f s", s);
	} else {
		fmt_seconds(b, s);
	}
}

void
fmt_percent(struct buf *b, double frac)
{
	double p = 100 * frac;

	if (p != 0 && fabs(p) < 1)
		buf_printf(b, "%.1f%%", p);
	else
		buf_printf(b, "%.0f%%", p);
}

void
fmt_value(struct buf *b, double v, const char *unit)
{
	if (unit && strcmp(unit, "B") == 0)
		fmt_bytes(b, v);
	else if (unit && strcmp(unit, "count") == 0)
		fmt_num(b, v);
	else if (unit && strcmp(unit, "ratio") == 0)
		fmt_percent(b, v);
	else if (unit && strcmp(unit, "s") == 0)
		fmt_seconds(b, v);
	else {
		fmt_num(b, v);
		if (unit && *unit)
			buf_printf(b, " %s", unit);
	}
}
