/* toml_index.c: key lookup in TOML tables. Small tables are searched
 * linearly; larger ones get a hash index, built as keys are added, so that
 * neither the parser's duplicate checks nor the model's lookups are
 * quadratic in a table's size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "toml_priv.h"
#include "gen/base/util.h"

enum {
	/* Tables with more keys get a hash index. */
	INDEX_MIN = 16,
};

/* Open addressing with linear probing, at most half full. */
struct toml_table_index {
	size_t count; /* table length it covers: stale if different */
	size_t mask;
	struct slot {
		uint32_t item; /* index + 1, 0 when free */
		uint32_t hash; /* saves most key comparisons */
	} *slot;
};

static uint32_t
hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	/* FNV's low bits are poor for keys like k1, k2, ...: mix them */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h;
}

/* Returns the slot holding key, or the free slot where it would go. */
static struct slot *
slot_for(const struct toml_table *t, const char *key, size_t len, uint32_t h)
{
	const struct toml_table_index *ix = t->index;
	const struct toml_keyval *kv;
	struct slot *s;
	size_t i;

	for (i = h & ix->mask;; i = (i + 1) & ix->mask) {
		s = &ix->slot[i];
		if (!s->item)
			return s;
		kv = &t->items[s->item - 1];
		if (s->hash == h && kv->key_len == len && memcmp(kv->key, key, len) == 0)
			return s;
	}
}

struct toml_keyval *
toml_get_kv(const struct toml_table *t, const char *key, size_t len)
{
	struct toml_keyval *kv;
	struct slot *s;
	size_t i;

	if (!t)
		return NULL;
	if (t->index && t->index->count == t->len) {
		s = slot_for(t, key, len, hash(key, len));
		return s->item ? &t->items[s->item - 1] : NULL;
	}
	for (i = 0; i < t->len; i++) {
		kv = &t->items[i];
		if (kv->key_len == len && memcmp(kv->key, key, len) == 0)
			return kv;
	}
	return NULL;
}

struct toml_value *
toml_get(const struct toml_table *t, const char *key)
{
	struct toml_keyval *kv = toml_get_kv(t, key, strlen(key));

	return kv ? kv->value : NULL;
}

static void
slot_put(struct toml_table_index *ix, uint32_t item, uint32_t h)
{
	size_t i = h & ix->mask;

	while (ix->slot[i].item)
		i = (i + 1) & ix->mask;
	ix->slot[i].item = item;
	ix->slot[i].hash = h;
}

/* Indexes the table's last item. The arena keeps outgrown slot arrays,
 * which doubling bounds to the size of the live one. */
void
toml_index_add(struct arena *a, struct toml_table *t)
{
	struct toml_table_index *ix = t->index;
	struct toml_keyval *kv;
	struct slot *old;
	size_t i, n, oldn;

	if (t->len <= INDEX_MIN)
		return;
	if (t->len >= UINT32_MAX) {
		t->index = NULL; /* lookups fall back to scanning */
		return;
	}
	if (!ix)
		ix = t->index = arena_alloc(a, sizeof(*ix));
	if (ix->count + 1 != t->len || t->len * 2 > ix->mask) {
		old = ix->count + 1 == t->len ? ix->slot : NULL;
		oldn = old ? ix->mask + 1 : 0;
		for (n = 32; n < t->len * 2; n *= 2)
			;
		ix->slot = arena_grow(a, NULL, 0, n, sizeof(*ix->slot));
		ix->mask = n - 1;
		/* in slot order, which writes the new array almost in order */
		for (i = 0; i < oldn; i++) {
			if (old[i].item)
				slot_put(ix, old[i].item, old[i].hash);
		}
		for (i = old ? t->len - 1 : 0; i + 1 < t->len; i++)
			slot_put(ix, (uint32_t)i + 1, hash(t->items[i].key, t->items[i].key_len));
	}
	kv = &t->items[t->len - 1];
	slot_put(ix, (uint32_t)t->len, hash(kv->key, kv->key_len));
	ix->count = t->len;
}

