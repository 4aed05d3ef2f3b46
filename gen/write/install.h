/* install.h: what a campaign's runs need installed (container images, git
 * repositories, python environments, kunai's helper files), each once, as
 * build.ninja targets that the run edges wait for. */
#ifndef KUNAI_INSTALL_H
#define KUNAI_INSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/workloads/workload.h"

struct arena;
struct buf;
struct campaign;
struct runlist;

/* One installable, identified by where it goes under the install dir. */
struct inst {
	enum inst_kind kind;
	const char *url;    /* image or repository URL; file: its name in the rules dir */
	const char *commit; /* git, venv */
	const char *dest;   /* relative to the install dir */
	const char *name;   /* its spec and stamp under installables/ of the build dir */
	bool submodules;    /* git: init_submodules */
	bool shipped;       /* file: kunai's own, in its rules dir */
	size_t needs;       /* venv: its repository's entry + 1; 0: none */
};

struct install_set {
	struct inst *items;
	size_t len;
	/* the distinct sets of items that runs need, one after the other: set
	 * k is refs[set_off[k]] .. refs[set_off[k + 1] - 1]; run i needs set
	 * run_set[i] - 1 (0: none) */
	size_t *refs, *set_off, n_sets, *run_set;
	bool order_runs; /* false with --enable-cache-without-check */
};

/* Collects the installables of every run of rl, once each (first use
 * first). Returns false after reporting two that claim one place. */
bool install_collect(struct arena *a, const struct campaign *c, const struct runlist *rl,
                     struct install_set *out);
/* Appends the spec file of it (what `kunai installable` reads). */
void install_spec(const struct campaign *c, const struct install_set *s, const struct inst *it,
                  struct buf *out);
/* Appends " NODE" for what run i needs: the stamp of its one installable,
 * or the phony that names the stamps of its set; nothing for none. */
void install_run_deps(const struct install_set *s, size_t i, struct buf *out);
/* Appends the install edges and the install and uninstall targets. */
void install_edges(const struct install_set *s, struct buf *out);

#endif
