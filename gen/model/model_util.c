/* model_util.c: the model's small parsers and helpers with no TOML in
 * them: Slurm time limits, Slurm hostlists, and "did you mean". */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_priv.h"
#include "gen/base/hostlist.h"
#include "gen/base/util.h"

enum {
	/* Longer words are not compared: no key is that long, and the
	 * distance table stays small. */
	SUGGEST_MAX_LEN = 64,
};

/* Limits above a century are typos, and keep every sum in a long. */
#define TIME_MAX (100L * 366 * 24 * 3600)

/* Optimal string alignment distance (Levenshtein plus adjacent
 * transpositions), ignoring case when fold. */
static size_t
edit_distance(const char *a, const char *b, bool fold)
{
	size_t n = strlen(a), m = strlen(b), i, j, d, best;
	size_t rows[3][SUGGEST_MAX_LEN + 1];
	size_t *pp = rows[0], *p = rows[1], *cur = rows[2], *t;
	int ca, cb;

	if (n > SUGGEST_MAX_LEN || m > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	for (j = 0; j <= m; j++)
		p[j] = j;
	for (i = 1; i <= n; i++) {
		cur[0] = i;
		for (j = 1; j <= m; j++) {
			ca = (unsigned char)a[i - 1];
			cb = (unsigned char)b[j - 1];
			if (fold) {
				ca = tolower(ca);
				cb = tolower(cb);
			}
			best = p[j - 1] + (ca != cb);
			if (p[j] + 1 < best)
				best = p[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1) {
				int pa = (unsigned char)a[i - 2], pb = (unsigned char)b[j - 2];
				if (fold) {
					pa = tolower(pa);
					pb = tolower(pb);
				}
				if (ca == pb && pa == cb && pp[j - 2] + 1 < best)
					best = pp[j - 2] + 1;
			}
			cur[j] = best;
		}
		t = pp;
		pp = p;
		p = cur;
		cur = t;
	}
	d = p[m];
	return d;
}

static const char *
suggest(const char *word, const char *const *cands, size_t n, size_t maxd, bool fold)
{
	const char *best = NULL;
	size_t i, d, bestd = SIZE_MAX;

	for (i = 0; i < n && cands[i]; i++) {
		if (strcmp(word, cands[i]) == 0)
			continue;
		d = edit_distance(word, cands[i], fold);
		if (d <= maxd && d < bestd) {
			best = cands[i];
			bestd = d;
		}
	}
	return best;
}

const char *
m_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);

	/* one edit in a very short word makes anything look alike */
	return suggest(word, cands, n, len <= 1 ? 0 : len <= 3 ? 1 : 2, true);
}

const char *
m_suggest_close(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);

	/* Pass-through flags are short and case-sensitive (-R, -G): only
	 * longer words that nearly equal a known key are treated as typos. */
	if (len < 4)
		return NULL;
	return suggest(word, cands, n, len < 6 ? 1 : 2, false);
}

void
m_did_you_mean(struct buf *b, const char *word, const char *const *cands, size_t n)
{
	const char *s = m_suggest(word, cands, n);

	if (s)
		buf_printf(b, " (did you mean '%s'?)", s);
}

/* A time limit read as CloudAI reads it (cloudai.util.parse_time_limit),
 * so that a file written for CloudAI means the same here: N with s, m, h,
 * d or w (any case); D-H:M:S; H:M:S; H:M (hours and minutes, not Slurm's
 * minutes and seconds). Fields are not range-checked ("00:60:00" is an
 * hour), as CloudAI normalises them. Slurm's forms that CloudAI refuses, a
 * bare number of minutes, D-H and D-H:M, are read as Slurm reads them and
 * *slurm_only says so. */
long
model_parse_time(const char *s, bool *slurm_only)
{
	long f[3] = {0, 0, 0}, days = -1, t;
	int n = 0;
	const char *p = s;
	const char *units = "smhdw";

	*slurm_only = false;
	if (!s || (f[0] = util_digits(&p)) < 0)
		return -1;
	if (*p && !p[1] && strchr(units, tolower((unsigned char)*p))) {
		static const long unit[] = {1, 60, 3600, 86400, 7 * 86400};
		t = f[0] * unit[strchr(units, tolower((unsigned char)*p)) - units];
		return t > TIME_MAX ? -1 : t;
	}
	if (*p == '-') {
		days = f[0];
		p++;
		if ((f[0] = util_digits(&p)) < 0)
			return -1;
	}
	n = 1;
	while (*p == ':' && n < 3) {
		p++;
		if ((f[n] = util_digits(&p)) < 0)
			return -1;
		n++;
	}
	if (*p)
		return -1;
	if (days >= 0) {
		*slurm_only = n < 3; /* D-H, D-H:M */
		t = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	} else if (n == 1) {
		*slurm_only = true;
		t = f[0] * 60; /* Slurm's MM */
	} else if (n == 2) {
		t = f[0] * 3600 + f[1] * 60; /* CloudAI's H:M */
	} else {
		t = f[0] * 3600 + f[1] * 60 + f[2];
	}
	return t > TIME_MAX ? -1 : t;
}

void
model_format_time(long seconds, char *out, size_t n)
{
	long d, h, m, s;

	if (seconds < 0)
		seconds = 0;
	d = seconds / 86400;
	h = seconds / 3600 % 24;
	m = seconds / 60 % 60;
	s = seconds % 60;
	if (d)
		snprintf(out, n, "%ld-%02ld:%02ld:%02ld", d, h, m, s);
	else
		snprintf(out, n, "%02ld:%02ld:%02ld", h, m, s);
}

void
model_format_float(double v, char *out, size_t n)
{
	char sci[40], dig[24], *q;
	int prec, exp, nd, i;
	struct buf b = {0};

	if (isnan(v) || isinf(v)) {
		snprintf(out, n, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
		return;
	}
	/* the shortest digits that read back as v, like Python's repr */
	for (prec = 0; prec < 17; prec++) {
		snprintf(sci, sizeof(sci), "%.*e", prec, v);
		if (strtod(sci, NULL) == v)
			break;
	}
	q = sci;
	if (*q == '-')
		buf_putc(&b, *q++);
	for (nd = 0; *q && *q != 'e'; q++)
		if (*q != '.')
			dig[nd++] = *q;
	dig[nd] = '\0';
	exp = atoi(q + 1);
	while (nd > 1 && dig[nd - 1] == '0')
		dig[--nd] = '\0';
	if (exp >= -4 && exp < 16) {
		if (exp >= 0) {
			for (i = 0; i <= exp; i++)
				buf_putc(&b, i < nd ? dig[i] : '0');
			buf_putc(&b, '.');
			buf_puts(&b, nd > exp + 1 ? dig + exp + 1 : "0");
		} else {
			buf_puts(&b, "0.");
			for (i = 0; i < -exp - 1; i++)
				buf_putc(&b, '0');
			buf_puts(&b, dig);
		}
	} else {
		buf_putc(&b, dig[0]);
		if (nd > 1)
			buf_printf(&b, ".%s", dig + 1);
		buf_printf(&b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
	snprintf(out, n, "%s", buf_str(&b));
	buf_free(&b);
}

void
strlist_reserve(struct arena *a, struct strlist *l, size_t need)
{
	size_t cap;

	if (!l->items || !l->pos)
		l->cap = 0; /* built by hand: no spare room */
	if (need <= l->cap)
		return;
	/* items and pos share one capacity: both get the same new room */
	cap = l->cap;
	l->items = arena_reserve(a, (void *)l->items, l->len, need, &cap, sizeof(*l->items));
	l->pos = arena_reserve(a, l->pos, l->pos ? l->len : 0, need, &l->cap, sizeof(*l->pos));
}

void
strlist_add(struct arena *a, struct strlist *l, const char *s, struct toml_pos pos)
{
	strlist_reserve(a, l, l->len + 1);
	l->items[l->len] = s;
	l->pos[l->len] = pos;
	l->len++;
}

bool
model_expand_hostlist(struct arena *a, const char *spec, struct strlist *out)
{
	const char **names = NULL;
	size_t n = 0, i;

	if (!hostlist_expand(a, spec, &names, &n))
		return false;
	/* through strlist_reserve, which keeps items and pos one capacity;
	 * the names have no place of their own */
	strlist_reserve(a, out, out->len + n);
	for (i = 0; i < n; i++) {
		out->items[out->len + i] = names[i];
		out->pos[out->len + i] = (struct toml_pos){0};
	}
	out->len += n;
	return true;
}

/* The aliases build.ninja defines, the build dir's own files, and ninja's
 * own tool names: a test id (also a phony target) must not take them. */
static const char *const model_reserved_ids[] = {
	"run", "report", "scripts", "always", "build.ninja", "local.ninja", "kunai.json", "report.ninja",
	"clean", "all", "default", "prepare", "cleanup", "phases", "install", "uninstall", "installables",
	".kunai", ".ninja_log", ".ninja_deps", NULL,
};

bool
model_reserved_id(const char *id)
{
	size_t i;

	for (i = 0; model_reserved_ids[i]; i++)
		if (strcmp(id, model_reserved_ids[i]) == 0)
			return true;
	return false;
}
