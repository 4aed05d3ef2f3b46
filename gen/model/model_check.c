/* model_check.c: typed access to TOML tables for the model's loaders.
 * Every getter reports what is wrong at the offending key or value and
 * returns false, so that loaders can go on and report the next error. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

void
merr(struct mctx *c, struct toml_pos pos, const char *fmt, ...)
{
	struct merror *e;
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	c->errs = xreserve(c->errs, c->n_errs + 1, &c->cap_errs, sizeof(*c->errs));
	e = &c->errs[c->n_errs];
	e->pos = pos;
	if (!e->pos.path)
		e->pos.path = "kunai";
	e->seq = c->n_errs++;
	e->msg = b.data ? b.data : xstrdup("");
	c->errors++;
}

static int
cmp_err(const void *pa, const void *pb)
{
	const struct merror *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->pos.line != b->pos.line)
		return a->pos.line < b->pos.line ? -1 : 1;
	if (a->pos.col != b->pos.col)
		return a->pos.col < b->pos.col ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
m_flush(struct mctx *c)
{
	struct merror *e, *prev = NULL;
	size_t i, j;

	if (!c->n_errs) {
		/* errors held back (model.c) may have grown the array */
		free(c->errs);
		c->errs = NULL;
		c->cap_errs = 0;
		return;
	}
	/* files in the order their first error was found, each in line order */
	for (i = 0; i < c->n_errs; i++) {
		c->errs[i].rank = i;
		for (j = 0; j < i; j++)
			if (strcmp(c->errs[j].pos.path, c->errs[i].pos.path) == 0) {
				c->errs[i].rank = c->errs[j].rank;
				break;
			}
	}
	qsort(c->errs, c->n_errs, sizeof(*c->errs), cmp_err);
	for (i = 0; i < c->n_errs; i++) {
		e = &c->errs[i];
		if (!prev || strcmp(prev->pos.path, e->pos.path) != 0 ||
		    prev->pos.line != e->pos.line || prev->pos.col != e->pos.col ||
		    strcmp(prev->msg, e->msg) != 0)
			error_at(e->pos.path, e->pos.line, e->pos.col, "%s", e->msg);
		prev = e;
	}
	for (i = 0; i < c->n_errs; i++)
		free(c->errs[i].msg);
	free(c->errs);
	c->errs = NULL;
	c->n_errs = c->cap_errs = 0;
}

void
m_warn(struct toml_pos pos, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d:%d: warning: ", pos.path ? pos.path : "kunai", pos.line, pos.col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *
m_a_type(const struct toml_value *v)
{
	switch (v->type) {
	case TOML_TABLE:
		return "a table";
	case TOML_ARRAY:
		return "an array";
	case TOML_STRING:
		return "a string";
	case TOML_INTEGER:
		return "an integer";
	case TOML_FLOAT:
		return "a float";
	case TOML_BOOL:
		return "a boolean";
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
		return "a date-time";
	case TOML_DATE_LOCAL:
		return "a date";
	case TOML_TIME_LOCAL:
		return "a time";
	}
	return "a value";
}

const char *
m_shown(struct mctx *c, const char *s)
{
	char *r;
	size_t i;

	for (i = 0; s[i]; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			break;
	if (!s[i])
		return s;
	r = arena_strdup(c->a, s);
	for (; r[i]; i++)
		if ((unsigned char)r[i] < ' ' || r[i] == 0x7f)
			r[i] = '?';
	return r;
}

struct toml_keyval *
m_kv(const struct toml_value *t, const char *key)
{
	if (!t || t->type != TOML_TABLE)
		return NULL;
	return toml_get_kv(t->u.table, key, strlen(key));
}

void
m_check_keys(struct mctx *c, const struct toml_value *t, const char *const *keys)
{
	const struct toml_table *tab = t->u.table;
	const struct toml_keyval *kv;
	struct buf b = {0};
	size_t i, j, n;

	for (n = 0; keys[n]; n++)
		;
	for (i = 0; i < tab->len; i++) {
		kv = &tab->items[i];
		for (j = 0; j < n; j++)
			if (kv->key_len == strlen(keys[j]) &&
			    memcmp(kv->key, keys[j], kv->key_len) == 0)
				break;
		if (j < n)
			continue;
		b.len = 0;
		buf_printf(&b, "unknown key '%s'", m_shown(c, kv->key));
		m_did_you_mean(&b, kv->key, keys, n);
		merr(c, kv->pos, "%s", b.data);
	}
	buf_free(&b);
}

static struct toml_pos
table_pos(const struct toml_value *t)
{
	return t->pos;
}

bool
m_check_str(struct mctx *c, const char *key, const struct toml_value *v)
{
	if (strlen(v->u.str.s) != v->u.str.len) {
		merr(c, v->pos, "'%s' must not contain a NUL character", key);
		return false;
	}
	return true;
}

bool
m_str(struct mctx *c, const struct toml_value *t, const char *key, bool required,
      const char **out)
{
	struct toml_keyval *kv = m_kv(t, key);

	if (!kv) {
		if (required)
			merr(c, table_pos(t), "missing required key '%s'", key);
		return !required;
	}
	if (kv->value->type != TOML_STRING) {
		merr(c, kv->value->pos, "'%s' must be a string, not %s", key, m_a_type(kv->value));
		return false;
	}
	if (!m_check_str(c, key, kv->value))
		return false;
	*out = kv->value->u.str.s;
	return true;
}

bool
m_int(struct mctx *c, const struct toml_value *t, const char *key, bool required, long min,
      long *out)
{
	struct toml_keyval *kv = m_kv(t, key);
	const struct toml_value *v;

	if (!kv) {
		if (required)
			merr(c, table_pos(t), "missing required key '%s'", key);
		return !required;
	}
	v = kv->value;
	if (v->type != TOML_INTEGER) {
		merr(c, v->pos, "'%s' must be an integer, not %s", key, m_a_type(v));
		return false;
	}
	if (v->u.integer < min || v->u.integer > INT_MAX) {
		if (v->u.integer < min)
			merr(c, v->pos, "'%s' must be at least %ld, not %lld", key, min,
			     (long long)v->u.integer);
		else
			merr(c, v->pos, "'%s' is too large (%lld)", key, (long long)v->u.integer);
		return false;
	}
	*out = (long)v->u.integer;
	return true;
}

bool
m_bool(struct mctx *c, const struct toml_value *t, const char *key, bool *out)
{
	struct toml_keyval *kv = m_kv(t, key);

	if (!kv)
		return true;
	if (kv->value->type != TOML_BOOL) {
		merr(c, kv->value->pos, "'%s' must be a boolean, not %s", key, m_a_type(kv->value));
		return false;
	}
	*out = kv->value->u.boolean;
	return true;
}

bool
m_num(struct mctx *c, const struct toml_value *t, const char *key, double *out)
{
	struct toml_keyval *kv = m_kv(t, key);
	const struct toml_value *v;

	if (!kv)
		return true;
	v = kv->value;
	if (v->type == TOML_INTEGER) {
		*out = (double)v->u.integer;
		return true;
	}
	if (v->type != TOML_FLOAT || !isfinite(v->u.flt)) {
		merr(c, v->pos, "'%s' must be a number, not %s", key,
		     v->type == TOML_FLOAT ? "inf or nan" : m_a_type(v));
		return false;
	}
	*out = v->u.flt;
	return true;
}

bool
m_strlist(struct mctx *c, const struct toml_value *t, const char *key, struct strlist *out)
{
	struct toml_keyval *kv = m_kv(t, key);
	const struct toml_value *v, *e;
	bool ok = true;
	size_t i;

	if (!kv)
		return true;
	v = kv->value;
	if (v->type != TOML_ARRAY) {
		merr(c, v->pos, "'%s' must be an array of strings, not %s", key, m_a_type(v));
		return false;
	}
	for (i = 0; i < v->u.array->len; i++) {
		e = v->u.array->items[i];
		if (e->type != TOML_STRING) {
			merr(c, e->pos, "'%s' must be an array of strings, not contain %s", key,
			     m_a_type(e));
			ok = false;
		} else if (!m_check_str(c, key, e)) {
			ok = false;
		} else {
			strlist_add(c->a, out, e->u.str.s, e->pos);
		}
	}
	return ok;
}

const struct toml_value *
m_table(struct mctx *c, const struct toml_value *t, const char *key)
{
	struct toml_keyval *kv = m_kv(t, key);

	if (!kv)
		return NULL;
	if (kv->value->type != TOML_TABLE) {
		merr(c, kv->value->pos, "'%s' must be a table, not %s", key, m_a_type(kv->value));
		return NULL;
	}
	return kv->value;
}

/* reports = { <name> = { enable = bool, ... } }: options are per report. */
/* What kunai's own report has in place of CloudAI's report kind. */
static const char *
report_instead(const char *kind)
{
	static const char *const k[][2] = {
		{"per_test", "kunai report grades and plots every run anyway"},
		{"status", "kunai report and kunai status give every run's outcome anyway"},
		{"tarball", "kunai export packs the results"},
		{"nccl_comparison", "kunai report's csv/ and HTML compare the NCCL runs"},
	};
	size_t i;

	for (i = 0; i < LEN(k); i++)
		if (strcmp(kind, k[i][0]) == 0)
			return k[i][1];
	return "kunai report writes its own summary, JUnit, CSV and HTML";
}

void
m_check_reports(struct mctx *c, const struct toml_value *t)
{
	const struct toml_keyval *kv;
	size_t i;
	bool b;

	if (!(t = m_table(c, t, "reports")))
		return;
	for (i = 0; i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		if (kv->value->type != TOML_TABLE) {
			merr(c, kv->value->pos, "report '%s' must be a table, not %s",
			     m_shown(c, kv->key), m_a_type(kv->value));
			continue;
		}
		m_bool(c, kv->value, "enable", &b);
		/* kunai's report is one, for every campaign: CloudAI's kinds are
		 * not made, and their settings not read */
		m_warn(kv->pos, "kunai does not make CloudAI's report '%s' (%s); this entry is ignored",
		       m_shown(c, kv->key), report_instead(kv->key));
	}
}

bool
m_check_name(struct mctx *c, const char *what, const char *s, size_t len, struct toml_pos pos)
{
	size_t i;

	if (len == 0) {
		merr(c, pos, "%s must not be empty", what);
		return false;
	}
	if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
		merr(c, pos, "%s '%s' would escape the output directory", what, s);
		return false;
	}
	if (s[0] == '-') {
		merr(c, pos, "%s '%s' must not start with '-'", what, m_shown(c, s));
		return false;
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '/' || ch == '|') {
			merr(c, pos, "%s '%s' must not contain '%c'", what, m_shown(c, s), ch);
			return false;
		}
		if (ch < ' ' || ch == 0x7f) {
			merr(c, pos, "%s '%s' must not contain control characters", what,
			     m_shown(c, s));
			return false;
		}
	}
	return true;
}

bool
m_check_env_name(struct mctx *c, const char *key, size_t len, struct toml_pos pos)
{
	size_t i;
	bool ok = len > 0 && !isdigit((unsigned char)key[0]);

	for (i = 0; ok && i < len; i++)
		ok = isalnum((unsigned char)key[i]) || key[i] == '_';
	if (!ok)
		merr(c, pos, "'%s' is not a valid environment variable name", m_shown(c, key));
	return ok;
}

struct toml_value *
m_string_value(struct arena *a, const char *s, struct toml_pos pos)
{
	struct toml_value *v = arena_alloc(a, sizeof(*v));

	v->type = TOML_STRING;
	v->pos = pos;
	v->u.str.s = arena_strdup(a, s);
	v->u.str.len = strlen(s);
	return v;
}

struct toml_value *
m_stringify(struct mctx *c, const struct toml_value *v, bool bools)
{
	char tmp[64];

	switch (v->type) {
	case TOML_STRING:
		return (struct toml_value *)v;
	case TOML_INTEGER:
		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->u.integer);
		break;
	case TOML_FLOAT:
		model_format_float(v->u.flt, tmp, sizeof(tmp));
		break;
	case TOML_BOOL:
		if (!bools)
			return NULL;
		strcpy(tmp, v->u.boolean ? "True" : "False");
		break;
	default:
		return NULL;
	}
	return m_string_value(c->a, tmp, v->pos);
}

void
argset_add(struct arena *a, struct argset *s, const char *key, struct toml_pos pos,
           const struct toml_value *val)
{
	struct arg *g;

	s->items = arena_reserve(a, s->items, s->len, s->len + 1, &s->cap, sizeof(*s->items));
	g = &s->items[s->len++];
	g->key = key;
	g->pos = pos;
	g->val = val;
}

struct toml_value *
m_new_table(struct arena *a, struct toml_pos pos)
{
	struct toml_value *v = arena_alloc(a, sizeof(*v));

	v->type = TOML_TABLE;
	v->pos = pos;
	v->u.table = arena_alloc(a, sizeof(*v->u.table));
	return v;
}

void
m_table_add(struct arena *a, struct toml_value *t, const char *key, struct toml_pos kpos,
            struct toml_value *v)
{
	struct toml_table *tab = t->u.table;
	struct toml_keyval *kv;

	/* a parsed table's lookup index goes stale when its length changes,
	 * and toml_get_kv then falls back to a linear search */
	tab->items = arena_reserve(a, tab->items, tab->len, tab->len + 1, &tab->cap, sizeof(*tab->items));
	kv = &tab->items[tab->len++];
	kv->key = arena_strdup(a, key);
	kv->key_len = strlen(key);
	kv->pos = kpos;
	kv->value = v;
}
