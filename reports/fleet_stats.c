/* fleet_stats.c: the statistics of the peer comparison (fleet.h): median,
 * median absolute deviation, the outlier test, and which way is better
 * for a metric. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fleet.h"
#include "gen/base/util.h"

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double
fleet_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
fleet_mad(const double *v, size_t n, double med, double *scratch)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = fabs(v[i] - med);
	return fleet_median(scratch, n);
}

bool
fleet_outlier(double v, double med, double mad, enum fleet_dir dir, double tolerance, double mad_k, double *gap)
{
	double worse = dir == FLEET_DIR_HIGHER ? med - v : dir == FLEET_DIR_LOWER ? v - med : 0;

	*gap = med != 0 ? worse / fabs(med) : 0;
	/* a median of 0 has no "percent below": such a value is never one */
	return dir != FLEET_DIR_NONE && med != 0 && *gap > tolerance && worse > mad_k * mad;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

enum fleet_dir
fleet_direction(const char *name, const char *unit)
{
	static const char *const lower[] = {"ns", "us", "ms", "s", "C"};
	size_t i;

	if (unit && *unit) {
		if (ends_with(unit, "/s") || !strcmp(unit, "IOPS") || !strcmp(unit, "lanes"))
			return FLEET_DIR_HIGHER;
		for (i = 0; i < LEN(lower); i++)
			if (!strcmp(unit, lower[i]))
				return FLEET_DIR_LOWER;
		return FLEET_DIR_NONE;
	}
	if (strstr(name, "latency") || ends_with(name, "time"))
		return FLEET_DIR_LOWER;
	if (strstr(name, "busbw") || strstr(name, "throughput") || strstr(name, "flops"))
		return FLEET_DIR_HIGHER;
	return FLEET_DIR_NONE;
}
