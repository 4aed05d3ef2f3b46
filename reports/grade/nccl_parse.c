/* grade/nccl_parse.c: reads nccl-tests' text output (see ../shared/WORKLOADS.md
 * 1.1). Columns moved between versions (no root column before 2.13, "error"
 * instead of "#wrong", extra -I/-S columns), so the column header line says
 * where busbw and #wrong are; without one, the current 13-column layout is
 * assumed. Lines are split on blanks, never cut at fixed columns. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reports/grade/parse.h"
#include "gen/base/util.h"

/* Where rows and ranks go when the caller wants them (NULL: nowhere). */
struct collect {
	struct arena *a;
	struct nccl_detail *d;
};

enum { MAX_TOKENS = 64, MAX_HALVES = 4 };

struct layout {
	size_t ncols;
	size_t busbw[MAX_HALVES], wrong[MAX_HALVES];
	size_t n_busbw, n_wrong;
};

/* Splits [p, end) on blanks; returns the token count (at most MAX_TOKENS). */
static size_t
split(const char *p, const char *end, const char **tok, size_t *tlen)
{
	size_t n = 0;

	while (p < end && n < MAX_TOKENS) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == end)
			break;
		tok[n] = p;
		while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		tlen[n] = (size_t)(p - tok[n]);
		n++;
	}
	return n;
}

static bool
tok_is(const char *t, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(t, s, n) == 0;
}

static bool
all_digits(const char *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] < '0' || t[i] > '9')
			return false;
	return n > 0;
}

/* Parses a whole token as a finite number. */
static bool
number(const char *t, size_t n, double *v)
{
	char tmp[64], *end;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, t, n);
	tmp[n] = '\0';
	*v = strtod(tmp, &end);
	return *end == '\0' && *v == *v && *v < 1e300 && *v > -1e300;
}

/* Adds a count read as v (at most 1e300) to *sum, saturating. */
static void
add_count(long *sum, double v)
{
	long n = util_to_long(v, LONG_MAX);

	*sum = n < LONG_MAX - *sum ? *sum + n : LONG_MAX;
}

/* "# Avg bus bandwidth    : 123.4 [OK]": the first token after the colon. */
static bool
footer_value(const char *p, const char *end, const char *label, double *v)
{
	const char *tok[MAX_TOKENS];
	size_t tlen[MAX_TOKENS], n = strlen(label);
	const char *c;

	for (c = p; c + n <= end && memcmp(c, label, n) != 0; c++)
		;
	if (c + n > end)
		return false;
	c = memchr(c, ':', (size_t)(end - c));
	return c && split(c + 1, end, tok, tlen) > 0 && number(tok[0], tlen[0], v);
}

/* "#  size  count  type  redop  root  time  algbw  busbw  #wrong ...". */
static bool
header(const char **tok, const size_t *tlen, size_t n, struct layout *l)
{
	size_t i;

	if (n < 2 || !tok_is(tok[0], tlen[0], "size"))
		return false;
	memset(l, 0, sizeof(*l));
	l->ncols = n;
	for (i = 0; i < n; i++) {
		if (tok_is(tok[i], tlen[i], "busbw") && l->n_busbw < MAX_HALVES)
			l->busbw[l->n_busbw++] = i;
		if (tok_is(tok[i], tlen[i], "#wrong") && l->n_wrong < MAX_HALVES)
			l->wrong[l->n_wrong++] = i;
	}
	return l->n_busbw > 0;
}

static void
row(const char **tok, const size_t *tlen, size_t n, const struct layout *l, struct nccl_result *out,
    double *sum, size_t *count, const struct collect *c)
{
	struct nccl_row r = {0};
	double size, v;
	bool any = false;
	size_t i;

	if (n < l->ncols || !all_digits(tok[0], tlen[0]) || !all_digits(tok[1], tlen[1]) ||
	    !number(tok[0], tlen[0], &size))
		return;
	for (i = 0; i < l->n_busbw; i++) {
		if (!number(tok[l->busbw[i]], tlen[l->busbw[i]], &v))
			continue;
		if (*count == 0 || v > out->max_busbw || (v == out->max_busbw && size > out->max_busbw_size))
			out->max_busbw = v, out->max_busbw_size = size;
		/* time and algbw precede busbw in every layout */
		if (i < 2 && l->busbw[i] >= 2) {
			r.busbw[i] = v;
			r.ok[i] = number(tok[l->busbw[i] - 2], tlen[l->busbw[i] - 2], &r.time_us[i]) &&
			          number(tok[l->busbw[i] - 1], tlen[l->busbw[i] - 1], &r.algbw[i]);
		}
		*sum += v;
		(*count)++;
		any = true;
	}
	/* "N/A" with -c 0: nothing was checked */
	for (i = 0; i < l->n_wrong; i++)
		if (number(tok[l->wrong[i]], tlen[l->wrong[i]], &v) && v > 0)
			add_count(&out->wrong, v);
	if (any)
		out->rows++;
	if (any && c->d) {
		r.size = size;
		c->d->rows = arena_reserve(c->a, c->d->rows, c->d->n_rows, c->d->n_rows + 1, &c->d->cap_rows, sizeof(r));
		c->d->rows[c->d->n_rows++] = r;
	}
}

/* "#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3" */
static void
rank_line(const char **tok, const size_t *tlen, size_t n, const char *eol, const struct collect *c)
{
	struct nccl_rank k;
	double v;

	if (!c->d || n < 10 || !tok_is(tok[0], tlen[0], "Rank") || !tok_is(tok[6], tlen[6], "on") ||
	    !tok_is(tok[8], tlen[8], "device") || !number(tok[1], tlen[1], &v) || (k.rank = util_to_int(v, -1)) < 0)
		return;
	k.host = arena_strndup(c->a, tok[7], tlen[7]);
	k.device = number(tok[9], tlen[9], &v) ? util_to_int(v, -1) : -1;
	/* the model is the rest of the line after "[bus]" */
	k.model = NULL;
	if (n >= 12)
		k.model = arena_strndup(c->a, tok[11], (size_t)(eol - tok[11]));
	c->d->ranks = arena_reserve(c->a, c->d->ranks, c->d->n_ranks, c->d->n_ranks + 1, &c->d->cap_ranks, sizeof(k));
	c->d->ranks[c->d->n_ranks++] = k;
}

bool
nccl_parse(const char *text, size_t len, struct nccl_result *out)
{
	return nccl_parse_detail(NULL, text, len, out, NULL);
}

bool
nccl_parse_detail(struct arena *a, const char *text, size_t len, struct nccl_result *out,
                  struct nccl_detail *d)
{
	const struct collect c = {a, d};
	static const struct layout current = {13, {7, 11}, {8, 12}, 2, 2};
	struct layout l = current;
	const char *p = text, *end = text + len, *eol, *tok[MAX_TOKENS];
	size_t tlen[MAX_TOKENS], n, count = 0, footers = 0;
	double sum = 0, footer_sum = 0, v;
	bool oob = false;

	memset(out, 0, sizeof(*out));
	if (d)
		memset(d, 0, sizeof(*d));
	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		/* srun --label prefixes "N: " */
		if (p < eol && *p >= '0' && *p <= '9') {
			const char *q = p;
			while (q < eol && *q >= '0' && *q <= '9')
				q++;
			if (q + 1 < eol && q[0] == ':' && q[1] == ' ')
				for (p = q + 1; p < eol && (*p == ' ' || *p == '\t'); p++)
					;
		}
		if (p < eol && *p == '#') {
			n = split(p + 1, eol, tok, tlen);
			if (footer_value(p, eol, "Avg bus bandwidth", &v))
				footer_sum += v, footers++;
			else if (footer_value(p, eol, "Out of bounds values", &v) && v >= 0)
				add_count(&out->oob, v), oob = true;
			else if (!header(tok, tlen, n, &l))
				rank_line(tok, tlen, n, eol, &c);
			continue;
		}
		n = split(p, eol, tok, tlen);
		row(tok, tlen, n, &l, out, &sum, &count, &c);
	}
	out->has_oob = oob;
	out->footer_avg = footers > 0;
	/* several single-process tests in one output print a footer each */
	if (footers)
		out->avg_busbw = footer_sum / (double)footers;
	else if (count)
		out->avg_busbw = sum / (double)count;
	return out->rows > 0 || footers > 0 || oob;
}
