/* hostlist.c: Slurm's hostlist syntax ("node-[001-003,7]", "a,b",
 * "n[1-2]-ib", "a[1-2]b[3-4]"), the one expander of every node list kunai
 * reads or writes (DESIGN 16): the model's (a system's and a test's node
 * lists), the runner's (a group's nodes, sacct's NodeList) and the
 * reports' (job.json, summary.json). Two rules for a range's zero
 * padding: CloudAI's for the TOML (the width of the range's end) and
 * Slurm's for what Slurm wrote (the width of its start). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "util.h"

enum {
	/* A hostlist that names more nodes than this is a typo (node-[1-1000000]). */
	HOSTLIST_MAX = 100000,
};

struct names {
	char **v;
	size_t len, cap;
};

static bool
names_add(struct names *l, const char *s, size_t n)
{
	if (l->len == HOSTLIST_MAX)
		return false;
	l->v = xreserve(l->v, l->len + 1, &l->cap, sizeof(*l->v));
	l->v[l->len] = xmalloc(n + 1);
	memcpy(l->v[l->len], s, n);
	l->v[l->len][n] = '\0';
	l->len++;
	return true;
}

static bool
host_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.';
}

/* Expands prefix + part (a hostlist element with any number of bracket
 * groups, none nested) into l. */
static bool
expand_part(struct buf *prefix, const char *s, const char *end, bool slurm, struct names *l)
{
	const char *open, *close, *item, *e, *q;
	size_t keep = prefix->len;
	long lo, hi, i;
	int width;
	char num[32];
	bool ok = true;

	for (open = s; open < end && *open != '['; open++)
		if (!host_char((unsigned char)*open))
			return false;
	buf_push(prefix, s, (size_t)(open - s));
	if (open == end) {
		ok = prefix->len > 0 && names_add(l, prefix->data, prefix->len);
		prefix->len = keep;
		return ok;
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (!close || close == open + 1 || open[1] == ',' || close[-1] == ',') {
		prefix->len = keep;
		return false;
	}
	for (item = open + 1; ok && item < close; item = e + 1) {
		e = memchr(item, ',', (size_t)(close - item));
		if (!e)
			e = close;
		q = item;
		if ((lo = util_digits(&q)) < 0) {
			ok = false;
			break;
		}
		if (q == e) {
			/* a single number keeps its digits as written */
			buf_push(prefix, item, (size_t)(e - item));
			ok = expand_part(prefix, close + 1, end, slurm, l);
			prefix->len = keep + (size_t)(open - s);
			continue;
		}
		if (*q != '-') {
			ok = false;
			break;
		}
		q++;
		/* Slurm pads to the width of the range's start ("n[8-10]" is
		 * n8..n10), CloudAI to that of its end (n08..n10) */
		width = slurm ? (int)(q - 1 - item) : (int)(e - q);
		if ((hi = util_digits(&q)) < 0 || q != e || hi < lo || hi - lo >= HOSTLIST_MAX) {
			ok = false;
			break;
		}
		for (i = lo; ok && i <= hi; i++) {
			snprintf(num, sizeof(num), "%0*ld", width, i);
			buf_puts(prefix, num);
			ok = expand_part(prefix, close + 1, end, slurm, l);
			prefix->len = keep + (size_t)(open - s);
		}
	}
	prefix->len = keep;
	return ok;
}

/* Expands spec into l (malloc'd names); false, with l partly filled, on
 * malformed input. */
static bool
expand(const char *spec, bool slurm, struct names *l)
{
	struct buf prefix = {0};
	const char *p, *part;
	int depth = 0;
	bool ok = true;

	if (!spec || !*spec)
		return false;
	/* brackets must balance and not nest; commas split only outside them */
	for (p = spec; *p; p++) {
		if (*p == '[' && depth++)
			return false;
		if (*p == ']' && --depth < 0)
			return false;
	}
	if (depth)
		return false;
	for (part = p = spec; ok; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		ok = p > part && expand_part(&prefix, part, p, slurm, l);
		if (!*p)
			break;
		part = p + 1;
	}
	buf_free(&prefix);
	return ok;
}

static void
names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		free(l->v[i]);
	free(l->v);
}

bool
hostlist_expand(struct arena *a, const char *spec, const char ***items, size_t *len)
{
	struct names l = {0};
	bool ok = expand(spec, false, &l);
	size_t i;

	if (ok && l.len) {
		*items = arena_grow(a, (void *)*items, *len, *len + l.len, sizeof(**items));
		for (i = 0; i < l.len; i++)
			(*items)[*len + i] = arena_strdup(a, l.v[i]);
		*len += l.len;
	}
	names_free(&l);
	return ok;
}

static int
cmp_name(const void *x, const void *y)
{
	return strcmp(**(char **const *)x, **(char **const *)y);
}

/* Drops the names l repeats, keeping each one's first place; the number left. */
static size_t
names_uniq(struct names *l)
{
	char ***by = xmalloc((l->len + 1) * sizeof(*by));
	size_t i, k;

	for (i = 0; i < l->len; i++)
		by[i] = &l->v[i];
	qsort(by, l->len, sizeof(*by), cmp_name);
	/* of equal names, the one qsort put first may be any: free all but the earliest */
	for (i = 1; i < l->len; i++)
		if (!strcmp(*by[i], *by[i - 1])) {
			char **keep = by[i] < by[i - 1] ? by[i] : by[i - 1], **drop = keep == by[i] ? by[i - 1] : by[i];
			free(*drop);
			*drop = NULL;
			by[i] = keep;
		}
	free(by);
	for (i = k = 0; i < l->len; i++)
		if (l->v[i])
			l->v[k++] = l->v[i];
	l->len = k;
	return k;
}

const char *
hostlist_join(struct arena *a, const char *spec)
{
	struct names l = {0};
	struct buf b = {0};
	const char *r;
	size_t i;

	if (!spec || !*spec)
		return NULL;
	if (!strpbrk(spec, "[,")) /* one name: nothing to expand */
		return spec;
	if (!expand(spec, true, &l)) {
		names_free(&l);
		return spec;
	}
	names_uniq(&l);
	for (i = 0; i < l.len; i++) {
		if (i)
			buf_putc(&b, ',');
		buf_puts(&b, l.v[i]);
	}
	r = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	names_free(&l);
	return r;
}

size_t
hostlist_count(const char *spec)
{
	struct names l = {0};
	size_t n;

	if (!spec || !*spec)
		return 0;
	if (!strpbrk(spec, "[,"))
		return 1;
	n = expand(spec, true, &l) ? names_uniq(&l) : 1;
	names_free(&l);
	return n;
}


/* name as prefix, number (its last run of digits) and suffix; false when it
 * has no digits or too many */
static bool
split_name(const char *name, size_t *pre, size_t *digits, long *num)
{
	size_t n = strlen(name), e = n, b;
	const char *q;

	while (e > 0 && !isdigit((unsigned char)name[e - 1]))
		e--;
	for (b = e; b > 0 && isdigit((unsigned char)name[b - 1]); b--)
		;
	if (e == 0 || e - b > 9)
		return false;
	q = name + b;
	*num = util_digits(&q);
	*pre = b;
	*digits = e - b;
	return *num >= 0;
}

const char *
hostlist_compress(struct arena *a, const char *list)
{
	const char *all = hostlist_join(a, list), *p, *e, *r;
	const char **v = NULL;
	size_t n = 0, cap = 0, i, j, k, start, *pre, *dig;
	long *num;
	bool *ok;
	struct buf b = {0};

	if (!all || !strchr(all, ','))
		return all;
	for (p = all; p; p = e ? e + 1 : NULL) {
		e = strchr(p, ',');
		v = arena_reserve(a, v, n, n + 1, &cap, sizeof(*v));
		v[n++] = e ? arena_strndup(a, p, (size_t)(e - p)) : p;
	}
	pre = arena_alloc(a, n * sizeof(*pre));
	dig = arena_alloc(a, n * sizeof(*dig));
	num = arena_alloc(a, n * sizeof(*num));
	ok = arena_alloc(a, n * sizeof(*ok));
	for (i = 0; i < n; i++)
		ok[i] = split_name(v[i], &pre[i], &dig[i], &num[i]);
	for (i = 0; i < n; i = j) {
		if (b.len)
			buf_putc(&b, ',');
		/* the names after it with the same prefix, width and suffix */
		for (j = i + 1; ok[i] && j < n && ok[j] && pre[j] == pre[i] && dig[j] == dig[i] &&
		                !strncmp(v[j], v[i], pre[i]) && !strcmp(v[j] + pre[j] + dig[j], v[i] + pre[i] + dig[i]);
		     j++)
			;
		if (j == i + 1) {
			buf_puts(&b, v[i]);
			continue;
		}
		buf_push(&b, v[i], pre[i]);
		buf_putc(&b, '[');
		for (k = i; k < j; k++) {
			start = k;
			while (k + 1 < j && num[k + 1] == num[k] + 1)
				k++;
			buf_printf(&b, "%s%.*s", start > i ? "," : "", (int)dig[start], v[start] + pre[start]);
			if (k > start)
				buf_printf(&b, "-%.*s", (int)dig[k], v[k] + pre[k]);
		}
		buf_putc(&b, ']');
		buf_puts(&b, v[i] + pre[i] + dig[i]);
	}
	r = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	return r;
}
