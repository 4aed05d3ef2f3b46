/* model_set.c: edits of TOML trees before validation: --set overrides and
 * the deep merge of a scenario's test overrides onto a test definition.
 * Both work on trees, so the loaders validate the result like any file,
 * and positions still say where each value came from.
 *
 * --set KEY=VALUE: KEY is a TOML dotted key (parts may be quoted) from the
 * scenario's root, or from the system's when its first part is "system".
 * In an array, a part is a 1-based index or, for [[Tests]], a test id:
 * Tests.2.iterations, Tests."Tests.all_reduce".cmd_args.iters, and, since
 * ids often contain dots, Tests.Tests.all_reduce.cmd_args.iters as long as
 * only one reading matches (else quote the id). Missing tables are
 * created. VALUE is read as a TOML value ("v = VALUE"), else taken as a
 * string: iters=50 is an integer, subtest_name=all_gather_perf_mpi a
 * string. Errors say "kunai: --set KEY: ..."; errors in the value found by
 * validation are located at "--set KEY:1:1". */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

static bool
in_keys(const char *key, size_t len, const char *const *keys)
{
	size_t i;

	if (!keys)
		return true;
	for (i = 0; keys[i]; i++)
		if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
			return true;
	return false;
}

struct toml_value *
m_merge(struct arena *a, const struct toml_value *base, const struct toml_value *over,
        const char *const *keys)
{
	const struct toml_table *bt = base->u.table, *ot = over->u.table;
	struct toml_value *r = m_new_table(a, base->pos);
	struct toml_table *t = r->u.table;
	const struct toml_keyval *okv;
	struct toml_keyval *kv;
	size_t i;

	t->cap = bt->len + ot->len;
	t->items = arena_grow(a, NULL, 0, t->cap ? t->cap : 1, sizeof(*t->items));
	if (bt->len)
		memcpy(t->items, bt->items, bt->len * sizeof(*t->items));
	t->len = bt->len;
	for (i = 0; i < ot->len; i++) {
		okv = &ot->items[i];
		if (!in_keys(okv->key, okv->key_len, keys))
			continue;
		kv = toml_get_kv(t, okv->key, okv->key_len);
		if (kv && kv->value->type == TOML_TABLE && okv->value->type == TOML_TABLE) {
			kv->value = m_merge(a, kv->value, okv->value, NULL);
		} else if (kv) {
			/* arrays and scalars replace; the key now points at the override */
			kv->value = okv->value;
			kv->pos = okv->pos;
		} else {
			t->items[t->len++] = *okv;
		}
	}
	return r;
}

/* Reports an error of override o: "kunai: --set KEY: ...", or for a
 * preset's key, located there: "path:line:col: error: preset NAME, KEY: ...". */
static void __attribute__((format(printf, 3, 4)))
ov_error(struct mctx *c, const struct override *o, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (o->preset) {
		merr(c, o->pos, "preset %s, %s: %s", o->preset, o->key, b.data);
	} else {
		warn("--set %s: %s", o->key, b.data);
		c->errors++;
	}
	buf_free(&b);
}

/* Positions of a --set value: its own text, from column 1. */
static void
fix_pos(struct toml_value *v, const char *path, int depth)
{
	size_t i;

	v->pos.path = path;
	if (v->pos.line == 1)
		v->pos.col = v->pos.col > 2 ? v->pos.col - 2 : 1;
	if (depth > 100)
		return;
	if (v->type == TOML_ARRAY)
		for (i = 0; i < v->u.array->len; i++)
			fix_pos(v->u.array->items[i], path, depth + 1);
	if (v->type == TOML_TABLE)
		for (i = 0; i < v->u.table->len; i++) {
			v->u.table->items[i].pos.path = path;
			fix_pos(v->u.table->items[i].value, path, depth + 1);
		}
}

/* VALUE as TOML ("v=VALUE"), else as a string. */
static struct toml_value *
set_value(struct mctx *c, const struct override *o, const char *where)
{
	struct buf text = {0};
	struct toml_value *root, *v = NULL;
	struct toml_pos pos = {where, 1, 1};

	buf_printf(&text, "v=%s", o->value);
	root = toml_parse(c->a, where, text.data, text.len, NULL);
	if (root && root->u.table->len == 1) {
		v = root->u.table->items[0].value;
		fix_pos(v, where, 0);
	}
	buf_free(&text);
	return v ? v : m_string_value(c->a, o->value, pos);
}

/* Splits KEY (TOML dotted-key syntax, so parts may be quoted) into parts. */
static bool
key_parts(struct mctx *c, const char *key, const char ***parts, size_t *n)
{
	struct buf text = {0};
	struct toml_value *root, *v;
	struct toml_keyval *kv;
	const char **p = NULL;
	size_t len = 0, cap = 0;

	if (strchr(key, '\n') || strchr(key, '\r'))
		return false;
	buf_printf(&text, "%s = 0", key);
	root = toml_parse(c->a, "--set", text.data, text.len, NULL);
	buf_free(&text);
	for (v = root; v && v->type == TOML_TABLE;) {
		if (v->u.table->len != 1)
			return false;
		kv = &v->u.table->items[0];
		if (strlen(kv->key) != kv->key_len)
			return false;
		p = arena_reserve(c->a, p, len, len + 1, &cap, sizeof(*p));
		p[len++] = kv->key;
		v = kv->value;
	}
	if (!v || v->type != TOML_INTEGER || v->u.integer != 0 || !len)
		return false;
	*parts = p;
	*n = len;
	return true;
}

static bool
all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* In an array of tables, the element whose id is parts[0..k) joined with
 * '.' (ids like "Tests.all_reduce" contain dots). */
static struct toml_value *
find_id(struct toml_array *arr, const char *const *parts, size_t k, struct buf *tmp)
{
	struct toml_keyval *kv;
	size_t i;

	tmp->len = 0;
	for (i = 0; i < k; i++)
		buf_printf(tmp, "%s%s", i ? "." : "", parts[i]);
	for (i = 0; i < arr->len; i++) {
		if (arr->items[i]->type != TOML_TABLE)
			continue;
		kv = toml_get_kv(arr->items[i]->u.table, "id", 2);
		if (kv && kv->value->type == TOML_STRING &&
		    strcmp(kv->value->u.str.s, tmp->data) == 0)
			return arr->items[i];
	}
	return NULL;
}

/* Picks the element of arr that parts[*i...] address: a 1-based index, or
 * a test case's id. The id may span several unquoted parts; when both an
 * index and an id, or ids of different lengths, match, the key is
 * ambiguous and must be quoted. Returns NULL after reporting. */
static struct toml_value **
array_elem(struct mctx *c, const struct override *o, struct toml_array *arr, const char **parts,
           size_t n, size_t *i)
{
	struct toml_value **hit = NULL, *e;
	struct buf tmp = {0};
	size_t k, used = 0, nhits = 0, idx;

	if (all_digits(parts[*i]) && strlen(parts[*i]) < 10) {
		idx = (size_t)strtoul(parts[*i], NULL, 10);
		if (idx >= 1 && idx <= arr->len) {
			hit = &arr->items[idx - 1];
			used = 1;
			nhits++;
		}
	}
	for (k = 1; *i + k <= n; k++) {
		if ((e = find_id(arr, parts + *i, k, &tmp))) {
			size_t j;
			for (j = 0; j < arr->len; j++)
				if (arr->items[j] == e)
					hit = &arr->items[j];
			used = k;
			nhits++;
		}
	}
	buf_free(&tmp);
	if (nhits > 1) {
		ov_error(c, o, "'%s' is ambiguous (quote the id, e.g. Tests.\"a.b\".iterations)",
		         parts[*i]);
		return NULL;
	}
	if (!hit) {
		ov_error(c, o, "no element '%s' (an array has elements 1 to %zu, or test ids)",
		         m_shown(c, parts[*i]), arr->len);
		return NULL;
	}
	*i += used;
	return hit;
}

static bool
apply(struct mctx *c, struct toml_value *root, const struct override *o, const char **parts,
      size_t n)
{
	struct toml_value *cur = root, **slot, *v, *t;
	struct toml_keyval *kv;
	char *where = arena_alloc(c->a, strlen(o->key) + 8);
	struct toml_pos pos;
	size_t i = 0;

	sprintf(where, "--set %s", o->key);
	pos.path = where;
	pos.line = pos.col = 1;
	if (o->val) {
		/* a preset's value keeps its place in the scenario for later errors */
		pos = o->pos;
		v = (struct toml_value *)o->val;
	} else {
		/* the command line goes into local.ninja's regenerate edge, where a
		 * line break would end the command and start ninja text */
		if (strpbrk(o->value, "\n\r")) {
			merr(c, pos, "the value must not contain line breaks (kunai's command line goes "
			     "into local.ninja, where ninja cannot express them)");
			return false;
		}
		v = set_value(c, o, where);
	}
	while (i < n) {
		if (cur->type == TOML_ARRAY) {
			if (!(slot = array_elem(c, o, cur->u.array, parts, n, &i)))
				return false;
			if (i == n) {
				*slot = v;
				return true;
			}
			cur = *slot;
		} else if (cur->type == TOML_TABLE) {
			kv = toml_get_kv(cur->u.table, parts[i], strlen(parts[i]));
			if (i + 1 == n) {
				if (kv)
					kv->value = v;
				else
					m_table_add(c->a, cur, parts[i], pos, v);
				return true;
			}
			if (!kv) {
				t = m_new_table(c->a, pos);
				m_table_add(c->a, cur, parts[i], pos, t);
				cur = t;
			} else {
				cur = kv->value;
			}
			i++;
		} else {
			ov_error(c, o, "'%s' is %s, not a table", m_shown(c, parts[i - 1]), m_a_type(cur));
			return false;
		}
	}
	return true;
}

bool
m_apply_overrides(struct mctx *c, struct toml_value *root, const struct override *o, size_t n,
                  bool system)
{
	const char **parts;
	size_t i, np;
	bool ok = true, is_sys;

	for (i = 0; i < n; i++) {
		if (!key_parts(c, o[i].key, &parts, &np)) {
			/* reported once, by the system's pass (which comes first) */
			if (system) {
				ov_error(c, &o[i], "not a key (parts are separated by '.'; quote "
				                   "parts that contain dots or spaces)");
				ok = false;
			}
			continue;
		}
		is_sys = strcmp(parts[0], "system") == 0;
		if (is_sys != system)
			continue;
		if (is_sys && np == 1) {
			ov_error(c, &o[i], "name a key of the system, e.g. system.gpus_per_node");
			ok = false;
			continue;
		}
		if (!root)
			continue;
		if (!apply(c, root, &o[i], parts + is_sys, np - is_sys))
			ok = false;
	}
	return ok;
}
