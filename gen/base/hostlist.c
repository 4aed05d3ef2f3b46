/* hostlist.c: Slurm's hostlist syntax ("node-[001-003,7]", "a,b"), which
 * the model (a system's and a test's node lists) and the runner (the nodes
 * of a group, chosen at submission) both expand. */
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
expand_part(struct buf *prefix, const char *s, const char *end, struct names *l)
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
			ok = expand_part(prefix, close + 1, end, l);
			prefix->len = keep + (size_t)(open - s);
			continue;
		}
		if (*q != '-') {
			ok = false;
			break;
		}
		q++;
		width = (int)(e - q);
		if ((hi = util_digits(&q)) < 0 || q != e || hi < lo || hi - lo >= HOSTLIST_MAX) {
			ok = false;
			break;
		}
		/* CloudAI pads to the width of the range's end */
		for (i = lo; ok && i <= hi; i++) {
			snprintf(num, sizeof(num), "%0*ld", width, i);
			buf_puts(prefix, num);
			ok = expand_part(prefix, close + 1, end, l);
			prefix->len = keep + (size_t)(open - s);
		}
	}
	prefix->len = keep;
	return ok;
}

bool
hostlist_expand(struct arena *a, const char *spec, const char ***items, size_t *len)
{
	struct names l = {0};
	struct buf prefix = {0};
	const char *p, *part;
	int depth = 0;
	bool ok = true;
	size_t i;

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
		ok = p > part && expand_part(&prefix, part, p, &l);
		if (!*p)
			break;
		part = p + 1;
	}
	if (ok && l.len) {
		*items = arena_grow(a, (void *)*items, *len, *len + l.len, sizeof(**items));
		for (i = 0; i < l.len; i++)
			(*items)[*len + i] = arena_strdup(a, l.v[i]);
		*len += l.len;
	}
	for (i = 0; i < l.len; i++)
		free(l.v[i]);
	free(l.v);
	buf_free(&prefix);
	return ok;
}

