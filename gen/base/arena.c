/* arena.c: the bump allocator, the one way arrays grow (doubling their
 * room: memory linear in what they hold, however they are filled), and
 * the string table over it. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

enum { ARENA_BLOCK = 1 << 20 };

/* The room for need elements when *cap is too small: doubling (from 8)
 * makes filling an array one element at a time linear in its length. */
static size_t
grow_cap(size_t cap, size_t need, size_t sz)
{
	size_t n = cap >= 4 ? cap : 4;

	do
		n = n > SIZE_MAX / 2 ? SIZE_MAX : n * 2;
	while (n < need);
	if (sz && n > SIZE_MAX / sz)
		fatal("out of memory");
	return n;
}

void *
xreserve(void *p, size_t need, size_t *cap, size_t sz)
{
	if (need <= *cap && p)
		return p;
	*cap = grow_cap(*cap, need, sz);
	return xrealloc(p, *cap * sz);
}

void *
arena_alloc(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t align = _Alignof(max_align_t);
	void *p;

	n = (n + align - 1) & ~(align - 1);
	if (!b || b->cap - b->used < n) {
		size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
		if (cap > SIZE_MAX - sizeof(*b))
			fatal("out of memory");
		b = xmalloc(sizeof(*b) + cap);
		b->cap = cap;
		b->used = 0;
		if (n > ARENA_BLOCK / 4 && a->head) {
			/* keep filling the current block; chain the big one behind it */
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
		a->total += cap;
	}
	p = (char *)b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *
arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void *
arena_grow(struct arena *a, void *p, size_t old_n, size_t new_n, size_t sz)
{
	void *q;

	if (new_n && sz > SIZE_MAX / new_n)
		fatal("out of memory");
	q = arena_alloc(a, new_n * sz);
	if (old_n)
		memcpy(q, p, old_n * sz);
	return q;
}

/* The rounded size arena_alloc gives n bytes. */
static size_t
arena_round(size_t n)
{
	size_t align = _Alignof(max_align_t);

	return n > SIZE_MAX - align ? SIZE_MAX : (n + align - 1) & ~(align - 1);
}

/* A big array that fills a block of its own (old bytes of it in use) is
 * resized with realloc, which gives the old block back (mremap, no copy,
 * for large ones); NULL when p is not such an array. */
static void *
arena_resize_own(struct arena *a, void *p, size_t old, size_t new)
{
	struct arena_block **pp, *b;

	old = arena_round(old);
	new = arena_round(new);
	if (new <= ARENA_BLOCK / 4 || new > SIZE_MAX - sizeof(*b))
		return NULL;
	for (pp = &a->head; (b = *pp); pp = &b->next)
		if ((void *)b->data == p)
			break;
	if (!b || b->used != old)
		return NULL;
	b = xrealloc(b, sizeof(*b) + new);
	memset((char *)b->data + old, 0, new - old);
	a->total += new - b->cap;
	b->cap = b->used = new;
	*pp = b;
	return b->data;
}

void *
arena_reserve(struct arena *a, void *p, size_t n, size_t need, size_t *cap, size_t sz)
{
	size_t c;
	void *q;

	if (need <= *cap && p)
		return p;
	c = grow_cap(*cap, need, sz);
	if (!p || !(q = arena_resize_own(a, p, *cap * sz, c * sz)))
		q = arena_grow(a, p, p ? n : 0, c, sz);
	*cap = c;
	return q;
}

void
arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->total = 0;
}

char *
arena_printf(struct arena *a, const char *fmt, ...)
{
	struct buf b = {0};
	char *r;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	return r;
}

const char *
strtab_intern(struct arena *a, struct strtab *t, const char *s)
{
	size_t i;

	if (!s)
		return NULL;
	if (2 * (t->n + 1) > t->cap) {
		struct strtab g = {0};
		g.cap = t->cap ? 2 * t->cap : 256;
		g.slot = xcalloc(g.cap, sizeof(*g.slot));
		for (i = 0; i < t->cap; i++)
			if (t->slot[i])
				strtab_intern(NULL, &g, t->slot[i]);
		free(t->slot);
		*t = g;
	}
	for (i = util_hash(s, strlen(s)) & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
		if (strcmp(t->slot[i], s) == 0)
			return t->slot[i];
	t->n++;
	return t->slot[i] = a ? arena_strdup(a, s) : s;
}

void
strtab_free(struct strtab *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
