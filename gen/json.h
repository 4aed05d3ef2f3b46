/* json.h: every JSON kunai reads or writes goes through here (cJSON). */
#ifndef KUNAI_JSON_H
#define KUNAI_JSON_H

#include <stdbool.h>

struct buf;
struct campaign;
struct runlist;
struct toml_value;

/* Appends root as toml-test's tagged JSON (pretty, newline-terminated) to out.
 * Returns false (after reporting) on failure. */
bool json_tagged_toml(const struct toml_value *root, struct buf *out);

/* Appends kunai.json (the resolved campaign and its runs) to out.
 * Returns false (after reporting) on failure. */
bool json_campaign(const struct campaign *c, const struct runlist *rl, struct buf *out);

#endif
