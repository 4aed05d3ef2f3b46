/* validate.c: checks a JSON document against an OpenAPI v3 structural schema
 * (the subset Kubernetes CRDs use): type, properties (unknown keys are
 * errors, as kubectl --validate=strict makes them, unless the schema allows
 * them), required, items, enum, additionalProperties,
 * x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields, anyOf,
 * minimum, minLength, maxLength, maxItems. Not checked: pattern, format,
 * x-kubernetes-validations (CEL), list-type uniqueness.
 * usage: validate SCHEMA.json DOC.json; exit 0 valid, 1 invalid, 2 usage. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

static cJSON *
load(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text;
	long n;
	cJSON *j;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	text = malloc((size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	text[n] = '\0';
	fclose(f);
	if (!(j = cJSON_Parse(text))) {
		fprintf(stderr, "%s: invalid JSON\n", path);
		exit(2);
	}
	free(text);
	return j;
}

static void
fail(const char *where, const char *msg, const char *extra)
{
	printf("%s: %s%s%s\n", where[0] ? where : "/", msg, extra ? " " : "", extra ? extra : "");
	errors++;
}

static int
type_ok(const cJSON *v, const char *t)
{
	if (strcmp(t, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(t, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(t, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(t, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(t, "integer") == 0)
		return cJSON_IsNumber(v) && floor(v->valuedouble) == v->valuedouble;
	return 1;
}

static void check(const cJSON *s, const cJSON *v, const char *where);

static int
quiet_ok(const cJSON *s, const cJSON *v, const char *where)
{
	int before = errors, ok;

	check(s, v, where);
	ok = errors == before;
	errors = before;
	return ok;
}

static void
check(const cJSON *s, const cJSON *v, const char *where)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type");
	const cJSON *p, *e, *k;
	char sub[4096];
	int i = 0, matched;

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "x-kubernetes-int-or-string"))) {
		if (!cJSON_IsString(v) && !(cJSON_IsNumber(v) && floor(v->valuedouble) == v->valuedouble))
			fail(where, "is neither an integer nor a string", NULL);
		return;
	}
	if (cJSON_IsString(t) && !type_ok(v, t->valuestring)) {
		fail(where, "is not of type", t->valuestring);
		return;
	}
	if ((e = cJSON_GetObjectItemCaseSensitive(s, "enum"))) {
		matched = 0;
		cJSON_ArrayForEach(k, e) matched |= cJSON_Compare(k, v, 1);
		if (!matched)
			fail(where, "is not one of the schema's enum values", NULL);
	}
	if ((e = cJSON_GetObjectItemCaseSensitive(s, "anyOf"))) {
		matched = 0;
		cJSON_ArrayForEach(k, e) matched |= quiet_ok(k, v, where);
		if (!matched)
			fail(where, "matches none of anyOf", NULL);
	}
	if (cJSON_IsNumber(v) && (e = cJSON_GetObjectItemCaseSensitive(s, "minimum")) &&
	    v->valuedouble < e->valuedouble)
		fail(where, "is below the minimum", NULL);
	if (cJSON_IsString(v) && (e = cJSON_GetObjectItemCaseSensitive(s, "maxLength")) &&
	    strlen(v->valuestring) > (size_t)e->valuedouble)
		fail(where, "is longer than maxLength", NULL);
	if (cJSON_IsString(v) && (e = cJSON_GetObjectItemCaseSensitive(s, "minLength")) &&
	    strlen(v->valuestring) < (size_t)e->valuedouble)
		fail(where, "is shorter than minLength", NULL);
	if (cJSON_IsArray(v)) {
		if ((e = cJSON_GetObjectItemCaseSensitive(s, "maxItems")) &&
		    cJSON_GetArraySize(v) > (int)e->valuedouble)
			fail(where, "has more than maxItems", NULL);
		if ((p = cJSON_GetObjectItemCaseSensitive(s, "items")))
			cJSON_ArrayForEach(k, v) {
				snprintf(sub, sizeof sub, "%s/%d", where, i++);
				check(p, k, sub);
			}
	}
	if (!cJSON_IsObject(v))
		return;
	if ((e = cJSON_GetObjectItemCaseSensitive(s, "required")))
		cJSON_ArrayForEach(k, e) if (cJSON_IsString(k) &&
		                             !cJSON_GetObjectItemCaseSensitive(v, k->valuestring))
		        fail(where, "lacks required key", k->valuestring);
	p = cJSON_GetObjectItemCaseSensitive(s, "properties");
	e = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	cJSON_ArrayForEach(k, v) {
		const cJSON *ps = p ? cJSON_GetObjectItemCaseSensitive(p, k->string) : NULL;

		snprintf(sub, sizeof sub, "%s/%s", where, k->string);
		if (ps)
			check(ps, k, sub);
		else if (cJSON_IsObject(e))
			check(e, k, sub);
		else if (p && !cJSON_IsTrue(e) &&
		         !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "x-kubernetes-preserve-unknown-fields")))
			fail(sub, "is an unknown field", NULL);
	}
}

int
main(int argc, char **argv)
{
	cJSON *s, *d;

	if (argc != 3) {
		fputs("usage: validate SCHEMA.json DOC.json\n", stderr);
		return 2;
	}
	s = load(argv[1]);
	d = load(argv[2]);
	check(s, d, "");
	cJSON_Delete(s);
	cJSON_Delete(d);
	return errors ? 1 : 0;
}
