/* toml_json.h: toml_json.c, a TOML tree as JSON: toml-test's tagged form
 * (`kunai toml2json`) and plain JSON (the model's values in kunai.json). */
#ifndef KUNAI_TOML_JSON_H
#define KUNAI_TOML_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include "toml_tree.h"

struct buf;
struct cJSON;

/* Writes root to f as toml-test's tagged JSON (pretty, newline-terminated),
 * as it walks the tree. Returns false (after reporting) on a write error. */
bool toml_tagged_json(const struct toml_value *root, FILE *f);
/* Returns v as plain JSON (date-times as strings), or NULL when out of memory. */
struct cJSON *toml_value_json(const struct toml_value *v);

#endif
