/* json.c: reading and writing JSON files (cJSON) for every part of kunai:
 * a file loaded with a located parse error, typed member access that never
 * trusts the input, and printing. Inputs may be missing, truncated or
 * hand-edited: types are checked before every read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "json.h"
#include "util.h"

/* Parses text as JSON; on failure puts "line:col: invalid JSON" in why. */
static cJSON *
parse(const struct buf *text, struct buf *why)
{
	const char *end = NULL, *p;
	int line = 1, col = 1;
	cJSON *root;

	root = cJSON_ParseWithLengthOpts(text->data ? text->data : "", text->len, &end, 0);
	if (root)
		return root;
	if (!end)
		end = cJSON_GetErrorPtr();
	for (p = text->data; p && end && p < end && p < text->data + text->len; p++) {
		if (*p == '\n')
			line++, col = 1;
		else
			col++;
	}
	buf_printf(why, "%d:%d: invalid JSON", line, col);
	return NULL;
}

/* Reads and parses path. Returns NULL with why set; *absent tells ENOENT. */
cJSON *
json_load(const char *path, struct buf *why, bool *absent)
{
	return json_load_cut(path, NULL, why, absent);
}

struct cJSON *
json_load_cut(const char *path, const char *cut, struct buf *why, bool *absent)
{
	char *at;
	struct buf text = {0};
	FILE *f;
	int fd;
	char tmp[65536];
	size_t n;
	cJSON *root;

	*absent = false;
	/* a file: a FIFO or device in its place is neither waited on nor read
	 * without end */
	if ((fd = file_open_regular(AT_FDCWD, path, 0)) < 0 || !(f = fdopen(fd, "rb"))) {
		*absent = errno == ENOENT;
		buf_printf(why, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		buf_push(&text, tmp, n);
	if (ferror(f)) {
		buf_printf(why, "read error");
		fclose(f);
		buf_free(&text);
		return NULL;
	}
	fclose(f);
	if (cut && text.data && (at = strstr(text.data, cut)) != NULL) {
		text.len = (size_t)(at - text.data);
		buf_puts(&text, "\n}");
	}
	root = parse(&text, why);
	buf_free(&text);
	if (root && !cJSON_IsObject(root)) {
		buf_printf(why, "not a JSON object");
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

const cJSON *
json_item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* v when it is an array (or, with object, an object), else NULL: the
 * children of anything else are not to be walked. */
const cJSON *
json_children(const cJSON *v, bool object)
{
	return (object ? cJSON_IsObject(v) : cJSON_IsArray(v)) ? v : NULL;
}

/* A string member as an arena copy; numbers are formatted (a job id may be
 * written as either). NULL when absent, null or of another type. */
const char *
json_get_str(struct arena *a, const cJSON *o, const char *key)
{
	const cJSON *v = json_item(o, key);
	char tmp[64];

	if (cJSON_IsString(v) && v->valuestring)
		return arena_strdup(a, v->valuestring);
	if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
		if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9007199254740992.0)
			snprintf(tmp, sizeof(tmp), "%.0f", v->valuedouble);
		else
			snprintf(tmp, sizeof(tmp), "%.17g", v->valuedouble);
		return arena_strdup(a, tmp);
	}
	return NULL;
}

/* An integer member; false when absent, null, fractional or out of range. */
bool
json_get_int(const cJSON *o, const char *key, int *out)
{
	const cJSON *v = json_item(o, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < INT_MIN || v->valuedouble > INT_MAX)
		return false;
	*out = (int)v->valuedouble;
	return true;
}

const char *
json_get_list(struct arena *a, const cJSON *o, const char *key)
{
	const cJSON *v = json_item(o, key), *n;
	struct buf b = {0};
	const char *s;

	if (!cJSON_IsArray(v))
		return json_get_str(a, o, key);
	cJSON_ArrayForEach(n, v) {
		if (!cJSON_IsString(n))
			continue;
		if (b.len)
			buf_putc(&b, ',');
		buf_puts(&b, n->valuestring);
	}
	s = b.len ? arena_strdup(a, b.data) : NULL;
	buf_free(&b);
	return s;
}

/* What cJSON 1.7 prints for a finite d that is not an int: "%1.15g" where
 * it reads back as d (within DBL_EPSILON, cJSON's compare_double), else
 * "%1.17g"; the plain decimals without printf (util_decimal_text), the rest read back with
 * strtod (cJSON uses sscanf, which is slower). */
static void
number_text(double d, char text[32])
{
	double back;

	if (util_decimal_text(d, 15, text))
		return;
	snprintf(text, 32, "%1.15g", d);
	back = strtod(text, NULL);
	if (!(fabs(back - d) <= fmax(fabs(back), fabs(d)) * DBL_EPSILON))
		snprintf(text, 32, "%1.17g", d);
}

/* The numbers of o that cJSON would print with printf's float path become
 * raw text of the same bytes (number_text). Integers too: cJSON 1.7.15
 * prints them with "%1.15g" and reads them back with sscanf (later ones
 * with "%d": the same digits); zero (whose sign the two tell apart), NaN
 * and infinities ("null") stay cJSON's. */
static void
numbers_as_text(cJSON *o)
{
	char text[32], *copy;
	cJSON *c;

	for (c = o; c; c = c->next) {
		if (c->child)
			numbers_as_text(c->child);
		if (c->type != cJSON_Number || !isfinite(c->valuedouble) || c->valuedouble == 0)
			continue;
		number_text(c->valuedouble, text);
		if (!(copy = strdup(text)))
			fatal("out of memory while printing JSON");
		c->type = cJSON_Raw;
		c->valuestring = copy;
	}
}

/* Appends o printed (cJSON's tab layout, as kunai.json) and a newline.
 * Printed in place, in out's room (cJSON_PrintPreallocated, the bytes of
 * cJSON_Print), made twice as large while it is too small: no buffer of
 * cJSON's grown by realloc and copied again, per report.json. */
void
json_print(cJSON *o, struct buf *out)
{
	size_t room = 8192;

	numbers_as_text(o->child);
	for (;;) {
		/* cJSON asks for 5 bytes more than it writes; then the newline */
		if (out->cap - out->len < room + 7)
			out->data = xreserve(out->data, out->len + room + 7, &out->cap, 1);
		if (cJSON_PrintPreallocated(o, out->data + out->len, (int)room + 5, 1))
			break;
		if (room > (size_t)INT_MAX / 4)
			fatal("out of memory while printing JSON");
		room *= 2;
	}
	out->len += strlen(out->data + out->len);
	buf_putc(out, '\n');
	cJSON_Delete(o);
}
