/* json.h: JSON files in and out (cJSON), for every part of kunai. Callers
 * that walk the tree include <cjson/cJSON.h> themselves. */
#ifndef KUNAI_JSON_H
#define KUNAI_JSON_H

#include <stdbool.h>

struct arena;
struct buf;
struct cJSON;

/* Reads and parses path into an object. Returns NULL with why set
 * ("L:C: invalid JSON", "not a JSON object", strerror); *absent tells
 * that the file does not exist. Reports nothing. */
struct cJSON *json_load(const char *path, struct buf *why, bool *absent);
/* json_load of the object's members before the text cut (a member's
 * start as cJSON_Print writes it, e.g. ",\n\t\"series\":"): the rest of
 * the file is not parsed. */
struct cJSON *json_load_cut(const char *path, const char *cut, struct buf *why, bool *absent);
/* Member key of o, or NULL. */
const struct cJSON *json_item(const struct cJSON *o, const char *key);
/* v when it is an array (or, with object, an object), else NULL: the
 * children of anything else are not to be walked. */
const struct cJSON *json_children(const struct cJSON *v, bool object);
/* A string member as an arena copy; numbers are formatted (a job id may be
 * written as either). NULL when absent, null or of another type. */
const char *json_get_str(struct arena *a, const struct cJSON *o, const char *key);
/* An integer member; false when absent, null, fractional or out of range. */
bool json_get_int(const struct cJSON *o, const char *key, int *out);
/* A string member, or a list of strings joined with commas; NULL when
 * absent or empty. */
const char *json_get_list(struct arena *a, const struct cJSON *o, const char *key);
/* Appends o printed (cJSON's tab layout) and a newline, then deletes o.
 * Dies when out of memory. */
void json_print(struct cJSON *o, struct buf *out);

#endif
