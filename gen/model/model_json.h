/* model_json.h: the model's values as JSON (model_json.c), for kunai.json:
 * arguments and the tables the reports read (references, peers), so that
 * the writers take them from the model and never convert TOML. */
#ifndef KUNAI_MODEL_JSON_H
#define KUNAI_MODEL_JSON_H

struct argset;
struct cJSON;
struct toml_value;

/* An object of the set's keys (flattened, declaration order) and their
 * values; NULL when out of memory. */
struct cJSON *model_args_json(const struct argset *s);
/* A value the model kept as written (a table of references or peers, a
 * num_nodes sweep): plain JSON, date-times as strings; NULL when out of
 * memory. */
struct cJSON *model_value_json(const struct toml_value *v);

#endif
