/* jsoncmp: compares two toml-test tagged JSON documents semantically (object key
 * order ignored, floats by value, date-times after normalisation).
 * usage: jsoncmp EXPECTED ACTUAL; exit 0 when equal, 1 when not (with the path
 * of the first difference on stderr), 2 on usage or parse errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static char *
slurp(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *p = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			p = realloc(p, cap + 1);
			if (!p)
				exit(2);
		}
		n = fread(p + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	p[len] = '\0';
	if (f != stdin)
		fclose(f);
	return p;
}

/* Normalise an RFC 3339 / TOML date-time: 'T', 'Z', no trailing fraction zeros. */
static void
norm_datetime(const char *in, char *out, size_t n)
{
	size_t i = 0, frac = 0;
	const char *p;

	for (p = in; *p && i + 1 < n; p++) {
		char c = *p;
		if (c == 't' || c == ' ')
			c = 'T';
		else if (c == 'z')
			c = 'Z';
		out[i++] = c;
	}
	out[i] = '\0';
	/* "+00:00" and "-00:00" mean UTC */
	if (i >= 6 && (strcmp(out + i - 6, "+00:00") == 0 || strcmp(out + i - 6, "-00:00") == 0)) {
		i -= 6;
		out[i++] = 'Z';
		out[i] = '\0';
	}
	/* strip trailing zeros of a fraction, and the dot if nothing is left */
	p = strchr(out, '.');
	if (p) {
		size_t dot = (size_t)(p - out), end = dot + 1;
		while (out[end] >= '0' && out[end] <= '9')
			end++;
		frac = end;
		while (frac > dot + 1 && out[frac - 1] == '0')
			frac--;
		if (frac == dot + 1)
			frac = dot;
		memmove(out + frac, out + end, strlen(out + end) + 1);
	}
}

static int
scalar_eq(const char *type, const char *a, const char *b)
{
	if (strcmp(type, "float") == 0) {
		double x, y;
		if (strcmp(a, "nan") == 0 || strcmp(a, "+nan") == 0 || strcmp(a, "-nan") == 0)
			return strcmp(b, "nan") == 0 || strcmp(b, "+nan") == 0 || strcmp(b, "-nan") == 0;
		x = strtod(strcmp(a, "+inf") == 0 ? "inf" : a, NULL);
		y = strtod(strcmp(b, "+inf") == 0 ? "inf" : b, NULL);
		return x == y;
	}
	if (strcmp(type, "integer") == 0)
		return strtoll(a, NULL, 10) == strtoll(b, NULL, 10);
	if (strncmp(type, "datetime", 8) == 0 || strcmp(type, "date-local") == 0 ||
	    strcmp(type, "time-local") == 0) {
		char na[128], nb[128];
		norm_datetime(a, na, sizeof(na));
		norm_datetime(b, nb, sizeof(nb));
		return strcmp(na, nb) == 0;
	}
	return strcmp(a, b) == 0;
}

static int
is_tagged(const cJSON *o)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "value");
	return cJSON_IsObject(o) && cJSON_GetArraySize(o) == 2 && cJSON_IsString(t) && cJSON_IsString(v);
}

static int
diff(const cJSON *a, const cJSON *b, const char *path)
{
	char sub[4096];
	const cJSON *x;
	int i, na, nb;

	if (is_tagged(a) || is_tagged(b)) {
		const char *ta, *tb;
		if (!is_tagged(a) || !is_tagged(b)) {
			fprintf(stderr, "%s: scalar vs non-scalar\n", path);
			return 1;
		}
		ta = cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring;
		tb = cJSON_GetObjectItemCaseSensitive(b, "type")->valuestring;
		if (strcmp(ta, tb) != 0) {
			fprintf(stderr, "%s: type %s vs %s\n", path, ta, tb);
			return 1;
		}
		if (!scalar_eq(ta, cJSON_GetObjectItemCaseSensitive(a, "value")->valuestring,
		               cJSON_GetObjectItemCaseSensitive(b, "value")->valuestring)) {
			fprintf(stderr, "%s: value '%s' vs '%s'\n", path,
			        cJSON_GetObjectItemCaseSensitive(a, "value")->valuestring,
			        cJSON_GetObjectItemCaseSensitive(b, "value")->valuestring);
			return 1;
		}
		return 0;
	}
	if (cJSON_IsArray(a) != cJSON_IsArray(b) || cJSON_IsObject(a) != cJSON_IsObject(b)) {
		fprintf(stderr, "%s: array/table kind differs\n", path);
		return 1;
	}
	na = cJSON_GetArraySize(a);
	nb = cJSON_GetArraySize(b);
	if (na != nb) {
		fprintf(stderr, "%s: %d vs %d entries\n", path, na, nb);
		return 1;
	}
	if (cJSON_IsArray(a)) {
		for (i = 0; i < na; i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			if (diff(cJSON_GetArrayItem(a, i), cJSON_GetArrayItem(b, i), sub))
				return 1;
		}
		return 0;
	}
	cJSON_ArrayForEach(x, a) {
		const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
		snprintf(sub, sizeof(sub), "%s.%s", path, x->string);
		if (!y) {
			fprintf(stderr, "%s: missing in actual\n", sub);
			return 1;
		}
		if (diff(x, y, sub))
			return 1;
	}
	return 0;
}

/* cJSON ends strings at U+0000; map the escape to the noncharacter U+FFFF, which
 * no toml-test document uses, so NULs still take part in the comparison. */
static void
hide_nul(char *p)
{
	for (; *p; p++) {
		if (*p != '\\')
			continue;
		if (strncmp(p + 1, "u0000", 5) == 0)
			memcpy(p + 2, "FFFF", 4);
		if (p[1])
			p++;
	}
}

int
main(int argc, char **argv)
{
	char *ta, *tb;
	cJSON *a, *b;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: jsoncmp EXPECTED ACTUAL\n");
		return 2;
	}
	ta = slurp(argv[1]);
	tb = slurp(argv[2]);
	if (!ta || !tb) {
		fprintf(stderr, "jsoncmp: cannot read input\n");
		return 2;
	}
	hide_nul(ta);
	hide_nul(tb);
	a = cJSON_Parse(ta);
	b = cJSON_Parse(tb);
	if (!a || !b) {
		fprintf(stderr, "jsoncmp: %s is not JSON\n", !a ? argv[1] : argv[2]);
		return 2;
	}
	rc = diff(a, b, "$");
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(ta);
	free(tb);
	return rc;
}
