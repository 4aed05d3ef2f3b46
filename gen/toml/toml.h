/* toml.h: TOML 1.0.0 text -> tree with source positions (toml.c). Knows
 * no schema. The tree's types are in toml_tree.h; its JSON forms in
 * toml_json.h. */
#ifndef KUNAI_TOML_H
#define KUNAI_TOML_H

#include <stddef.h>

#include "toml_tree.h"

struct arena;

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

#endif
