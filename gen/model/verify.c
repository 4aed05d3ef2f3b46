/* verify.c: kunai verify-configs, CloudAI's config checker done better:
 * every error is located, and the exit status says whether any file failed.
 *
 * Each *.toml under a directory (recursively, sorted) or each file given is
 * classified by its keys: 'scheduler' -> system; 'Tests' -> scenario;
 * 'test_template_name' -> test definition. Systems and tests are checked
 * alone; scenarios against the test definitions of --tests-dir, or else
 * against the test files found among the paths.
 *
 * Hooks follow CloudAI's layout: a hook directory holds hook scenarios and
 * their tests in test/. A scenario's hook directory is --hook-dir, else the
 * 'hook' directory beside the scenario's own directory (conf/hook for
 * conf/test_scenario/x.toml). A directory is a hook directory when it is
 * --hook-dir or is named 'hook': scenarios directly in it are hooks,
 * checked against its test/ (and the tests there are kept out of the pool
 * other scenarios use, since hook tests may share names with others). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "model_priv.h"
#include "gen/base/util.h"

enum kind {
	KIND_UNKNOWN,
	KIND_SYSTEM,
	KIND_TEST,
	KIND_SCENARIO,
};

struct vfile {
	const char *path;
	dev_t dev;
	ino_t ino;
	struct mfile *f;
	enum kind kind;
	bool hook; /* a scenario in a hook directory, or a test in its test/ */
	bool done;
};

struct verify {
	struct mctx c;
	const char *tests_dir, *hook_dir;
	struct pool found;   /* test files among the paths, outside hook dirs */
	struct pool tdir;    /* --tests-dir */
	bool tdir_loaded;
	int ok, failed;
};

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool
is_hook_dir(struct verify *v, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (v->hook_dir && same_file(dir, v->hook_dir))
		return true;
	return (n == 4 && strncmp(dir, "hook", 4) == 0) ||
	       (n > 4 && strncmp(dir + n - 5, "/hook", 5) == 0);
}

static void
status(struct verify *v, struct vfile *vf, bool ok, const char *what)
{
	m_flush(&v->c);
	printf("%s %s (%s)\n", ok ? "OK  " : "FAIL", vf->f->path, what);
	fflush(stdout);
	if (ok)
		v->ok++;
	else
		v->failed++;
	vf->done = true;
}

static enum kind
classify(struct verify *v, struct mfile *f)
{
	if (!f->root)
		return KIND_UNKNOWN;
	if (m_kv(f->root, "scheduler"))
		return KIND_SYSTEM;
	if (m_kv(f->root, "Tests"))
		return KIND_SCENARIO;
	if (m_kv(f->root, "test_template_name"))
		return KIND_TEST;
	merr(&v->c, f->root->pos, "cannot tell whether this is a system, test or scenario file "
	                          "(it has no 'scheduler', 'test_template_name' or 'Tests')");
	return KIND_UNKNOWN;
}

static void
check_system(struct verify *v, struct vfile *vf)
{
	bool ok = m_load_system(&v->c, vf->f->path, vf->f->root, false) != NULL;

	status(v, vf, ok, "system");
}

static void
check_test(struct verify *v, struct vfile *vf)
{
	int errors = v->c.errors;
	char *dir = path_dir(v->c.a, vf->f->path);

	vf->hook = strcmp(base_name(dir), "test") == 0 && is_hook_dir(v, path_dir(v->c.a, dir));
	m_load_test_file(&v->c, vf->f);
	/* failed ones too: scenarios naming them then say nothing more */
	if (!vf->hook)
		pool_add(&v->c, &v->found, vf->f);
	status(v, vf, v->c.errors == errors && vf->f->def_state > 0,
	       vf->hook ? "test of a hook" : "test");
}

static void
check_scenario(struct verify *v, struct vfile *vf)
{
	struct mctx *c = &v->c;
	const struct pool *tests = &v->found;
	char *dir = path_dir(c->a, vf->f->path);
	struct hookdir *hd;
	int errors = c->errors;
	bool ok;

	if (vf->hook) {
		c->hook_dir = dir;
		hd = hookdir_get(c, dir);
		tests = hd ? &hd->tests : tests;
	} else {
		c->hook_dir = v->hook_dir ? v->hook_dir : default_hook_dir(c->a, vf->f->path);
		if (v->tests_dir) {
			if (!v->tdir_loaded)
				pool_load_dir(c, &v->tdir, v->tests_dir, true);
			v->tdir_loaded = true;
			tests = &v->tdir;
		}
	}
	ok = m_load_scenario(c, vf->f, tests, vf->hook) != NULL && c->errors == errors;
	if (!ok && c->errors == errors)
		status(v, vf, ok, "scenario; a test or hook it uses failed");
	else
		status(v, vf, ok, vf->hook ? "hook scenario" : "scenario");
}

/* Adds path (a file, or every *.toml under a directory) to the list;
 * files are read later, so that their errors come with their status. */
static void
collect(struct verify *v, const char *path, struct vfile **files, size_t *n, size_t *cap)
{
	const char **paths = &path;
	struct stat st;
	size_t i, j, np = 1;

	if (stat(path, &st) != 0) {
		warn("%s:", path);
		v->failed++;
		return;
	}
	if (S_ISDIR(st.st_mode) && !list_toml(v->c.a, path, true, &paths, &np)) {
		v->failed++;
		return;
	}
	for (i = 0; i < np; i++) {
		if (stat(paths[i], &st) != 0)
			continue;
		for (j = 0; j < *n; j++)
			if ((*files)[j].dev == st.st_dev && (*files)[j].ino == st.st_ino)
				break;
		if (j < *n)
			continue; /* given twice */
		*files = arena_reserve(v->c.a, *files, *n, *n + 1, cap, sizeof(**files));
		(*files)[*n].path = paths[i];
		(*files)[*n].dev = st.st_dev;
		(*files)[*n].ino = st.st_ino;
		(*n)++;
	}
}

int
model_verify(struct arena *a, const char *const *paths, size_t n, const char *tests_dir,
             const char *hook_dir)
{
	struct verify v = {0};
	struct vfile *files = NULL, *vf;
	size_t nf = 0, cap = 0, i;
	int pass;

	v.c.a = a;
	v.tests_dir = tests_dir;
	v.hook_dir = hook_dir;
	for (i = 0; i < n; i++)
		collect(&v, paths[i], &files, &nf, &cap);
	/* systems and tests first, then hooks, then the scenarios that use them,
	 * so that each file's errors come right before its own status line */
	for (i = 0; i < nf; i++) {
		vf = &files[i];
		vf->f = mfile_read(&v.c, vf->path);
		vf->kind = classify(&v, vf->f);
		if (vf->kind == KIND_UNKNOWN)
			status(&v, vf, false, vf->f->root ? "unknown kind" : "not valid TOML");
		else if (vf->kind == KIND_SYSTEM)
			check_system(&v, vf);
		else if (vf->kind == KIND_TEST)
			check_test(&v, vf);
		else
			vf->hook = is_hook_dir(&v, path_dir(a, vf->f->path));
	}
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nf; i++)
			if (!files[i].done && files[i].hook == (pass == 0))
				check_scenario(&v, &files[i]);
	m_flush(&v.c);
	printf("%d file%s: %d ok, %d failed\n", v.ok + v.failed, v.ok + v.failed == 1 ? "" : "s",
	       v.ok, v.failed);
	fflush(stdout);
	return v.failed;
}

static int
verify_usage(const char *fmt, const char *arg)
{
	fputs("kunai: verify-configs: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: kunai verify-configs [--tests-dir DIR] [--hook-dir DIR] PATH...\n", stderr);
	return 2;
}

int
cmd_verify_configs(int argc, char **argv)
{
	const char *tests_dir = NULL, *hook_dir = NULL, **val;
	struct arena a = {0};
	int i, failed;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *arg = argv[i], *eq;
		size_t len;

		if (strcmp(arg, "--") == 0) {
			i++;
			break;
		}
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg) : strlen(arg);
		if (len == 11 && strncmp(arg, "--tests-dir", len) == 0)
			val = &tests_dir;
		else if (len == 10 && strncmp(arg, "--hook-dir", len) == 0)
			val = &hook_dir;
		else
			return verify_usage("unknown option '%s'", arg);
		if (eq)
			*val = eq + 1;
		else if (i + 1 < argc)
			*val = argv[++i];
		else
			return verify_usage("option '%s' needs a directory", arg);
		if (!**val)
			return verify_usage("option '%s' needs a directory", arg);
	}
	if (i == argc)
		return verify_usage("%s", "no file or directory to check");
	failed = model_verify(&a, (const char *const *)argv + i, (size_t)(argc - i), tests_dir,
	                      hook_dir);
	arena_free(&a);
	return failed ? 1 : 0;
}
