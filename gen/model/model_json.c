/* model_json.c: the model's values as JSON for kunai.json. The model keeps
 * some values as the tree gave them (a cmd_args value, references, peers);
 * the tree's own converter (toml_json.c) turns them into JSON here, on the
 * model's side of the writers. */
#include <cjson/cJSON.h>

#include "model.h"
#include "model_json.h"
#include "gen/toml/toml_json.h"

cJSON *
model_args_json(const struct argset *s)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < s->len; i++)
		cJSON_AddItemToObject(o, s->items[i].key, toml_value_json(s->items[i].val));
	return o;
}

cJSON *
model_value_json(const struct toml_value *v)
{
	return toml_value_json(v);
}
