/* install.c: the campaign's installables as build.ninja targets. Each one
 * gets a spec, installables/NAME.spec, which gen writes (its bytes change only
 * when the installable does), and an edge that makes installables/NAME.stamp
 * from it with `kunai installable install`. Run edges name the stamps
 * order-only: installing comes first, but a new stamp does not rerun a run
 * (what a run uses, an image file or a repository at a commit, is already
 * in its script). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "install.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

struct collect {
	struct arena *a;
	struct install_set *s;
	size_t cap, *slots, n_slots; /* open addressing on dest: index + 1 */
	size_t n_refs, cap_refs;
	size_t *set_slots, n_set_slots, cap_sets; /* open addressing on sets: k + 1 */
	const struct run *r;
	size_t run_first; /* this run's first ref */
	bool ok;
};

static uint32_t
fnv(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void
rehash(struct collect *c)
{
	size_t i, j, n = c->n_slots ? c->n_slots * 2 : 64;

	free(c->slots);
	c->slots = xcalloc(n, sizeof(*c->slots));
	c->n_slots = n;
	for (i = 0; i < c->s->len; i++) {
		for (j = fnv(c->s->items[i].dest) & (n - 1); c->slots[j]; j = (j + 1) & (n - 1))
			;
		c->slots[j] = i + 1;
	}
}

static bool
same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Its spec's name under installables/: the dest with bytes outside
 * [A-Za-z0-9._-] as '_', and a hash of the dest where that changed it. */
static const char *
spec_name(struct arena *a, const char *dest)
{
	struct buf b = {0};
	bool changed = dest[0] == '.';
	const char *p;
	char *n;

	for (p = dest; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		          *p == '.' || *p == '_' || *p == '-';
		buf_putc(&b, ok ? *p : '_');
		changed |= !ok;
	}
	if (changed)
		buf_printf(&b, "-%08x", (unsigned)fnv(dest));
	n = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	return n;
}

/* A dest must stay under the install dir, and spec lines hold one line. */
static bool
dest_ok(struct collect *c, const char *dest, const char *url)
{
	const char *p = dest;
	const struct testdef *d = c->r->def;

	if (strpbrk(dest, "\n\r") || (url && strpbrk(url, "\n\r"))) {
		error_at(d->path, d->pos.line, d->pos.col, "an installable of test '%s' has a line break in its "
		         "url or commit", d->name);
		return false;
	}
	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			error_at(d->path, d->pos.line, d->pos.col, "test '%s' would install to '%s', which is not "
			         "a path under install_path", d->name, dest);
			return false;
		}
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/* Adds it (dest made in the arena) once, and a reference from the run;
 * returns its index + 1, 0 on a conflict (reported). */
static size_t
add(struct collect *c, const struct inst *it)
{
	struct install_set *s = c->s;
	size_t j, k, idx;

	if (!c->n_slots || (s->len + 1) * 2 > c->n_slots)
		rehash(c);
	for (j = fnv(it->dest) & (c->n_slots - 1); c->slots[j]; j = (j + 1) & (c->n_slots - 1))
		if (strcmp(s->items[c->slots[j] - 1].dest, it->dest) == 0)
			break;
	if (c->slots[j]) {
		const struct inst *o = &s->items[c->slots[j] - 1];
		if (o->kind != it->kind || !same(o->url, it->url) || !same(o->commit, it->commit) ||
		    o->submodules != it->submodules) {
			const struct testdef *d = c->r->def;
			error_at(d->path, d->pos.line, d->pos.col, "test '%s' installs '%s' to '%s' in "
			         "install_path, where another test installs '%s'", d->name, it->url, it->dest,
			         o->url);
			c->ok = false;
			return 0;
		}
		idx = c->slots[j] - 1;
	} else {
		if (!dest_ok(c, it->dest, it->url) || (it->commit && !dest_ok(c, it->dest, it->commit))) {
			c->ok = false;
			return 0;
		}
		s->items = arena_reserve(c->a, s->items, s->len, s->len + 1, &c->cap, sizeof(*s->items));
		idx = s->len++;
		s->items[idx] = *it;
		/* a hook run's texts live only while it is looked at */
		s->items[idx].url = arena_strdup(c->a, it->url);
		if (it->commit)
			s->items[idx].commit = arena_strdup(c->a, it->commit);
		s->items[idx].name = spec_name(c->a, it->dest);
		c->slots[j] = idx + 1;
	}
	for (k = c->run_first; k < c->n_refs; k++)
		if (s->refs[k] == idx)
			return idx + 1;
	s->refs = xreserve(s->refs, c->n_refs + 1, &c->cap_refs, sizeof(*s->refs));
	s->refs[c->n_refs++] = idx;
	return idx + 1;
}

static void
add_image(struct collect *c, const char *url)
{
	struct buf b = {0};
	struct inst it = {.kind = INST_IMAGE, .url = url};

	/* local files are used where they are; without the cache, pyxis pulls */
	if (!url || !*url || url[0] == '/' || url[0] == '.' || c->r->c->system->scheduler != SCHED_SLURM ||
	    !c->r->c->system->cache_docker_images_locally)
		return;
	workload_image_cache_name(&b, url);
	it.dest = arena_strdup(c->a, b.data);
	add(c, &it);
	buf_free(&b);
}

static size_t
add_git(struct collect *c, const char *url, const char *commit, const char *path, bool submodules)
{
	struct buf b = {0};
	struct inst it = {.kind = INST_GIT, .url = url, .commit = commit, .submodules = submodules};
	size_t r;

	if (path)
		buf_puts(&b, path);
	else
		workload_repo_dir(&b, url, commit);
	it.dest = arena_strdup(c->a, b.data);
	r = add(c, &it);
	buf_free(&b);
	return r;
}

/* An installable's field: "cmd_args.KEY" is r's value of KEY (NULL when unset). */
static const char *
arg_ref(const struct run *r, const char *v)
{
	return v && strncmp(v, "cmd_args.", 9) == 0 ? workload_value(r, v + 9) : v;
}

static void
run_items(struct collect *c, const struct run *r)
{
	const struct workload *wl = r->def->wl;
	size_t i, git = 0;

	c->r = r;
	if (r->c->system->scheduler == SCHED_SLURM) {
		struct inst f = {.kind = INST_FILE, .url = "slurm-metadata.sh", .dest = "slurm-metadata.sh",
		                 .shipped = true};
		add(c, &f);
		if (workload_in_container(r))
			add_image(c, workload_value(r, "docker_image_url"));
	}
	for (i = 0; i < wl->n_installables; i++) {
		const struct installable *in = &wl->installables[i];
		struct inst it = {.kind = in->kind, .url = in->url, .commit = in->commit};
		struct buf b = {0};

		switch (in->kind) {
		case INST_IMAGE:
			add_image(c, arg_ref(r, in->url));
			break;
		case INST_GIT:
			/* a repository the test names (cmd_args.KEY) only when it names one */
			if (arg_ref(r, in->url))
				git = add_git(c, arg_ref(r, in->url), arg_ref(r, in->commit), in->path, false);
			break;
		case INST_HF_MODEL:
			/* not downloaded by kunai: the server fetches it into HF_HOME (the
			 * system's hf_home_path, mounted) when it first starts (README) */
			break;
		case INST_VENV:
			if (in->path)
				buf_puts(&b, in->path);
			else {
				workload_repo_dir(&b, in->url, in->commit);
				buf_puts(&b, "-venv");
			}
			it.dest = arena_strdup(c->a, b.data);
			if (strstr(in->url, "://")) {
				it.needs = git;
			} else {
				/* pip requirements, one a line: one spec line, words apart */
				char *u = arena_strdup(c->a, in->url), *q;
				for (q = u; *q; q++)
					if (*q == '\n')
						*q = ' ';
				it.url = u;
			}
			add(c, &it);
			break;
		case INST_USER_FILE:
			/* not kunai's to ship: its install edge checks that the user put it there */
			it.kind = INST_FILE;
			it.url = in->path;
			/* fall through */
		case INST_FILE:
			it.dest = in->path ? in->path : in->url;
			add(c, &it);
			break;
		}
		buf_free(&b);
	}
	for (i = 0; i < r->def->n_git_repos; i++) {
		const struct git_repo *g = &r->def->git_repos[i];
		/* installed_path: the user's own checkout, used as it is */
		if (!g->installed_path)
			add_git(c, g->url, g->commit, NULL, g->init_submodules);
	}
}

static uint32_t
set_hash(const size_t *v, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (uint32_t)v[i]) * 16777619u;
	return h;
}

static void
set_rehash(struct collect *c)
{
	struct install_set *s = c->s;
	size_t k, j, n = c->n_set_slots ? c->n_set_slots * 2 : 64;

	free(c->set_slots);
	c->set_slots = xcalloc(n, sizeof(*c->set_slots));
	c->n_set_slots = n;
	for (k = 0; k < s->n_sets; k++) {
		size_t o = s->set_off[k], m = s->set_off[k + 1] - o;
		for (j = set_hash(s->refs + o, m) & (n - 1); c->set_slots[j]; j = (j + 1) & (n - 1))
			;
		c->set_slots[j] = k + 1;
	}
}

/* The run's refs (from run_first) as a set: an earlier equal one (its refs
 * dropped again), else a new one. Returns its index + 1, 0 for none. */
static size_t
close_set(struct collect *c)
{
	struct install_set *s = c->s;
	size_t m = c->n_refs - c->run_first, j, k;
	const size_t *v;

	if (!m)
		return 0; /* s->refs may still be NULL */
	v = s->refs + c->run_first;
	if (!c->n_set_slots || (s->n_sets + 1) * 2 > c->n_set_slots)
		set_rehash(c);
	for (j = set_hash(v, m) & (c->n_set_slots - 1); (k = c->set_slots[j]); j = (j + 1) & (c->n_set_slots - 1)) {
		size_t o = s->set_off[k - 1];
		if (s->set_off[k] - o == m && memcmp(s->refs + o, v, m * sizeof(*v)) == 0) {
			c->n_refs = c->run_first;
			return k;
		}
	}
	s->set_off = xreserve(s->set_off, s->n_sets + 2, &c->cap_sets, sizeof(*s->set_off));
	s->set_off[s->n_sets] = c->run_first;
	s->set_off[++s->n_sets] = c->n_refs;
	c->set_slots[j] = s->n_sets;
	return s->n_sets;
}

bool
install_collect(struct arena *a, const struct campaign *c, const struct runlist *rl, struct install_set *out)
{
	struct collect col = {.a = a, .s = out, .ok = true};
	const struct scenario *sc = c->scenario;
	bool ok = true;
	size_t i;

	out->run_set = xcalloc(rl->len + 1, sizeof(*out->run_set));
	for (i = 0; i < rl->len && col.ok && ok; i++) {
		const struct run *r = &rl->items[i];
		col.run_first = col.n_refs;
		run_items(&col, r);
		/* its hooks run in its script: what they need, it needs */
		if (sc->pre_test || sc->post_test) {
			struct arena tmp = {0};
			struct runlist h = {0};
			size_t k;
			if (sc->pre_test)
				ok &= expand_hook(&tmp, c, sc->pre_test, true, r, &h);
			for (k = 0; ok && k < h.len; k++)
				run_items(&col, &h.items[k]);
			h = (struct runlist){0};
			if (ok && sc->post_test)
				ok &= expand_hook(&tmp, c, sc->post_test, false, r, &h);
			for (k = 0; ok && k < h.len; k++)
				run_items(&col, &h.items[k]);
			arena_free(&tmp);
		}
		if (col.ok && ok)
			out->run_set[i] = close_set(&col);
	}
	free(col.slots);
	free(col.set_slots);
	return col.ok && ok;
}

static const char *const kinds[] = {"image", "git", "venv", "file"};

void
install_spec(const struct campaign *c, const struct install_set *s, const struct inst *it, struct buf *out)
{
	const struct system *sys = c->system;
	const char *ip = sys->install_path;

	buf_puts(out, "# kunai installable, written by kunai gen; `kunai installable` reads it.\n");
	buf_printf(out, "kind %s\n", kinds[it->kind]);
	buf_printf(out, "url %s\n", it->url);
	if (it->commit)
		buf_printf(out, "commit %s\n", it->commit);
	if (it->submodules)
		buf_puts(out, "submodules 1\n");
	if (it->needs)
		buf_printf(out, "repo %s\n", s->items[it->needs - 1].dest);
	/* relative to the build dir, where ninja runs it, as in the scripts */
	while (ip && ip[0] == '.' && ip[1] == '/')
		ip += 2;
	buf_printf(out, "install_dir %s\n", ip && *ip ? ip : ".");
	buf_printf(out, "dest %s\n", it->dest);
	/* CloudAI imports an image on a compute node, through srun */
	if (it->kind == INST_IMAGE && sys->scheduler == SCHED_SLURM) {
		buf_puts(out, "srun srun --export=ALL");
		if (sys->default_partition) {
			buf_puts(out, " --partition=");
			sh_quote(out, sys->default_partition);
		}
		if (sys->account) {
			buf_puts(out, " --account=");
			sh_quote(out, sys->account);
		}
		if (sys->supports_gpu_directives == 1)
			buf_puts(out, " --gres=gpu:1");
		/* word by word, quoted as the job scripts' srun has them: this
		 * line is run by a shell */
		if (sys->extra_srun_args && !strpbrk(sys->extra_srun_args, "\n\r")) {
			buf_putc(out, ' ');
			if (!sh_words(out, sys->extra_srun_args))
				out->len--;
		}
		buf_puts(out, " -N1 --ntasks=1 --job-name=kunai_install_image\n");
	}
}

void
install_run_deps(const struct install_set *s, size_t i, struct buf *out)
{
	/* a short name, even for a set of one: every run edge carries it */
	if (s && s->order_runs && s->run_set[i])
		buf_printf(out, " installables/set-%zu", s->run_set[i]);
}

void
install_edges(const struct install_set *s, struct buf *out)
{
	size_t i;

	buf_puts(out, "\n# what the runs need in install_path, each once: `ninja install`\n");
	for (i = 0; i < s->len; i++) {
		const struct inst *it = &s->items[i];
		buf_puts(out, "build installables/");
		ninja_escape_path(out, it->name);
		buf_puts(out, ".stamp: install installables/");
		ninja_escape_path(out, it->name);
		buf_puts(out, ".spec");
		/* a new kunai's copy installs again */
		if (it->shipped) {
			buf_puts(out, " | $rulesdir/");
			ninja_escape_path(out, it->url);
		}
		if (it->needs) {
			buf_puts(out, " || installables/");
			ninja_escape_path(out, s->items[it->needs - 1].name);
			buf_puts(out, ".stamp");
		}
		/* a copy is no download: outside the downloads pool */
		buf_puts(out, it->kind == INST_FILE ? "\n  pool =\n" : "\n");
	}
	/* the sets that runs need, each named once: a run edge names one node */
	for (i = 0; s->order_runs && i < s->n_sets; i++) {
		size_t k;
		buf_printf(out, "build installables/set-%zu: phony", i + 1);
		for (k = s->set_off[i]; k < s->set_off[i + 1]; k++) {
			buf_puts(out, " installables/");
			ninja_escape_path(out, s->items[s->refs[k]].name);
			buf_puts(out, ".stamp");
		}
		buf_putc(out, '\n');
	}
	buf_puts(out, "build install: phony");
	for (i = 0; i < s->len; i++) {
		buf_puts(out, " installables/");
		ninja_escape_path(out, s->items[i].name);
		buf_puts(out, ".stamp");
	}
	/* (phony when empty: no rule needed from a --rules-dir of an older kunai) */
	buf_puts(out, s->len ? "\nbuild uninstall: uninstall" : "\nbuild uninstall: phony\n");
	for (i = 0; i < s->len; i++) {
		buf_puts(out, " installables/");
		ninja_escape_path(out, s->items[i].name);
		buf_puts(out, ".spec");
	}
	if (s->len)
		buf_puts(out, " | always\n");
}
