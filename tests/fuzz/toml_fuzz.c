/* toml_fuzz: libFuzzer target for the TOML parser (make fuzz). Every input must
 * either parse or be rejected with a located error: never crash, hang or leak. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gen/toml/toml.h"
#include "gen/base/util.h"

static void
walk(const struct toml_value *v)
{
	size_t i;
	char out[64];

	switch (v->type) {
	case TOML_TABLE:
		for (i = 0; i < v->u.table->len; i++) {
			const struct toml_keyval *kv = &v->u.table->items[i];
			/* every key must be found again through the index */
			if (toml_get_kv(v->u.table, kv->key, kv->key_len) == NULL)
				__builtin_trap();
			walk(kv->value);
		}
		break;
	case TOML_ARRAY:
		for (i = 0; i < v->u.array->len; i++)
			walk(v->u.array->items[i]);
		break;
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, out, sizeof(out));
		break;
	default:
		break;
	}
	if (v->pos.line < 1 || v->pos.col < 1)
		__builtin_trap();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct arena a = {0};
	struct toml_error err;
	struct toml_value *root;

	root = toml_parse(&a, "fuzz.toml", (const char *)data, size, &err);
	if (root)
		walk(root);
	else if (err.line < 1 || err.col < 1 || err.msg[0] == '\0' ||
	         memchr(err.msg, '\0', sizeof(err.msg)) == NULL)
		__builtin_trap();
	arena_free(&a);
	return 0;
}
