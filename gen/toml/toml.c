/* toml.c: TOML 1.0.0 text -> tree with source positions.
 *
 * A recursive-descent parser over a length-delimited buffer (no NUL needed).
 * The tree lives in the caller's arena; errors longjmp back to toml_parse,
 * which then only has the parser's scratch buffers to free. Scalars
 * (strings, numbers, date-times) are in toml_scalar.c. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "toml_priv.h"
#include "gen/base/util.h"

enum {
	/* Bounds the tree's depth, so recursion here and in every
	 * consumer of the tree is bounded too. */
	MAX_DEPTH = 1000,
	POOL_CHUNK = 64 * 1024,
};

enum {
	TABLE_EXPLICIT = 1 << 0, /* [header], [[header]] or the root */
	TABLE_IMPLICIT = 1 << 1, /* prefix of a header; may be defined once */
	TABLE_DOTTED = 1 << 2,   /* created by a dotted key */
	TABLE_INLINE = 1 << 3,   /* { ... }: sealed once closed */
};

/* Small objects come from chunks, which spares them the arena's
 * rounding to 16 bytes: a value is 40. */
void *
toml_alloc(struct parser *P, size_t n, size_t align)
{
	size_t pad = (align - (uintptr_t)P->pool % align) % align;
	void *p;

	if (n > POOL_CHUNK / 8)
		return arena_alloc(P->a, n);
	if (P->pool_left < n + pad) {
		P->pool = arena_alloc(P->a, POOL_CHUNK);
		P->pool_left = POOL_CHUNK;
		pad = 0;
	}
	p = P->pool + pad;
	P->pool += n + pad;
	P->pool_left -= n + pad;
	return p;
}

char *
toml_strndup(struct parser *P, const char *s, size_t n)
{
	char *p = toml_alloc(P, n + 1, 1);

	if (n)
		memcpy(p, s, n);
	return p; /* the arena zeroes, so p[n] is NUL */
}

void
toml_fail(struct parser *P, const char *at, const char *fmt, ...)
{
	struct toml_error *err = P->err;
	const char *s = P->start, *nl;
	va_list ap;

	/* Positions are only counted on the way out: errors are rare. */
	if (at > P->end)
		at = P->end;
	err->line = 1;
	while ((nl = memchr(s, '\n', (size_t)(at - s)))) {
		if (err->line < INT_MAX)
			err->line++;
		s = nl + 1;
	}
	err->col = at - s < INT_MAX ? (int)(at - s) + 1 : INT_MAX;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	longjmp(P->jmp, 1);
}

const char *
toml_found(struct parser *P, const char *at)
{
	const unsigned char *u = (const unsigned char *)at;
	unsigned long c;

	if (at >= P->end)
		return "end of file";
	if (*u == '\n' || (*u == '\r' && P->end - at > 1 && u[1] == '\n'))
		return "end of line";
	if (*u == ' ')
		return "' '";
	if (*u > ' ' && *u < 0x7f)
		snprintf(P->desc, sizeof(P->desc), "'%c'", *u);
	else if (*u < 0x80)
		snprintf(P->desc, sizeof(P->desc), "control character U+%04X", *u);
	else {
		c = toml_utf8_decode(at, P->end);
		snprintf(P->desc, sizeof(P->desc), "character U+%04lX", c);
	}
	return P->desc;
}

struct toml_pos
toml_pos_at(struct parser *P, const char *at)
{
	struct toml_pos pos;

	pos.path = P->path;
	pos.line = P->line;
	pos.col = at - P->bol < INT_MAX ? (int)(at - P->bol) + 1 : INT_MAX;
	return pos;
}

/* Returns parts 0..i of the current key, printable and shortened. */
static const char *
key_name(struct parser *P, size_t i)
{
	size_t j, k, n = 0, max = sizeof(P->name) - 4;
	const unsigned char *s;
	bool cut = false;

	for (j = 0; j <= i && !cut; j++) {
		if (j && n < max)
			P->name[n++] = '.';
		s = (const unsigned char *)P->keys.data + P->parts[j].off;
		for (k = 0; k < P->parts[j].len; k++) {
			if (n == max) {
				cut = true;
				break;
			}
			P->name[n++] = s[k] < ' ' || s[k] == 0x7f ? '?' : (char)s[k];
		}
	}
	if (cut) {
		/* do not leave half a UTF-8 sequence */
		while (n && ((unsigned char)P->name[n - 1] & 0xc0) == 0x80)
			n--;
		if (n && (unsigned char)P->name[n - 1] >= 0xc0)
			n--;
		memcpy(P->name + n, "...", 3);
		n += 3;
	}
	P->name[n] = '\0';
	return P->name;
}

static void
skip_ws(struct parser *P)
{
	while (P->p < P->end && (*P->p == ' ' || *P->p == '\t'))
		P->p++;
}

void
toml_newline(struct parser *P)
{
	if (*P->p == '\r') {
		if (P->end - P->p < 2 || P->p[1] != '\n')
			toml_fail(P, P->p, "carriage return not followed by line feed");
		P->p++;
	}
	P->p++;
	if (P->line < INT_MAX)
		P->line++;
	P->bol = P->p;
}

static void
skip_comment(struct parser *P)
{
	unsigned char c;

	for (P->p++; P->p < P->end; P->p++) {
		c = *P->p;
		if (c == '\n' || (c == '\r' && P->end - P->p > 1 && P->p[1] == '\n'))
			break;
		if ((c < ' ' && c != '\t') || c == 0x7f)
			toml_fail(P, P->p, "%s in comment", toml_found(P, P->p));
	}
}

/* Skips blanks, comments and newlines, as arrays allow. */
static void
skip_space(struct parser *P)
{
	for (;;) {
		skip_ws(P);
		if (P->p == P->end)
			return;
		if (*P->p == '#')
			skip_comment(P);
		else if (*P->p == '\n' || *P->p == '\r')
			toml_newline(P);
		else
			return;
	}
}

/* Blanks, maybe a comment, then a newline or the end of the text. */
static void
end_line(struct parser *P, const char *after)
{
	skip_ws(P);
	if (P->p < P->end && *P->p == '#')
		skip_comment(P);
	if (P->p == P->end)
		return;
	if (*P->p != '\n' && *P->p != '\r')
		toml_fail(P, P->p, "expected end of line after %s, found %s", after,
		          toml_found(P, P->p));
	toml_newline(P);
}

static bool
is_bare(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Reads a possibly dotted key into P->parts and P->keys. */
static void
parse_key(struct parser *P)
{
	struct key_part *kp;
	const char *s;
	char q;

	P->nparts = 0;
	P->keys.len = 0;
	for (;;) {
		skip_ws(P);
		P->parts = xreserve(P->parts, P->nparts + 1, &P->partcap, sizeof(*P->parts));
		kp = &P->parts[P->nparts++];
		s = P->p;
		kp->at = s;
		kp->pos = toml_pos_at(P, s);
		kp->off = P->keys.len;
		q = s < P->end ? *s : 0;
		if (q == '"' || q == '\'') {
			if (P->end - s > 2 && s[1] == q && s[2] == q)
				toml_fail(P, s, "a multi-line string cannot be a key");
			toml_scan_string(P, &P->keys, q == '"');
		} else if (s < P->end && is_bare(*s)) {
			while (P->p < P->end && is_bare(*P->p))
				P->p++;
			buf_push(&P->keys, s, (size_t)(P->p - s));
		} else {
			toml_fail(P, s, "expected a key, found %s", toml_found(P, s));
		}
		kp->len = P->keys.len - kp->off;
		skip_ws(P);
		if (P->p == P->end || *P->p != '.')
			return;
		P->p++;
	}
}

static struct toml_keyval *
find(struct parser *P, struct toml_table *t, size_t i)
{
	return toml_get_kv(t, P->keys.data + P->parts[i].off, P->parts[i].len);
}

/* Appends key part i to t; returns its value, still empty. */
static struct toml_value *
add(struct parser *P, struct toml_table *t, size_t i)
{
	struct key_part *kp = &P->parts[i];
	struct toml_keyval *kv;

	if (t == P->sect) {
		t->items = P->sect_items = xreserve(t->items, t->len + 1, &P->sect_cap, sizeof(*t->items));
		t->cap = P->sect_cap;
	} else {
		t->items = arena_reserve(P->a, t->items, t->len, t->len + 1, &t->cap, sizeof(*t->items));
	}
	kv = &t->items[t->len++];
	kv->key = toml_strndup(P, P->keys.data + kp->off, kp->len);
	kv->key_len = kp->len;
	kv->pos = kp->pos;
	kv->value = NEW(P, struct toml_value);
	kv->value->pos = kp->pos;
	toml_index_add(P->a, t);
	return kv->value;
}

/* Moves the items of the table under the last header into the arena,
 * sized exactly. */
static void
close_section(struct parser *P)
{
	struct toml_table *t = P->sect;

	if (!t)
		return;
	t->items = t->len ? arena_grow(P->a, t->items, t->len, t->len, sizeof(*t->items)) : NULL;
	t->cap = t->len;
	P->sect = NULL;
}

/* Keys under a header mostly go to one table: its items grow in malloc'd
 * memory until the section ends, so growing leaves no garbage in the arena. */
static void
open_section(struct parser *P, struct toml_table *t)
{
	close_section(P);
	P->sect_items = xreserve(P->sect_items, t->len, &P->sect_cap, sizeof(*t->items));
	if (t->len)
		memcpy(P->sect_items, t->items, t->len * sizeof(*t->items));
	t->items = P->sect_items;
	t->cap = P->sect_cap;
	P->sect = t;
}

static struct toml_table *
new_table(struct parser *P, struct toml_value *v, unsigned flags)
{
	v->type = TOML_TABLE;
	v->u.table = NEW(P, struct toml_table);
	v->u.table->flags = flags;
	return v->u.table;
}

static void
check_depth(struct parser *P, const char *at, size_t depth)
{
	if (depth > MAX_DEPTH)
		toml_fail(P, at, "nested more than %d levels deep", MAX_DEPTH);
}

/* Walks the dotted prefix of the current key down from t, creating tables,
 * and adds the last part; returns its empty value. */
static struct toml_value *
add_keyval(struct parser *P, struct toml_table *t, size_t depth)
{
	struct toml_keyval *kv;
	struct toml_value *v;
	size_t i;

	check_depth(P, P->parts[0].at, depth + P->nparts);
	for (i = 0; i + 1 < P->nparts; i++) {
		if (!(kv = find(P, t, i))) {
			t = new_table(P, add(P, t, i), TABLE_DOTTED);
			continue;
		}
		v = kv->value;
		if (v->type != TOML_TABLE)
			toml_fail(P, P->parts[i].at, "key '%s' is already defined as %s at %d:%d",
			          key_name(P, i), toml_type_name(v->type), v->pos.line, v->pos.col);
		t = v->u.table;
		if (t->flags & TABLE_INLINE)
			toml_fail(P, P->parts[i].at,
			          "inline table '%s' (defined at %d:%d) cannot be extended",
			          key_name(P, i), v->pos.line, v->pos.col);
		if (t->flags & TABLE_EXPLICIT)
			toml_fail(P, P->parts[i].at,
			          "table '%s' (defined at %d:%d) cannot take dotted keys",
			          key_name(P, i), v->pos.line, v->pos.col);
		/* [a.b.c] then b.d under [a]: b was only implied, so this defines it */
		t->flags = TABLE_DOTTED;
	}
	if ((kv = find(P, t, i)))
		toml_fail(P, P->parts[i].at, "duplicate key '%s' (first defined at %d:%d)",
		          key_name(P, i), kv->pos.line, kv->pos.col);
	return add(P, t, i);
}

static void parse_value(struct parser *, struct toml_value *, size_t);

static void
parse_keyval(struct parser *P, struct toml_table *t, size_t depth)
{
	struct toml_value *v;

	parse_key(P);
	if (P->p == P->end || *P->p != '=')
		toml_fail(P, P->p, "expected '=' after key, found %s", toml_found(P, P->p));
	P->p++;
	skip_ws(P);
	v = add_keyval(P, t, depth);
	parse_value(P, v, depth + P->nparts);
}

static void
parse_array(struct parser *P, struct toml_value *v, size_t depth)
{
	struct toml_array *arr;
	struct toml_value *e;
	size_t base = P->nstack, n;

	v->type = TOML_ARRAY;
	v->u.array = arr = NEW(P, struct toml_array);
	P->p++;
	for (;;) {
		skip_space(P);
		if (P->p < P->end && *P->p == ']')
			break;
		e = NEW(P, struct toml_value);
		parse_value(P, e, depth + 1);
		/* elements gather on a shared stack, so arrays get no slack */
		P->stack = xreserve(P->stack, P->nstack + 1, &P->stackcap, sizeof(*P->stack));
		P->stack[P->nstack++] = e;
		skip_space(P);
		if (P->p < P->end && *P->p == ',') {
			P->p++;
			continue;
		}
		if (P->p < P->end && *P->p == ']')
			break;
		toml_fail(P, P->p, "expected ',' or ']' in array, found %s", toml_found(P, P->p));
	}
	P->p++;
	n = P->nstack - base;
	if (n) {
		arr->items = arena_grow(P->a, NULL, 0, n, sizeof(*arr->items));
		memcpy(arr->items, P->stack + base, n * sizeof(*arr->items));
	}
	arr->len = arr->cap = n;
	P->nstack = base;
}

static void
parse_inline_table(struct parser *P, struct toml_value *v, size_t depth)
{
	struct toml_table *t = new_table(P, v, 0);

	P->p++;
	skip_ws(P);
	if (P->p < P->end && *P->p == '}') {
		P->p++;
		t->flags = TABLE_INLINE;
		return;
	}
	for (;;) {
		parse_keyval(P, t, depth);
		skip_ws(P);
		if (P->p < P->end && *P->p == '}')
			break;
		if (P->p == P->end || *P->p != ',')
			toml_fail(P, P->p, "expected ',' or '}' in inline table, found %s",
			          toml_found(P, P->p));
		P->p++;
		skip_ws(P);
		if (P->p < P->end && *P->p == '}')
			toml_fail(P, P->p, "trailing comma in inline table");
	}
	P->p++;
	t->flags = TABLE_INLINE;
}

/* depth is that of v: the root table is at 0. */
static void
parse_value(struct parser *P, struct toml_value *v, size_t depth)
{
	check_depth(P, P->p, depth);
	v->pos = toml_pos_at(P, P->p);
	if (P->p == P->end)
		toml_fail(P, P->p, "expected a value, found end of file");
	switch (*P->p) {
	case '"':
	case '\'':
		toml_parse_string(P, v);
		break;
	case '[':
		parse_array(P, v, depth);
		break;
	case '{':
		parse_inline_table(P, v, depth);
		break;
	default:
		toml_parse_scalar(P, v);
	}
}

/* Parses [a.b] or [[a.b]]; returns the table that keys now go to. */
static struct toml_table *
parse_header(struct parser *P, struct toml_table *root, size_t *depth)
{
	struct toml_pos pos = toml_pos_at(P, P->p);
	bool aot = P->end - P->p > 1 && P->p[1] == '[';
	struct toml_table *t = root;
	struct toml_keyval *kv;
	struct toml_value *v, *e;
	struct toml_array *arr;
	const char *what;
	size_t i, d = 0;

	P->p += aot ? 2 : 1;
	parse_key(P);
	if (P->p == P->end || *P->p != ']' || (aot && (P->end - P->p < 2 || P->p[1] != ']')))
		toml_fail(P, P->p, "expected '%s' after table name, found %s", aot ? "]]" : "]",
		          toml_found(P, P->p));
	P->p += aot ? 2 : 1;
	for (i = 0; i + 1 < P->nparts; i++) {
		check_depth(P, P->parts[i].at, ++d);
		if (!(kv = find(P, t, i))) {
			t = new_table(P, add(P, t, i), TABLE_IMPLICIT);
			continue;
		}
		v = kv->value;
		if (v->type == TOML_ARRAY && v->u.array->of_tables) {
			/* [[a]] then [a.b]: b goes into the last a */
			check_depth(P, P->parts[i].at, ++d);
			v = v->u.array->items[v->u.array->len - 1];
		}
		if (v->type != TOML_TABLE)
			toml_fail(P, P->parts[i].at, "key '%s' is already defined as %s at %d:%d",
			          key_name(P, i), toml_type_name(v->type), v->pos.line, v->pos.col);
		if (v->u.table->flags & TABLE_INLINE)
			toml_fail(P, P->parts[i].at,
			          "inline table '%s' (defined at %d:%d) cannot be extended",
			          key_name(P, i), v->pos.line, v->pos.col);
		t = v->u.table;
	}
	check_depth(P, P->parts[i].at, d + 1 + aot);
	*depth = d + 1 + aot;
	kv = find(P, t, i);
	if (aot) {
		if (!kv) {
			v = add(P, t, i);
			v->type = TOML_ARRAY;
			v->pos = pos;
			v->u.array = NEW(P, struct toml_array);
			v->u.array->of_tables = true;
		} else {
			v = kv->value;
			if (v->type != TOML_ARRAY || !v->u.array->of_tables)
				toml_fail(P, P->parts[i].at,
				          "'%s' is already defined as %s at %d:%d",
				          key_name(P, i), toml_type_name(v->type), v->pos.line,
				          v->pos.col);
		}
		arr = v->u.array;
		arr->items = arena_reserve(P->a, arr->items, arr->len, arr->len + 1, &arr->cap, sizeof(*arr->items));
		e = arr->items[arr->len++] = NEW(P, struct toml_value);
		e->pos = pos;
		return new_table(P, e, TABLE_EXPLICIT);
	}
	if (!kv) {
		v = add(P, t, i);
		v->pos = pos;
		return new_table(P, v, TABLE_EXPLICIT);
	}
	v = kv->value;
	if (v->type == TOML_TABLE && v->u.table->flags == TABLE_IMPLICIT) {
		/* [a.b] then [a]: a is defined here, once */
		v->u.table->flags = TABLE_EXPLICIT;
		v->pos = pos;
		kv->pos = P->parts[i].pos;
		return v->u.table;
	}
	if (v->type == TOML_TABLE && (v->u.table->flags & TABLE_DOTTED))
		what = "a table by dotted keys";
	else if (v->type == TOML_TABLE && (v->u.table->flags & TABLE_INLINE))
		what = "an inline table";
	else if (v->type == TOML_TABLE)
		what = "a table";
	else if (v->type == TOML_ARRAY && v->u.array->of_tables)
		what = "an array of tables";
	else
		what = toml_type_name(v->type);
	toml_fail(P, P->parts[i].at, "'%s' is already defined as %s at %d:%d", key_name(P, i),
	          what, v->pos.line, v->pos.col);
}

static struct toml_value *
parse_document(struct parser *P)
{
	struct toml_value *root;
	struct toml_table *cur;
	const char *bad;
	size_t depth = 0;

	if ((bad = toml_utf8_check(P->start, P->end)))
		toml_fail(P, bad, "invalid UTF-8");
	root = NEW(P, struct toml_value);
	root->pos = toml_pos_at(P, P->p);
	cur = new_table(P, root, TABLE_EXPLICIT);
	open_section(P, cur);
	for (;;) {
		skip_ws(P);
		if (P->p == P->end) {
			close_section(P);
			return root;
		}
		if (*P->p == '[') {
			cur = parse_header(P, root->u.table, &depth);
			open_section(P, cur);
			end_line(P, "table header");
		} else if (*P->p == '#' || *P->p == '\n' || *P->p == '\r') {
			end_line(P, "comment");
		} else {
			parse_keyval(P, cur, depth);
			end_line(P, "value");
		}
	}
}

static void
parser_free(struct parser *P)
{
	buf_free(&P->str);
	buf_free(&P->keys);
	free(P->parts);
	free(P->stack);
	free(P->sect_items);
	free(P);
}

struct toml_value *
toml_parse(struct arena *a, const char *path, const char *text, size_t len,
           struct toml_error *err)
{
	struct toml_error ignored;
	struct parser *P = xcalloc(1, sizeof(*P));
	struct toml_value *root;

	if (!err)
		err = &ignored;
	memset(err, 0, sizeof(*err));
	if (!text)
		text = "", len = 0;
	P->a = a;
	P->path = path;
	P->err = err;
	P->start = text;
	P->end = text + len;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		P->start += 3;
	P->p = P->bol = P->start;
	P->line = 1;
	/* P is on the heap, so longjmp leaves nothing indeterminate */
	if (setjmp(P->jmp)) {
		parser_free(P);
		return NULL;
	}
	root = parse_document(P);
	parser_free(P);
	return root;
}
