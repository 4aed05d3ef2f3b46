/* toml.h: TOML 1.0.0 text -> tree with source positions. Knows no schema. */
#ifndef KUNAI_TOML_H
#define KUNAI_TOML_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

enum toml_type {
	TOML_TABLE,
	TOML_ARRAY,
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,       /* offset date-time */
	TOML_DATETIME_LOCAL, /* local date-time */
	TOML_DATE_LOCAL,
	TOML_TIME_LOCAL,
};

struct toml_pos {
	const char *path;
	int line, col; /* 1-based; col counts bytes */
};

/* Narrow fields keep struct toml_value at 40 bytes: big documents hold
 * millions of values. */
struct toml_datetime {
	int16_t year;
	int8_t month, day;
	int8_t hour, minute, second;
	int8_t frac_digits;     /* digits of fraction as written (0..9) */
	int16_t offset_minutes; /* for TOML_DATETIME */
	bool offset_z;          /* written as Z */
	int32_t nanosecond;
};

struct toml_table;
struct toml_array;

struct toml_value {
	enum toml_type type;
	struct toml_pos pos;
	union {
		struct {
			const char *s; /* NUL-terminated, may contain NUL: use len */
			size_t len;
		} str;
		int64_t integer;
		double flt;
		bool boolean;
		struct toml_datetime dt;
		struct toml_array *array;
		struct toml_table *table;
	} u;
};

struct toml_keyval {
	const char *key; /* NUL-terminated, may contain NUL: use key_len */
	size_t key_len;
	struct toml_pos pos; /* position of the key */
	struct toml_value *value;
};

/* Keys in declaration order. */
struct toml_table {
	struct toml_keyval *items;
	size_t len;
	/* private lookup accelerator, trusted while len is unchanged: set it
	 * to NULL after editing items in place */
	struct toml_table_index *index;
	size_t cap;
	unsigned flags; /* private: defined / implicit / inline / dotted */
};

struct toml_array {
	struct toml_value **items;
	size_t len, cap;
	bool of_tables; /* created by [[header]] */
};

struct toml_error {
	int line, col;
	char msg[256];
};

/* Parses len bytes of text; path is only recorded in positions.
 * Returns the root value (a TOML_TABLE) allocated in a, or NULL with err set. */
struct toml_value *toml_parse(struct arena *a, const char *path, const char *text,
                              size_t len, struct toml_error *err);

/* Returns the value for key in table, or NULL. */
struct toml_value *toml_get(const struct toml_table *t, const char *key);
/* Returns the key/value entry for key in table, or NULL. */
struct toml_keyval *toml_get_kv(const struct toml_table *t, const char *key, size_t len);

/* Returns a static name such as "string" or "table" (for messages); the
 * spelling is toml-test's type tag ("bool", "datetime-local"). */
const char *toml_type_name(enum toml_type t);

/* Formats a date/time value as RFC 3339 text (as toml-test expects) into out,
 * which must hold at least 64 bytes. */
void toml_format_datetime(const struct toml_value *v, char *out, size_t n);

/* ---- toml_json.c ---------------------------------------------------------- */

struct buf;
struct cJSON;

/* Writes root to f as toml-test's tagged JSON (pretty, newline-terminated),
 * as it walks the tree. Returns false (after reporting) on a write error. */
bool toml_tagged_json(const struct toml_value *root, FILE *f);
/* Returns v as plain JSON (date-times as strings), or NULL when out of memory. */
struct cJSON *toml_value_json(const struct toml_value *v);

#endif
