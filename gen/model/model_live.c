/* model_live.c: the live shell values of a campaign (environment values
 * and container mounts, which CloudAI writes bare for its shell to expand;
 * doc/manual.md, "Variables in values"): a value no script can hold is a
 * located error, a value whose job would see something else than
 * CloudAI's is a located warning, and a mount source under $PWD (the
 * launch dir) that is missing is one too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model_priv.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"

/* What was checked, so each value once: a set of pointers (open
 * addressing, kept at most half full), so that checking n values is
 * linear in n, not quadratic. */
struct seen {
	const void **slot;
	size_t cap, n;
};

static size_t
seen_hash(const void *p, size_t cap)
{
	unsigned long long h = (unsigned long long)(uintptr_t)p;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & (cap - 1);
}

static bool
seen_add(struct seen *s, const void *p)
{
	size_t i, j;

	if (2 * (s->n + 1) > s->cap) {
		struct seen bigger = {xcalloc(s->cap ? 2 * s->cap : 64, sizeof(*bigger.slot)),
		                      s->cap ? 2 * s->cap : 64, s->n};
		for (i = 0; i < s->cap; i++)
			if (s->slot[i]) {
				for (j = seen_hash(s->slot[i], bigger.cap); bigger.slot[j]; j = (j + 1) & (bigger.cap - 1))
					;
				bigger.slot[j] = s->slot[i];
			}
		free(s->slot);
		*s = bigger;
	}
	for (j = seen_hash(p, s->cap); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (s->slot[j] == p)
			return false;
	s->slot[j] = p;
	s->n++;
	return true;
}

static void
check_value(struct mctx *c, struct seen *s, const char *what, const char *name, const char *v,
            struct toml_pos pos)
{
	const char *why;
	bool bad;

	if (what[0] == 'e' && !seen_add(s, v))
		return;
	why = sh_live_check(v, &bad);
	if (bad)
		merr(c, pos, "%s '%s' holds %s", what, m_shown(c, name), why);
	else if (why)
		m_warn(pos, "%s '%s' holds %s: kunai's job and CloudAI's would see different values",
		       what, m_shown(c, name), why);
}

static void
check_env(struct mctx *c, struct seen *s, const struct argset *env)
{
	size_t i, j;

	for (i = 0; i < env->len; i++) {
		const struct toml_value *v = env->items[i].val;
		if (v->type == TOML_STRING)
			check_value(c, s, "environment value", env->items[i].key, v->u.str.s, v->pos);
		else if (v->type == TOML_ARRAY)
			for (j = 0; j < v->u.array->len; j++)
				if (v->u.array->items[j]->type == TOML_STRING)
					check_value(c, s, "environment value", env->items[i].key,
					            v->u.array->items[j]->u.str.s, v->u.array->items[j]->pos);
	}
}

static void
check_mounts(struct mctx *c, struct seen *s, const struct strlist *l)
{
	struct stat st;
	const char *rest, *src;
	size_t i;

	for (i = 0; i < l->len; i++) {
		const char *m = l->items[i];
		struct toml_pos pos = l->pos ? l->pos[i] : (struct toml_pos){0};
		if (!seen_add(s, m))
			continue;
		check_value(c, s, "container mount", m, m, pos);
		/* gen runs in the launch dir: $PWD/x is ./x here */
		if (sh_pwd_path(m, &rest)) {
			src = arena_strndup(c->a, rest, strcspn(rest, ":"));
			if (!*src)
				src = ".";
			if (stat(src, &st) != 0)
				m_warn(pos, "container mount source '$PWD/%s' does not exist in the launch "
				            "dir (the job's $PWD, as CloudAI's): the mount would fail on the "
				            "cluster",
				       src);
		}
	}
}

static void
check_scenario(struct mctx *c, struct seen *s, const struct scenario *sc, int depth)
{
	size_t i;

	if (!sc || depth > 2)
		return;
	for (i = 0; i < sc->n_cases; i++) {
		const struct testdef *d = sc->cases[i].def;
		if (!d)
			continue;
		check_env(c, s, &d->extra_env_vars);
		check_mounts(c, s, &d->extra_container_mounts);
	}
	check_scenario(c, s, sc->pre_test, depth + 1);
	check_scenario(c, s, sc->post_test, depth + 1);
}

void
m_check_live(struct mctx *c, const struct campaign *cp)
{
	struct seen s = {0};

	if (cp->system)
		check_env(c, &s, &cp->system->global_env_vars);
	check_scenario(c, &s, cp->scenario, 0);
	free(s.slot);
}
