/* jsonquery: prints one value of a JSON document, for the bats suites (jq is
 * not a dependency). usage: jsonquery FILE PATH, where PATH is dot-separated
 * object keys and array indices from 0 ("runs.2.outcome"; "" or "." is the
 * whole document); a last part "#" prints the length of an array or object.
 * Strings print raw, numbers as integers when they are, null/true/false as
 * such, arrays and objects as compact JSON. Exit 1 when PATH is not there, 2
 * on usage or parse errors. */
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

static void
print(const cJSON *v)
{
	char *s;

	if (cJSON_IsString(v))
		printf("%s\n", v->valuestring);
	else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
		printf("%.0f\n", v->valuedouble);
	else if (cJSON_IsNumber(v)) {
		/* the shortest of %.15g and %.17g that reads back as the same number */
		char tmp[64];
		snprintf(tmp, sizeof(tmp), "%.15g", v->valuedouble);
		if (strtod(tmp, NULL) != v->valuedouble)
			snprintf(tmp, sizeof(tmp), "%.17g", v->valuedouble);
		printf("%s\n", tmp);
	}
	else {
		s = cJSON_PrintUnformatted(v);
		printf("%s\n", s ? s : "?");
		cJSON_free(s);
	}
}

int
main(int argc, char **argv)
{
	char *text, *path, *part, *save = NULL, *end;
	const cJSON *v;
	cJSON *root;
	long i;

	if (argc != 3) {
		fprintf(stderr, "usage: jsonquery FILE PATH\n");
		return 2;
	}
	text = slurp(argv[1]);
	if (!text) {
		fprintf(stderr, "jsonquery: cannot read %s\n", argv[1]);
		return 2;
	}
	root = cJSON_Parse(text);
	free(text);
	if (!root) {
		fprintf(stderr, "jsonquery: %s is not JSON\n", argv[1]);
		return 2;
	}
	v = root;
	path = strdup(argv[2]);
	for (part = strtok_r(path, ".", &save); v && part; part = strtok_r(NULL, ".", &save)) {
		if (strcmp(part, "#") == 0 && (cJSON_IsArray(v) || cJSON_IsObject(v))) {
			printf("%d\n", cJSON_GetArraySize(v));
			free(path);
			cJSON_Delete(root);
			return 0;
		}
		if (cJSON_IsArray(v)) {
			i = strtol(part, &end, 10);
			v = *end || i < 0 ? NULL : cJSON_GetArrayItem(v, (int)i);
		} else
			v = cJSON_GetObjectItemCaseSensitive(v, part);
	}
	free(path);
	if (!v) {
		fprintf(stderr, "jsonquery: %s: no %s\n", argv[1], argv[2]);
		cJSON_Delete(root);
		return 1;
	}
	print(v);
	cJSON_Delete(root);
	return 0;
}
