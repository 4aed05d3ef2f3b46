/* gen_opts.c: the flags of `kunai gen` and `kunai dry-run` (see gen_opts.h). */
#include <stdio.h>
#include <string.h>

#include "gen_opts.h"
#include "gen/base/util.h"

/* cmd: the command whose flags these are (gen, run, dry-run, ...) */
static int
gen_usage(const char *cmd, const char *fmt, const char *arg)
{
	fputs("kunai: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr,
	        "\nusage: kunai %s --system-config FILE --test-scenario FILE [--tests-dir DIR]\n"
	        "       [--hook-dir DIR] [-o DIR | --output-dir DIR] [--preset NAME]...\n"
	        "       [--set KEY=VALUE]... [--single-sbatch] [--enable-cache-without-check]\n"
	        "('kunai help %s' says what each does)\n",
	        cmd, cmd);
	return 2;
}

/* Parses gen/dry-run flags (CloudAI's spellings, old and new). Returns 0, or
 * the exit status of a usage error. */
int
gen_parse_opts(struct arena *a, int argc, char **argv, struct gen_opts *o)
{
	const char *cmd = argc > 0 && argv[0][0] != '-' ? argv[0] : "gen";
	int i;

	for (i = 1; i < argc; i++) {
		const char *f = argv[i], *v = NULL, *eq = NULL;
		char *name;

		if (strncmp(f, "--", 2) == 0 && (eq = strchr(f, '=')))
			name = arena_strndup(a, f, (size_t)(eq - f)), v = eq + 1;
		else
			name = arena_strdup(a, f);
		for (char *p = name + 2; name[0] == '-' && *p; p++)
			if (*p == '_')
				*p = '-';
		if (strcmp(name, "--enable-cache-without-check") == 0) {
			o->cache_without_check = true;
			continue;
		}
		if (strcmp(name, "--single-sbatch") == 0) {
			o->single_sbatch = true;
			continue;
		}
		if (!v) {
			if (i + 1 >= argc)
				return gen_usage(cmd, "option %s needs a value", f);
			v = argv[++i];
		}
		if (strcmp(name, "--system-config") == 0 || strcmp(name, "--system-config-path") == 0)
			o->m.system_path = v;
		else if (strcmp(name, "--tests-dir") == 0 || strcmp(name, "--test-templates-dir") == 0)
			o->m.tests_dir = v;
		else if (strcmp(name, "--test-scenario") == 0 || strcmp(name, "--test-scenario-path") == 0)
			o->m.scenario_path = v;
		else if (strcmp(name, "--hook-dir") == 0)
			o->m.hook_dir = v;
		else if (strcmp(name, "-o") == 0 || strcmp(name, "--output-dir") == 0 ||
		         strcmp(name, "--output-path") == 0)
			o->out_dir = v;
		else if (strcmp(name, "--rules-dir") == 0)
			o->rules_dir = v;
		else if (strcmp(name, "--set") == 0) {
			const char *e = strchr(v, '=');
			if (!e || e == v)
				return gen_usage(cmd, "--set needs KEY=VALUE, not '%s'", v);
			o->sets = arena_reserve(a, o->sets, o->n_sets, o->n_sets + 1, &o->cap_sets, sizeof(*o->sets));
			o->sets[o->n_sets].key = arena_strndup(a, v, (size_t)(e - v));
			o->sets[o->n_sets].value = e + 1;
			o->n_sets++;
		} else if (strcmp(name, "--preset") == 0) {
			if (!*v)
				return gen_usage(cmd, "%s", "--preset needs a NAME");
			o->presets = arena_reserve(a, o->presets, o->n_presets, o->n_presets + 1, &o->cap_presets,
			                           sizeof(*o->presets));
			o->presets[o->n_presets++] = v;
		} else if (strcmp(name, "--mode") == 0) {
			if (strcmp(v, "dry-run") != 0 && strcmp(v, "gen") != 0)
				return gen_usage(cmd, "--mode %s is not supported here (use dry-run)", v);
		} else
			return gen_usage(cmd, "unknown option '%s'", f);
	}
	if (!o->m.system_path)
		return gen_usage(cmd, "%s", "missing --system-config");
	if (!o->m.scenario_path)
		return gen_usage(cmd, "%s", "missing --test-scenario");
	o->m.overrides = o->sets;
	o->m.n_overrides = o->n_sets;
	o->m.presets = o->presets;
	o->m.n_presets = o->n_presets;
	return 0;
}

/* The canonical argument list that regenerates the same build dir. */
size_t
gen_regen_args(struct arena *a, const struct gen_opts *o, const char *out_dir, const char ***argv)
{
	const char **v = arena_alloc(a, (15 + 2 * o->n_sets + 2 * o->n_presets) * sizeof(*v));
	size_t n = 0, i;

	v[n++] = "gen";
	v[n++] = "--system-config";
	v[n++] = o->m.system_path;
	if (o->m.tests_dir) {
		v[n++] = "--tests-dir";
		v[n++] = o->m.tests_dir;
	}
	v[n++] = "--test-scenario";
	v[n++] = o->m.scenario_path;
	if (o->m.hook_dir) {
		v[n++] = "--hook-dir";
		v[n++] = o->m.hook_dir;
	}
	v[n++] = "-o";
	v[n++] = out_dir;
	if (o->rules_dir) {
		v[n++] = "--rules-dir";
		v[n++] = o->rules_dir;
	}
	if (o->cache_without_check)
		v[n++] = "--enable-cache-without-check";
	if (o->single_sbatch)
		v[n++] = "--single-sbatch";
	/* the names, not what they resolve to: an edited preset regenerates */
	for (i = 0; i < o->n_presets; i++) {
		v[n++] = "--preset";
		v[n++] = o->presets[i];
	}
	for (i = 0; i < o->n_sets; i++) {
		struct buf b = {0};
		buf_printf(&b, "%s=%s", o->sets[i].key, o->sets[i].value);
		v[n++] = "--set";
		v[n++] = arena_strdup(a, b.data);
		buf_free(&b);
	}
	*argv = v;
	return n;
}
