/* model.c: model_load, and the file plumbing the loaders share: reading
 * and caching TOML files, test definition pools, hook directories.
 * The schemas live in model_system.c, model_test.c and model_scenario.c. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_priv.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

/* The largest config file kunai reads (bytes), unless $KUNAI_MAX_CONFIG_BYTES
 * says otherwise: a hand-written campaign is kilobytes. */
#define MODEL_MAX_CONFIG_BYTES (64u << 20)

enum {
	/* deeper directory trees are loops (symlinks) or mistakes */
	MAX_DIR_DEPTH = 32,
};

bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool
same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

char *
path_dir(struct arena *a, const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n && path[n - 1] != '/')
		n--;
	if (!n)
		return arena_strdup(a, ".");
	while (n > 1 && path[n - 1] == '/')
		n--;
	return arena_strndup(a, path, n);
}

const char *
default_hook_dir(struct arena *a, const char *scenario_path)
{
	char *d = path_dir(a, scenario_path), *h;

	/* the parent of the scenario's directory, textually when possible */
	if (strcmp(d, ".") == 0)
		d = "..";
	else if (strchr(d, '/') && strcmp(d, "/") != 0)
		d = path_dir(a, d);
	else if (strcmp(d, "/") != 0)
		d = ".";
	h = path_join(a, d, "hook");
	if (is_dir(h))
		return h;
	/* CloudAI's default: conf/hook of the working directory */
	return is_dir("conf/hook") ? "conf/hook" : NULL;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct paths {
	const char **v;
	size_t len, cap;
};

static bool
walk(struct arena *a, const char *dir, bool rec, int depth, struct paths *out)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	size_t n;
	char *p;
	bool ok = true;

	if (!(d = opendir(dir))) {
		warn("open %s:", dir);
		return false;
	}
	while ((errno = 0, e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		p = path_join(a, dir, e->d_name);
		if (stat(p, &st) != 0)
			continue; /* a dangling link is no config file */
		if (S_ISDIR(st.st_mode)) {
			if (rec && depth < MAX_DIR_DEPTH && !walk(a, p, rec, depth + 1, out))
				ok = false;
			continue;
		}
		n = strlen(e->d_name);
		if (!S_ISREG(st.st_mode) || n < 5 || strcmp(e->d_name + n - 5, ".toml") != 0)
			continue;
		out->v = arena_reserve(a, out->v, out->len, out->len + 1, &out->cap, sizeof(*out->v));
		out->v[out->len++] = p;
	}
	if (errno) {
		warn("read %s:", dir);
		ok = false;
	}
	closedir(d);
	return ok;
}

bool
list_toml(struct arena *a, const char *dir, bool rec, const char ***out, size_t *n)
{
	struct paths ps = {0};
	bool ok = walk(a, dir, rec, 0, &ps);

	/* sorted whole paths: the same order on every file system */
	if (ps.len)
		qsort(ps.v, ps.len, sizeof(*ps.v), cmp_str);
	*out = ps.v;
	*n = ps.len;
	return ok;
}

/* The largest config file kunai reads: $KUNAI_MAX_CONFIG_BYTES, else
 * MODEL_MAX_CONFIG_BYTES. */
static size_t
model_max_config_bytes(void)
{
	return (size_t)env_number("KUNAI_MAX_CONFIG_BYTES", 1, 1LL << 40,
	                          MODEL_MAX_CONFIG_BYTES);
}

struct mfile *
mfile_read(struct mctx *c, const char *path)
{
	struct mfile *f;
	struct stat st;
	struct buf text = {0};
	struct toml_error err;
	bool have = stat(path, &st) == 0;
	size_t i;

	for (i = 0; i < c->n_files; i++) {
		f = c->files[i];
		if (strcmp(f->path, path) == 0 ||
		    (have && f->dev == st.st_dev && f->ino == st.st_ino && f->ino))
			return f;
	}
	f = arena_alloc(c->a, sizeof(*f));
	f->path = arena_strdup(c->a, path);
	if (have) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	c->files = arena_reserve(c->a, c->files, c->n_files, c->n_files + 1, &c->cap_files, sizeof(*c->files));
	c->files[c->n_files++] = f;
	if (c->inputs)
		strlist_add(c->a, c->inputs, f->path, (struct toml_pos){f->path, 1, 1});
	/* a device or a FIFO (--system-config /dev/zero) would be read forever */
	if (have && !S_ISREG(st.st_mode) && strcmp(path, "-") != 0) {
		warn("%s: not a regular file; a config file must be one", path);
		c->errors++;
		return f;
	}
	if (!read_file_max(path, &text, model_max_config_bytes(),
	                   "a config file ($KUNAI_MAX_CONFIG_BYTES)")) {
		c->errors++;
		buf_free(&text);
		return f;
	}
	f->root = toml_parse(c->a, f->path, text.data, text.len, &err);
	if (!f->root)
		merr(c, (struct toml_pos){f->path, err.line, err.col}, "%s", err.msg);
	buf_free(&text);
	return f;
}

static const char *
root_name(const struct mfile *f)
{
	const struct toml_keyval *kv = f->root ? m_kv(f->root, "name") : NULL;

	return kv && kv->value->type == TOML_STRING ? kv->value->u.str.s : NULL;
}

const char **
pool_names(struct mctx *c, const struct pool *p)
{
	const char **names = arena_alloc(c->a, (p->len + 1) * sizeof(*names));
	size_t i;

	for (i = 0; i < p->len; i++)
		names[i] = root_name(p->items[i]) ? root_name(p->items[i]) : "";
	return names;
}

struct mfile *
pool_find(const struct pool *p, const char *name)
{
	const char *n;
	size_t i;

	for (i = 0; i < p->len; i++)
		if ((n = root_name(p->items[i])) && strcmp(n, name) == 0)
			return p->items[i];
	return NULL;
}

void
pool_add(struct mctx *c, struct pool *p, struct mfile *f)
{
	const char *name = root_name(f);
	struct mfile *first;
	struct toml_pos fp;
	size_t i;

	for (i = 0; i < p->len; i++)
		if (p->items[i] == f)
			return;
	if (name && (first = pool_find(p, name))) {
		fp = m_kv(first->root, "name")->value->pos;
		merr(c, m_kv(f->root, "name")->value->pos,
		     "duplicate test name '%s' (first defined at %s:%d:%d)", m_shown(c, name),
		     fp.path, fp.line, fp.col);
		f->def_state = -1;
		return;
	}
	p->items = arena_reserve(c->a, p->items, p->len, p->len + 1, &p->cap, sizeof(*p->items));
	p->items[p->len++] = f;
}

bool
pool_load_dir(struct mctx *c, struct pool *p, const char *dir, bool required)
{
	const char **files;
	struct mfile *f;
	size_t i, n;
	bool ok;

	if (!is_dir(dir)) {
		if (!required)
			return true;
		warn("tests directory %s is not a directory", dir);
		c->errors++;
		p->n_broken++;
		return false;
	}
	ok = list_toml(c->a, dir, false, &files, &n);
	if (!ok) {
		c->errors++;
		p->n_broken++;
	}
	for (i = 0; i < n; i++) {
		f = mfile_read(c, files[i]);
		if (!f->root) {
			p->n_broken++;
			ok = false;
			continue;
		}
		size_t n0 = c->n_errs;
		int e0 = c->errors;
		if (!m_load_test_file(c, f))
			ok = false;
		if (c->lenient_tests && c->n_errs > n0) {
			/* held back until a scenario uses this definition */
			f->n_deferred = c->n_errs - n0;
			f->deferred = arena_alloc(c->a, f->n_deferred * sizeof(*f->deferred));
			memcpy(f->deferred, c->errs + n0, f->n_deferred * sizeof(*f->deferred));
			c->n_errs = n0;
			c->errors = e0;
		}
		/* failed ones too: scenarios naming them then say nothing more */
		pool_add(c, p, f);
	}
	return ok;
}

void
m_use_deferred(struct mctx *c, struct mfile *f)
{
	size_t i;

	for (i = 0; i < f->n_deferred; i++) {
		merr(c, f->deferred[i].pos, "%s", f->deferred[i].msg);
		free(f->deferred[i].msg);
	}
	f->n_deferred = 0;
}

void
m_warn_unused(struct mctx *c)
{
	const struct merror *e;
	struct mfile *f;
	size_t i, j;

	/* every file read, not the pools: a file left out of one (a duplicate
	 * name) has its errors held back too */
	for (i = 0; i < c->n_files; i++) {
		f = c->files[i];
		if (!f->n_deferred)
			continue;
		/* the first error in the file stands for the others */
		for (e = f->deferred, j = 1; j < f->n_deferred; j++)
			if (f->deferred[j].pos.line < e->pos.line ||
			    (f->deferred[j].pos.line == e->pos.line && f->deferred[j].pos.col < e->pos.col))
				e = &f->deferred[j];
		fprintf(stderr, "%s:%d:%d: warning: %s (the scenario does not use this test; skipped)\n",
		        e->pos.path, e->pos.line, e->pos.col, e->msg);
		for (j = 0; j < f->n_deferred; j++)
			free(f->deferred[j].msg);
		f->n_deferred = 0;
	}
}

struct hookdir *
hookdir_get(struct mctx *c, const char *path)
{
	struct hookdir *h;
	struct stat st;
	const char **files;
	size_t i;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	for (i = 0; i < c->n_hooks; i++)
		if (c->hooks[i]->dev == st.st_dev && c->hooks[i]->ino == st.st_ino)
			return c->hooks[i];
	h = arena_alloc(c->a, sizeof(*h));
	h->path = arena_strdup(c->a, path);
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	c->hooks = arena_reserve(c->a, c->hooks, c->n_hooks, c->n_hooks + 1, &c->cap_hooks, sizeof(*c->hooks));
	c->hooks[c->n_hooks++] = h;
	if (!list_toml(c->a, path, false, &files, &h->n_files))
		c->errors++;
	h->files = arena_alloc(c->a, (h->n_files + 1) * sizeof(*h->files));
	for (i = 0; i < h->n_files; i++)
		h->files[i] = mfile_read(c, files[i]);
	/* CloudAI's layout: a hook's tests are in <hook-dir>/test */
	pool_load_dir(c, &h->tests, path_join(c->a, path, "test"), false);
	return h;
}

static int
cmp_def(const void *a, const void *b)
{
	return strcmp((*(struct testdef *const *)a)->name, (*(struct testdef *const *)b)->name);
}

/* A standalone system's default max_jobs: as many jobs as the machine can
 * run at once, one per CPU, or one per GPU (gpus_per_node) when a run of
 * the scenario is one of kunai's GPU programs. */
static int
machine_jobs(const struct campaign *cp)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i;

	for (i = 0; cp->scenario && cp->system->gpus_per_node > 0 && i < cp->scenario->n_cases; i++)
		if (cp->scenario->cases[i].def && cp->scenario->cases[i].def->wl &&
		    cp->scenario->cases[i].def->wl->program)
			return cp->system->gpus_per_node;
	return cpus > 0 ? (int)cpus : 1;
}

struct campaign *
model_load(struct arena *a, const struct model_opts *o)
{
	struct mctx c = {0};
	struct campaign *cp = arena_alloc(a, sizeof(*cp));
	struct pool tests = {0};
	struct mfile *f;
	size_t i;

	c.a = a;
	c.inputs = &cp->inputs;
	c.lenient_tests = true;
	cp->overrides = o->overrides;
	cp->n_overrides = o->n_overrides;
	if (!o->system_path) {
		warn("no system configuration (--system-config)");
		return NULL;
	}
	/* presets live in the scenario and may set system keys too: read it
	 * first (only then, so that the inputs keep their usual order) */
	if (o->n_presets && o->scenario_path &&
	    !m_resolve_presets(&c, mfile_read(&c, o->scenario_path), o->presets, o->n_presets,
	                       o->overrides, o->n_overrides, cp)) {
		m_flush(&c);
		return NULL;
	}
	/* every path below reports and goes on, so one run shows every error */
	f = mfile_read(&c, o->system_path);
	m_apply_overrides(&c, f->root, cp->overrides, cp->n_overrides, true);
	if (f->root)
		cp->system = m_load_system(&c, f->path, f->root, true);
	/* checks against the system are skipped when it failed: no cascades */
	c.sys = cp->system;
	if (o->tests_dir)
		pool_load_dir(&c, &tests, o->tests_dir, true);
	cp->tests = arena_alloc(a, (tests.len + 1) * sizeof(*cp->tests));
	for (i = 0; i < tests.len; i++)
		if (tests.items[i]->def_state > 0)
			cp->tests[cp->n_tests++] = tests.items[i]->def;
	if (cp->n_tests)
		qsort(cp->tests, cp->n_tests, sizeof(*cp->tests), cmp_def);
	if (o->scenario_path) {
		f = mfile_read(&c, o->scenario_path);
		m_apply_overrides(&c, f->root, cp->overrides, cp->n_overrides, false);
		c.hook_dir = o->hook_dir ? o->hook_dir : default_hook_dir(a, o->scenario_path);
		if (f->root)
			cp->scenario = m_load_scenario(&c, f, &tests, false);
	}
	if (cp->system && cp->system->max_jobs == 0)
		cp->system->max_jobs = machine_jobs(cp);
	if (!c.n_errs && !c.errors)
		m_check_live(&c, cp);
	m_warn_unused(&c);
	m_flush(&c);
	return c.errors ? NULL : cp;
}
