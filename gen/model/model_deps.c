/* model_deps.c: a scenario's dependencies: test ids looked up by hash (for
 * the duplicate check and each dependency), resolved to cases, and every
 * cycle reported. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

/* Reports each dependency cycle as "a -> b -> a" at the edge closing it.
 * Every kind of dependency counts: ninja cannot express any cycle. */
static void
check_cycles(struct mctx *c, struct scenario *sc)
{
	size_t n = sc->n_cases, *stack = xcalloc(n + 1, sizeof(*stack));
	size_t *next = xcalloc(n + 1, sizeof(*next)), sp, i, u, j;
	char *color = xcalloc(n + 1, 1); /* 0 new, 1 on the stack, 2 done */
	struct test_case *tc;
	struct buf b = {0};
	struct dep *d;

	for (i = 0; i < n; i++) {
		if (color[i])
			continue;
		sp = 0;
		stack[sp++] = i;
		color[i] = 1;
		next[i] = 0;
		while (sp) {
			u = stack[sp - 1];
			tc = &sc->cases[u];
			if (next[u] == tc->n_deps) {
				color[u] = 2;
				sp--;
				continue;
			}
			d = &tc->deps[next[u]++];
			if (d->target == SIZE_MAX)
				continue;
			if (color[d->target] == 0) {
				color[d->target] = 1;
				next[d->target] = 0;
				stack[sp++] = d->target;
			} else if (color[d->target] == 1) {
				b.len = 0;
				buf_puts(&b, "dependency cycle: ");
				for (j = 0; stack[j] != d->target; j++)
					;
				for (; j < sp; j++)
					buf_printf(&b, "%s -> ", m_shown(c, sc->cases[stack[j]].id));
				buf_puts(&b, m_shown(c, sc->cases[d->target].id));
				merr(c, d->pos, "%s", b.data);
			}
		}
	}
	buf_free(&b);
	free(stack);
	free(next);
	free(color);
}


static size_t
id_hash(const char *s)
{
	size_t h = 14695981039346656037u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The case whose id is id, or SIZE_MAX; with add, case i takes the free
 * slot (when id is new). */
size_t
id_find(struct id_index *ix, const struct scenario *sc, const char *id, bool add, size_t i)
{
	size_t h = id_hash(id) & ix->mask;

	for (; ix->slot[h]; h = (h + 1) & ix->mask)
		if (strcmp(sc->cases[ix->slot[h] - 1].id, id) == 0)
			return ix->slot[h] - 1;
	if (add)
		ix->slot[h] = i + 1;
	return SIZE_MAX;
}

void
id_index_init(struct arena *a, struct id_index *ix, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 2)
		cap *= 2;
	ix->slot = arena_alloc(a, cap * sizeof(*ix->slot));
	ix->mask = cap - 1;
}

void
resolve_deps(struct mctx *c, struct scenario *sc, struct id_index *ix)
{
	const char **ids = arena_alloc(c->a, (sc->n_cases + 1) * sizeof(*ids));
	struct test_case *tc;
	struct buf b = {0};
	size_t i, j, k;
	bool ok = true;

	for (i = 0; i < sc->n_cases; i++)
		ids[i] = sc->cases[i].id ? sc->cases[i].id : "";
	for (i = 0; i < sc->n_cases; i++) {
		tc = &sc->cases[i];
		for (j = 0; j < tc->n_deps; j++) {
			tc->deps[j].target = SIZE_MAX;
			k = id_find(ix, sc, tc->deps[j].id, false, 0);
			if (k == SIZE_MAX) {
				b.len = 0;
				buf_printf(&b, "unknown test id '%s'", m_shown(c, tc->deps[j].id));
				m_did_you_mean(&b, tc->deps[j].id, ids, sc->n_cases);
				merr(c, tc->deps[j].pos, "%s", b.data);
				ok = false;
			} else if (k == i) {
				merr(c, tc->deps[j].pos, "test '%s' depends on itself",
				     m_shown(c, tc->id));
				ok = false;
			} else {
				tc->deps[j].target = k;
			}
		}
	}
	buf_free(&b);
	if (ok)
		check_cycles(c, sc);
}
