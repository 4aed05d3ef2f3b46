/* toml_json.c: a parsed TOML tree as JSON (cJSON): toml-test's tagged form
 * for `kunai toml2json`, and plain values for the model's values in kunai.json
 * (model_json.c). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "toml.h"
#include "toml_json.h"
#include "gen/base/util.h"

static cJSON *tagged(const struct toml_value *v);

/* cJSON strings end at NUL but TOML strings and keys may hold U+0000. Parsed
 * TOML is valid UTF-8, so byte 0xFF never occurs in it: NUL travels through
 * cJSON as 0xFF and becomes \u0000 after printing. */
enum { NUL_STANDIN = 0xFF };

static char *
nul_escape(const char *s, size_t len)
{
	char *copy = xmalloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		copy[i] = s[i] ? s[i] : (char)NUL_STANDIN;
	copy[len] = '\0';
	return copy;
}

static cJSON *
tagged_scalar(const char *type, const char *text, size_t len)
{
	cJSON *o = cJSON_CreateObject();
	char *copy;

	if (!o)
		return NULL;
	copy = nul_escape(text, len);
	if (!cJSON_AddStringToObject(o, "type", type) || !cJSON_AddStringToObject(o, "value", copy)) {
		cJSON_Delete(o);
		o = NULL;
	}
	free(copy);
	return o;
}

static void
format_float(double d, char *out, size_t n)
{
	if (isnan(d))
		snprintf(out, n, "nan");
	else if (isinf(d))
		snprintf(out, n, d < 0 ? "-inf" : "inf");
	else
		snprintf(out, n, "%.17g", d);
}

static cJSON *
tagged_table(const struct toml_table *t)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < t->len; i++) {
		const struct toml_keyval *kv = &t->items[i];
		char *key = nul_escape(kv->key, kv->key_len);
		cJSON *child = tagged(kv->value);

		if (!child) {
			cJSON_Delete(o);
			o = NULL;
		} else {
			cJSON_AddItemToObject(o, key, child);
		}
		free(key);
	}
	return o;
}

static cJSON *
tagged(const struct toml_value *v)
{
	char tmp[64];
	cJSON *a;
	size_t i;

	switch (v->type) {
	case TOML_TABLE:
		return tagged_table(v->u.table);
	case TOML_ARRAY:
		a = cJSON_CreateArray();
		for (i = 0; a && i < v->u.array->len; i++) {
			cJSON *child = tagged(v->u.array->items[i]);
			if (!child) {
				cJSON_Delete(a);
				return NULL;
			}
			cJSON_AddItemToArray(a, child);
		}
		return a;
	case TOML_STRING:
		return tagged_scalar("string", v->u.str.s, v->u.str.len);
	case TOML_INTEGER:
		snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
		return tagged_scalar("integer", tmp, strlen(tmp));
	case TOML_FLOAT:
		format_float(v->u.flt, tmp, sizeof(tmp));
		return tagged_scalar("float", tmp, strlen(tmp));
	case TOML_BOOL:
		return tagged_scalar("bool", v->u.boolean ? "true" : "false", v->u.boolean ? 4 : 5);
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, tmp, sizeof(tmp));
		return tagged_scalar(v->type == TOML_DATETIME ? "datetime"
		                     : v->type == TOML_DATETIME_LOCAL ? "datetime-local"
		                     : v->type == TOML_DATE_LOCAL ? "date-local" : "time-local",
		                     tmp, strlen(tmp));
	}
	return NULL;
}

/* A TOML value as plain JSON (date-times as strings). */
cJSON *
toml_value_json(const struct toml_value *v)
{
	char tmp[64];
	cJSON *o;
	size_t i;

	switch (v->type) {
	case TOML_TABLE:
		o = cJSON_CreateObject();
		for (i = 0; i < v->u.table->len; i++)
			cJSON_AddItemToObject(o, v->u.table->items[i].key, toml_value_json(v->u.table->items[i].value));
		return o;
	case TOML_ARRAY:
		o = cJSON_CreateArray();
		for (i = 0; i < v->u.array->len; i++)
			cJSON_AddItemToArray(o, toml_value_json(v->u.array->items[i]));
		return o;
	case TOML_STRING:
		return cJSON_CreateString(v->u.str.s);
	case TOML_INTEGER:
		/* beyond 2^53 a JSON number would lose digits */
		if (v->u.integer > 9007199254740992LL || v->u.integer < -9007199254740992LL) {
			snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
			return cJSON_CreateString(tmp);
		}
		return cJSON_CreateNumber((double)v->u.integer);
	case TOML_FLOAT:
		if (isnan(v->u.flt) || isinf(v->u.flt)) {
			format_float(v->u.flt, tmp, sizeof(tmp));
			return cJSON_CreateString(tmp);
		}
		return cJSON_CreateNumber(v->u.flt);
	case TOML_BOOL:
		return cJSON_CreateBool(v->u.boolean);
	default:
		toml_format_datetime(v, tmp, sizeof(tmp));
		return cJSON_CreateString(tmp);
	}
}

/* The tagged JSON is written as it is walked, a block at a time: a tree of
 * cJSON objects (four per scalar) and its printed text cost 35 times the
 * document's size. Each string is escaped by cJSON. */
struct json_out {
	FILE *f;
	struct buf b, copy;
	char *esc;
	size_t esc_cap;
	bool ok;
};

static void
out_flush(struct json_out *o, size_t above)
{
	if (o->b.len <= above)
		return;
	if (o->ok && fwrite(o->b.data, 1, o->b.len, o->f) != o->b.len)
		o->ok = false;
	o->b.len = 0;
}

static void
out_indent(struct json_out *o, int depth)
{
	while (depth-- > 0)
		buf_putc(&o->b, '\t');
}

static void
out_string(struct json_out *o, const char *s, size_t len)
{
	cJSON item = {0};
	size_t i, need = len * 6 + 8; /* \uXXXX per byte at worst, quotes, cJSON's slack */
	const char *p;

	o->copy.len = 0;
	for (i = 0; i < len; i++)
		buf_putc(&o->copy, s[i] ? s[i] : (char)NUL_STANDIN);
	buf_putc(&o->copy, '\0');
	if (need > o->esc_cap) {
		o->esc_cap = need > 2 * o->esc_cap ? need : 2 * o->esc_cap;
		free(o->esc);
		o->esc = xmalloc(o->esc_cap);
	}
	item.type = cJSON_String;
	item.valuestring = o->copy.data;
	if (o->esc_cap > INT_MAX || !cJSON_PrintPreallocated(&item, o->esc, (int)o->esc_cap, false)) {
		o->ok = false;
		return;
	}
	for (p = o->esc; *p; p++) {
		if ((unsigned char)*p == NUL_STANDIN)
			buf_puts(&o->b, "\\u0000");
		else
			buf_putc(&o->b, *p);
	}
}

static void
out_scalar(struct json_out *o, const char *type, const char *text, size_t len, int depth)
{
	buf_puts(&o->b, "{\n");
	out_indent(o, depth + 1);
	buf_printf(&o->b, "\"type\":\t\"%s\",\n", type);
	out_indent(o, depth + 1);
	buf_puts(&o->b, "\"value\":\t");
	out_string(o, text, len);
	buf_putc(&o->b, '\n');
	out_indent(o, depth);
	buf_putc(&o->b, '}');
}

static void
out_value(struct json_out *o, const struct toml_value *v, int depth)
{
	char tmp[64];
	size_t i;

	out_flush(o, 65536);
	switch (v->type) {
	case TOML_TABLE:
		buf_puts(&o->b, "{\n");
		for (i = 0; i < v->u.table->len; i++) {
			const struct toml_keyval *kv = &v->u.table->items[i];
			out_indent(o, depth + 1);
			out_string(o, kv->key, kv->key_len);
			buf_puts(&o->b, ":\t");
			out_value(o, kv->value, depth + 1);
			buf_puts(&o->b, i + 1 < v->u.table->len ? ",\n" : "\n");
		}
		out_indent(o, depth);
		buf_putc(&o->b, '}');
		return;
	case TOML_ARRAY:
		buf_putc(&o->b, '[');
		for (i = 0; i < v->u.array->len; i++) {
			if (i)
				buf_puts(&o->b, ", ");
			out_value(o, v->u.array->items[i], depth);
		}
		buf_putc(&o->b, ']');
		return;
	case TOML_STRING:
		out_scalar(o, "string", v->u.str.s, v->u.str.len, depth);
		return;
	case TOML_INTEGER:
		snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
		break;
	case TOML_FLOAT:
		format_float(v->u.flt, tmp, sizeof(tmp));
		break;
	case TOML_BOOL:
		snprintf(tmp, sizeof(tmp), "%s", v->u.boolean ? "true" : "false");
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, tmp, sizeof(tmp));
		break;
	}
	out_scalar(o,
	           v->type == TOML_INTEGER          ? "integer"
	           : v->type == TOML_FLOAT          ? "float"
	           : v->type == TOML_BOOL           ? "bool"
	           : v->type == TOML_DATETIME       ? "datetime"
	           : v->type == TOML_DATETIME_LOCAL ? "datetime-local"
	           : v->type == TOML_DATE_LOCAL     ? "date-local"
	                                            : "time-local",
	           tmp, strlen(tmp), depth);
}

bool
toml_tagged_json(const struct toml_value *root, FILE *f)
{
	struct json_out o = {.f = f, .ok = true};

	out_value(&o, root, 0);
	buf_putc(&o.b, '\n');
	out_flush(&o, 0);
	if (!o.ok || fflush(f) != 0)
		warn("write standard output:");
	buf_free(&o.b);
	buf_free(&o.copy);
	free(o.esc);
	return o.ok && !ferror(f);
}
