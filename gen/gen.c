/* gen.c: `kunai gen` and `kunai dry-run`: load the campaign, expand it, and
 * write the build dir. Everything is built in memory first so that a failed
 * gen leaves the previous build dir as it was. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "expand.h"
#include "json.h"
#include "model.h"
#include "ninja.h"
#include "script.h"
#include "util.h"

struct gen_opts {
	struct model_opts m;
	const char *out_dir;
	bool cache_without_check;
	struct override *sets;
	size_t n_sets;
};

/* One file to write, relative to the build dir. */
struct out_file {
	const char *path;
	char *data;
	size_t len;
};

struct out_files {
	struct out_file *items;
	size_t len, cap;
};

static void
add_file(struct arena *a, struct out_files *f, const char *path, struct buf *content)
{
	if (f->len == f->cap) {
		size_t n = f->cap ? f->cap * 2 : 256;
		f->items = arena_grow(a, f->items, f->len, n, sizeof(*f->items));
		f->cap = n;
	}
	f->items[f->len].path = path;
	f->items[f->len].data = arena_strndup(a, content->data ? content->data : "", content->len);
	f->items[f->len].len = content->len;
	f->len++;
	content->len = 0;
}

static const char *
join(struct arena *a, const char *dir, const char *file)
{
	struct buf b = {0};
	const char *s;

	buf_printf(&b, "%s/%s", dir, file);
	s = arena_strdup(a, b.data);
	buf_free(&b);
	return s;
}

/* Creates every missing directory above the file path (mkdir -p of its dir). */
static bool
make_parents(const char *path)
{
	struct buf p = {0};
	char *s;
	bool ok = true;

	buf_puts(&p, path);
	for (s = p.data + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p.data, 0777) != 0 && errno != EEXIST) {
			warn("mkdir %s:", p.data);
			ok = false;
			break;
		}
		*s = '/';
	}
	buf_free(&p);
	return ok;
}

static bool
write_all(const char *root, const struct out_files *f)
{
	struct buf full = {0};
	const char *last_dir = NULL;
	size_t last_len = 0, i;

	for (i = 0; i < f->len; i++) {
		const char *slash = strrchr(f->items[i].path, '/');
		size_t dlen = slash ? (size_t)(slash - f->items[i].path) : 0;

		/* runs come in order, so most files share the previous file's dir */
		if (dlen && !(last_dir && last_len == dlen && strncmp(last_dir, f->items[i].path, dlen) == 0)) {
			last_dir = f->items[i].path;
			last_len = dlen;
			full.len = 0;
			buf_printf(&full, "%s/%s", root, f->items[i].path);
			if (!make_parents(full.data))
				return false;
		}
		full.len = 0;
		buf_printf(&full, "%s/%s", root, f->items[i].path);
		if (!write_file_atomic(full.data, f->items[i].data, f->items[i].len)) {
			buf_free(&full);
			return false;
		}
	}
	buf_free(&full);
	return true;
}

/* An absolute version of path (which need not exist). */
static const char *
absolute(struct arena *a, const char *cwd, const char *path)
{
	return path[0] == '/' ? path : join(a, cwd, path);
}

static int
gen_usage(const char *fmt, const char *arg)
{
	fputs("kunai: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: kunai gen --system-config FILE --test-scenario FILE [--tests-dir DIR]\n"
	      "                 [--hook-dir DIR] [-o DIR | --output-dir DIR] [--set KEY=VALUE]...\n",
	      stderr);
	return 2;
}

/* Parses gen/dry-run flags (CloudAI's spellings, old and new). Returns 0, or
 * the exit status of a usage error. */
static int
parse_opts(struct arena *a, int argc, char **argv, struct gen_opts *o)
{
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
		if (!v) {
			if (i + 1 >= argc)
				return gen_usage("option %s needs a value", f);
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
		else if (strcmp(name, "--set") == 0) {
			const char *e = strchr(v, '=');
			if (!e || e == v)
				return gen_usage("--set needs KEY=VALUE, not '%s'", v);
			o->sets = arena_grow(a, o->sets, o->n_sets, o->n_sets + 1, sizeof(*o->sets));
			o->sets[o->n_sets].key = arena_strndup(a, v, (size_t)(e - v));
			o->sets[o->n_sets].value = e + 1;
			o->n_sets++;
		} else if (strcmp(name, "--mode") == 0) {
			if (strcmp(v, "dry-run") != 0 && strcmp(v, "gen") != 0)
				return gen_usage("--mode %s is not supported here (use dry-run)", v);
		} else
			return gen_usage("unknown option '%s'", f);
	}
	if (!o->m.system_path)
		return gen_usage("%s", "missing --system-config");
	if (!o->m.scenario_path)
		return gen_usage("%s", "missing --test-scenario");
	o->m.overrides = o->sets;
	o->m.n_overrides = o->n_sets;
	return 0;
}

/* The canonical argument list that regenerates the same build dir. */
static size_t
regen_args(struct arena *a, const struct gen_opts *o, const char *out_dir, const char ***argv)
{
	const char **v = arena_alloc(a, (12 + 2 * o->n_sets) * sizeof(*v));
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
	if (o->cache_without_check)
		v[n++] = "--enable-cache-without-check";
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

/* Builds every file of the build dir in memory. */
static bool
render(struct arena *a, const struct campaign *c, const struct runlist *rl, struct out_files *files)
{
	const struct scenario *sc = c->scenario;
	const char *script = ninja_script_name(c->system->scheduler);
	struct buf b = {0};
	size_t i, j;
	bool ok = true;

	for (i = 0; ok && i < rl->len; i++) {
		const struct run *r = &rl->items[i];
		struct runlist pre = {0}, post = {0};
		struct hooks h = {&pre, &post};

		if (sc->pre_test && !expand_hook(a, c, sc->pre_test, true, r, &pre))
			ok = false;
		if (sc->post_test && !expand_hook(a, c, sc->post_test, false, r, &post))
			ok = false;
		if (!ok)
			break;
		if (c->system->scheduler == SCHED_SLURM)
			ok = script_slurm(a, r, &h, &b);
		else
			ok = script_standalone(a, r, &h, &b);
		add_file(a, files, join(a, r->dir, script), &b);
		script_env(r, &b);
		add_file(a, files, join(a, r->dir, "env_vars.sh"), &b);
		for (j = 0; j < pre.len + post.len; j++) {
			const struct run *hr = j < pre.len ? &pre.items[j] : &post.items[j - pre.len];
			script_env(hr, &b);
			add_file(a, files, join(a, hr->dir, "env_vars.sh"), &b);
		}
	}
	buf_free(&b);
	return ok;
}

static int
generate(int argc, char **argv, bool dry_run)
{
	struct arena a = {0};
	struct gen_opts o = {0};
	struct campaign *c;
	struct runlist rl = {0};
	struct out_files files = {0};
	struct buf b = {0}, dd = {0};
	char cwd[PATH_MAX], exe[PATH_MAX];
	const char *out_dir, **rargv;
	size_t rargc;
	ssize_t n;
	int rc;

	if ((rc = parse_opts(&a, argc, argv, &o)) != 0)
		goto done;
	rc = 1;
	if (!getcwd(cwd, sizeof(cwd))) {
		warn("getcwd:");
		goto done;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		warn("readlink /proc/self/exe:");
		goto done;
	}
	exe[n] = '\0';
	c = model_load(&a, &o.m);
	if (!c || !ninja_check_ids(c->scenario) || !expand_campaign(&a, c, &rl))
		goto done;
	out_dir = o.out_dir ? o.out_dir : join(&a, c->system->output_path, c->scenario->name);
	if (!render(&a, c, &rl, &files))
		goto done;
	ninja_write_build(c, &rl, &b);
	add_file(&a, &files, "build.ninja", &b);
	rargc = regen_args(&a, &o, out_dir, &rargv);
	ninja_write_local(c, exe, join(&a, absolute(&a, cwd, kunai_datadir(&dd)), "rules"), cwd, rargv,
	                  rargc, &b);
	add_file(&a, &files, "local.ninja", &b);
	if (!json_campaign(c, &rl, &b))
		goto done;
	add_file(&a, &files, "kunai.json", &b);
	if (!make_parents(join(&a, out_dir, "build.ninja")) || !write_all(out_dir, &files))
		goto done;
	printf("kunai: %zu runs of scenario '%s' in %s\n", rl.len, c->scenario->name, out_dir);
	rc = 0;
	if (dry_run) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execlp("ninja", "ninja", "-C", out_dir, "scripts", (char *)NULL);
			warn("exec ninja:");
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			warn("ninja scripts failed in %s", out_dir);
			rc = 1;
		}
	}
done:
	buf_free(&b);
	buf_free(&dd);
	arena_free(&a);
	return rc;
}

int
cmd_gen(int argc, char **argv)
{
	return generate(argc, argv, false);
}

int
cmd_dry_run(int argc, char **argv)
{
	return generate(argc, argv, true);
}
