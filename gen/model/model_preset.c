/* model_preset.c: a scenario's named presets, [presets.NAME] tables of
 * --set overrides (nested tables are dotted keys: Tests.gemm.cmd_args.m =
 * 256 is --set Tests.gemm.cmd_args.m=256), one preset able to extend
 * others (extends = ["a", "b"]: a's overrides, then b's, then its own).
 * `--preset NAME` resolves to exactly those overrides, which then go
 * through model_set.c like --set ones, before them: a preset error is a
 * --set error. An extends cycle or an unknown name is a located error. */
#include <stdio.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

enum { MAX_PRESET_DEPTH = 64 };

/* Appends s as a TOML basic string. */
static void
quote_str(struct buf *b, const char *s, size_t len)
{
	size_t i;

	buf_putc(b, '"');
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			buf_printf(b, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			buf_printf(b, "\\u%04x", ch);
		else
			buf_putc(b, (char)ch);
	}
	buf_putc(b, '"');
}

/* Appends s as a part of a --set key: bare when TOML allows it, else quoted. */
static void
key_part(struct buf *b, const char *s, size_t len)
{
	size_t i;
	bool bare = len > 0;

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '-'))
			bare = false;
	}
	if (bare)
		buf_push(b, s, len);
	else
		quote_str(b, s, len);
}

/* Appends v as TOML text (what --set KEY=VALUE would have had). */
static void
toml_text(struct buf *b, const struct toml_value *v, int depth)
{
	char tmp[64];
	size_t i;

	switch (v->type) {
	case TOML_STRING:
		quote_str(b, v->u.str.s, v->u.str.len);
		break;
	case TOML_INTEGER:
		buf_printf(b, "%lld", (long long)v->u.integer);
		break;
	case TOML_FLOAT:
		if (v->u.flt != v->u.flt)
			buf_puts(b, "nan");
		else if (v->u.flt > 1e308 || v->u.flt < -1e308)
			buf_puts(b, v->u.flt > 0 ? "inf" : "-inf");
		else {
			snprintf(tmp, sizeof(tmp), "%.17g", v->u.flt);
			buf_puts(b, tmp);
			if (!strpbrk(tmp, ".eE"))
				buf_puts(b, ".0");
		}
		break;
	case TOML_BOOL:
		buf_puts(b, v->u.boolean ? "true" : "false");
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, tmp, sizeof(tmp));
		buf_puts(b, tmp);
		break;
	case TOML_ARRAY:
		buf_putc(b, '[');
		for (i = 0; depth < 100 && i < v->u.array->len; i++) {
			buf_puts(b, i ? ", " : "");
			toml_text(b, v->u.array->items[i], depth + 1);
		}
		buf_putc(b, ']');
		break;
	case TOML_TABLE:
		buf_putc(b, '{');
		for (i = 0; depth < 100 && i < v->u.table->len; i++) {
			const struct toml_keyval *kv = &v->u.table->items[i];
			buf_puts(b, i ? ", " : "");
			key_part(b, kv->key, kv->key_len);
			buf_puts(b, " = ");
			toml_text(b, kv->value, depth + 1);
		}
		buf_putc(b, '}');
		break;
	}
}

struct presets {
	struct mctx *c;
	const struct toml_value *table; /* [presets] */
	int *state;                     /* per preset: 0 new, 1 resolving, 2 done */
	struct override *out;
	size_t n_out, cap_out;
	const char **chain;
	size_t n_chain, cap_chain;
};

static void
add_override(struct presets *p, const char *name, struct buf *key, const struct toml_keyval *kv)
{
	struct override *o;
	struct buf text = {0};

	toml_text(&text, kv->value, 0);
	p->out = arena_reserve(p->c->a, p->out, p->n_out, p->n_out + 1, &p->cap_out, sizeof(*p->out));
	o = &p->out[p->n_out++];
	memset(o, 0, sizeof(*o));
	o->key = arena_strdup(p->c->a, key->data);
	o->value = arena_strdup(p->c->a, text.data ? text.data : "");
	o->val = kv->value;
	o->preset = name;
	o->pos = kv->pos;
	buf_free(&text);
}

/* The preset's own keys, nested tables flattened into dotted keys. */
static void
flatten(struct presets *p, const char *name, const struct toml_value *t, struct buf *key, int depth)
{
	size_t i, len = key->len;

	for (i = 0; i < t->u.table->len; i++) {
		const struct toml_keyval *kv = &t->u.table->items[i];
		if (depth == 0 && (strcmp(kv->key, "extends") == 0 || strcmp(kv->key, "description") == 0))
			continue;
		key->len = len;
		if (len)
			buf_putc(key, '.');
		key_part(key, kv->key, kv->key_len);
		if (kv->value->type == TOML_TABLE && depth < 100)
			flatten(p, name, kv->value, key, depth + 1);
		else
			add_override(p, name, key, kv);
	}
	key->len = len;
	if (key->data)
		key->data[len] = '\0';
}

static size_t
preset_index(const struct presets *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->table->u.table->len; i++)
		if (strcmp(p->table->u.table->items[i].key, name) == 0)
			return i;
	return (size_t)-1;
}

static const char **
preset_names(const struct presets *p)
{
	const char **v = arena_alloc(p->c->a, (p->table->u.table->len + 1) * sizeof(*v));
	size_t i;

	for (i = 0; i < p->table->u.table->len; i++)
		v[i] = p->table->u.table->items[i].key;
	return v;
}

/* Resolves preset i (its extends first, in order); emit: append its
 * overrides and name. Returns false after reporting. */
static bool
resolve(struct presets *p, size_t i, bool emit, int depth)
{
	const struct toml_keyval *kv = &p->table->u.table->items[i], *ext;
	const struct toml_value *arr;
	struct buf b = {0};
	size_t j, k;
	bool ok = true;

	if (p->state[i] == 2)
		return true;
	if (p->state[i] == 1) {
		merr(p->c, kv->pos, "preset '%s' extends itself (an extends cycle)", m_shown(p->c, kv->key));
		return false;
	}
	if (kv->value->type != TOML_TABLE) {
		merr(p->c, kv->value->pos, "preset '%s' must be a table, not %s", m_shown(p->c, kv->key),
		     m_a_type(kv->value));
		p->state[i] = 2;
		return false;
	}
	p->state[i] = 1;
	if ((ext = m_kv(kv->value, "extends"))) {
		arr = ext->value;
		if (arr->type != TOML_ARRAY) {
			merr(p->c, arr->pos, "'extends' must be an array of preset names, not %s", m_a_type(arr));
			ok = false;
		}
		for (j = 0; arr->type == TOML_ARRAY && j < arr->u.array->len && depth < MAX_PRESET_DEPTH; j++) {
			const struct toml_value *n = arr->u.array->items[j];
			if (n->type != TOML_STRING) {
				merr(p->c, n->pos, "'extends' must be an array of preset names, not contain %s",
				     m_a_type(n));
				ok = false;
				continue;
			}
			k = preset_index(p, n->u.str.s);
			if (k == (size_t)-1) {
				b.len = 0;
				buf_printf(&b, "unknown preset '%s'", m_shown(p->c, n->u.str.s));
				m_did_you_mean(&b, n->u.str.s, preset_names(p), p->table->u.table->len);
				merr(p->c, n->pos, "%s", b.data);
				ok = false;
				continue;
			}
			if (p->state[k] == 1) {
				merr(p->c, n->pos, "preset '%s' extends '%s', which extends it (an extends cycle)",
				     m_shown(p->c, kv->key), m_shown(p->c, n->u.str.s));
				ok = false;
				continue;
			}
			if (!resolve(p, k, emit, depth + 1))
				ok = false;
		}
	}
	if ((ext = m_kv(kv->value, "description")) && ext->value->type != TOML_STRING) {
		merr(p->c, ext->value->pos, "'description' must be a string, not %s", m_a_type(ext->value));
		ok = false;
	}
	p->state[i] = 2;
	if (ok && emit) {
		b.len = 0;
		flatten(p, kv->key, kv->value, &b, 0);
		p->chain = arena_reserve(p->c->a, p->chain, p->n_chain, p->n_chain + 1, &p->cap_chain,
		                         sizeof(*p->chain));
		p->chain[p->n_chain++] = kv->key;
	}
	buf_free(&b);
	return ok;
}

bool
m_check_presets(struct mctx *c, const struct toml_value *root)
{
	const struct toml_keyval *kv = root ? m_kv(root, "presets") : NULL;
	struct presets p = {.c = c};
	size_t i;
	bool ok = true;

	if (!kv || c->presets_checked)
		return true;
	c->presets_checked = true;
	if (kv->value->type != TOML_TABLE) {
		merr(c, kv->value->pos, "'presets' must be a table of presets, not %s", m_a_type(kv->value));
		return false;
	}
	p.table = kv->value;
	p.state = arena_alloc(c->a, (kv->value->u.table->len + 1) * sizeof(*p.state));
	for (i = 0; i < kv->value->u.table->len; i++)
		if (!resolve(&p, i, false, 0))
			ok = false;
	return ok;
}

bool
m_resolve_presets(struct mctx *c, const struct mfile *f, const char *const *names, size_t n,
                  const struct override *sets, size_t n_sets, struct campaign *cp)
{
	const struct toml_keyval *kv = f->root ? m_kv(f->root, "presets") : NULL;
	struct presets p = {.c = c};
	struct buf b = {0};
	size_t i, k;
	bool ok = true;

	if (!f->root)
		return false;
	if (!m_check_presets(c, f->root))
		return false;
	if (kv) {
		p.table = kv->value;
		p.state = arena_alloc(c->a, (kv->value->u.table->len + 1) * sizeof(*p.state));
	}
	for (i = 0; i < n; i++) {
		k = kv ? preset_index(&p, names[i]) : (size_t)-1;
		if (k == (size_t)-1) {
			/* located where the scenario's presets are (or would be) */
			b.len = 0;
			buf_printf(&b, "--preset %s: no such preset", m_shown(c, names[i]));
			if (kv)
				m_did_you_mean(&b, names[i], preset_names(&p), kv->value->u.table->len);
			else
				buf_puts(&b, " (the scenario has no [presets] table)");
			merr(c, kv ? kv->pos : f->root->pos, "%s", b.data);
			ok = false;
			continue;
		}
		if (!resolve(&p, k, true, 0))
			ok = false;
	}
	buf_free(&b);
	/* presets first, then --set: the command line has the last word */
	cp->overrides = arena_alloc(c->a, (p.n_out + n_sets + 1) * sizeof(struct override));
	if (p.n_out)
		memcpy((struct override *)cp->overrides, p.out, p.n_out * sizeof(*p.out));
	if (n_sets)
		memcpy((struct override *)cp->overrides + p.n_out, sets, n_sets * sizeof(*sets));
	cp->n_overrides = p.n_out + n_sets;
	cp->presets = p.chain;
	cp->n_presets = p.n_chain;
	return ok;
}
