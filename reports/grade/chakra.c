/* grade/chakra.c: ChakraReplay, PARAM's comm_replay output read as CloudAI's
 * chakra_replay report strategy reads it: "Replayed N OP" (how often each
 * collective was replayed), the latency table after a "Latency (us)" line
 * (Total, Max, Min, Average, p50, p95 of the op last named) and, before
 * "Performance of replayed comms", the tensor size tables ("+ N OP", then
 * "Input tensors" / "Output tensors" rows of Total (MB), Max., Min.,
 * Average, p50, p95). The first row of each table is reported. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

static bool
word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The numbers of a line as \b\d+\.?\d*\b finds them; returns how many (at most max). */
static size_t
numbers(const char *p, size_t n, double *v, size_t max)
{
	size_t i = 0, k = 0;

	while (i < n && k < max) {
		size_t s = i, e;
		if (!isdigit((unsigned char)p[i]) || (i > 0 && word_char(p[i - 1]))) {
			i++;
			continue;
		}
		for (e = s; e < n && isdigit((unsigned char)p[e]); e++)
			;
		if (e < n && p[e] == '.')
			for (e++; e < n && isdigit((unsigned char)p[e]); e++)
				;
		if (e < n && word_char(p[e]) && p[e - 1] != '.') {
			i = e;
			continue;
		}
		v[k++] = strtod(p + s, NULL);
		i = e;
	}
	return k;
}

/* "Replayed N OP" / "+ N OP": N and OP (a \w+ word) after pat. */
static bool
count_op(const char *p, size_t n, const char *pat, double *count, const char **op, size_t *op_len)
{
	size_t m = strlen(pat), i, j, k;

	for (i = 0; i + m <= n; i++) {
		if (memcmp(p + i, pat, m) != 0)
			continue;
		for (j = i + m; j < n && isdigit((unsigned char)p[j]); j++)
			;
		if (j == i + m || j >= n || p[j] != ' ')
			continue;
		for (k = j + 1; k < n && word_char(p[k]); k++)
			;
		if (k == j + 1)
			continue;
		*count = strtod(p + i + m, NULL);
		*op = p + j + 1;
		*op_len = k - j - 1;
		return true;
	}
	return false;
}

static bool
has(const char *p, size_t n, const char *pat)
{
	size_t m = strlen(pat), i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(p + i, pat, m) == 0)
			return true;
	return false;
}

static void
add(struct arena *a, struct run_report *out, const char *op, size_t op_len, const char *what, const char *unit,
    double v)
{
	metric_add(a, out, arena_printf(a, "%.*s_%s", (int)op_len, op, what), unit, v);
}

void
grade_chakra_replay(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                    struct run_report *out)
{
	static const char *const lat[] = {"latency_total_us", "latency_max_us", "latency_min_us",
	                                  "latency_avg_us", "latency_p50_us", "latency_p95_us"};
	static const char *const ten[] = {"total_mb", "max_mb", "min_mb", "avg_mb", "p50_mb", "p95_mb"};
	const char *p = text, *end = text + len, *nl, *op = NULL, *top = NULL;
	size_t op_len = 0, top_len = 0, k, i;
	bool in_lat = false, lat_done = false, sizes = true, row_done = false;
	const char *section = NULL;
	double v[6], c, counts[64];
	const char *ops[64];
	size_t lens[64], nops = 0;

	(void)r;
	for (; p < end; p = nl + 1) {
		size_t n;
		const char *o;
		size_t ol;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		/* tensor sizes, up to the performance summary */
		if (sizes && has(p, n, "Performance of replayed comms"))
			sizes = false;
		if (sizes && !has(p, n, "+++++") && !has(p, n, "----")) {
			if (count_op(p, n, "+ ", &c, &o, &ol)) {
				top = o, top_len = ol, section = NULL;
			} else if (has(p, n, "Input tensors") || has(p, n, "Output tensors")) {
				section = has(p, n, "Input") ? "input" : "output";
				row_done = false;
			} else if (top && section && !row_done && (k = numbers(p, n, v, 6)) == 6) {
				for (i = 0; i < k; i++)
					add(a, out, top, top_len, arena_printf(a, "%s_%s", section, ten[i]), "MB", v[i]);
				row_done = true;
			}
		}
		/* counts and latency tables */
		if (has(p, n, "Replayed") && !has(p, n, "Latency (us)")) {
			if (count_op(p, n, "Replayed ", &c, &o, &ol)) {
				op = o, op_len = ol;
				lat_done = false;
				/* the last count of an op stands, as in CloudAI's dict */
				for (i = 0; i < nops && !(lens[i] == ol && memcmp(ops[i], o, ol) == 0); i++)
					;
				if (i < LEN(ops)) {
					ops[i] = o, lens[i] = ol, counts[i] = c;
					nops += i == nops;
				}
			}
		} else if (has(p, n, "Latency (us)")) {
			in_lat = true;
		} else if (in_lat) {
			k = numbers(p, n, v, 6);
			if (!k)
				in_lat = false;
			else if (op && !lat_done) {
				for (i = 0; i < k; i++)
					add(a, out, op, op_len, lat[i], "us", v[i]);
				lat_done = true;
			}
		}
		if (nl == end)
			break;
	}
	for (i = 0; i < nops; i++)
		add(a, out, ops[i], lens[i], "count", "count", counts[i]);
}
