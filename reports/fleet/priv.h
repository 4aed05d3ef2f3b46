/* fleet/priv.h: what fleet.c and stats.c share. Not for other files. */
#ifndef KUNAI_FLEET_PRIV_H
#define KUNAI_FLEET_PRIV_H

#include <stddef.h>

struct arena;
struct fleet;
struct plan;
struct summary;

/* The number of nodes in a node list (Slurm's hostlist syntax; 0 for NULL or ""). */
size_t fleet_count_nodes(const char *nodes);
/* Applies ROOT/RUN/again.json (s->root) to the flagged values of the
 * single-node runs it measured again: reproduced ones stay flagged, the
 * others are cleared, with a note; f->flagged_run follows. */
void fleet_again_apply(struct arena *a, const struct plan *p, const struct summary *s, struct fleet *f);
/* Every run's column: the index of its signature (test definition,
 * arguments, number of nodes), by first appearance; SIZE_MAX for runs of
 * no known test or that never started. Sets f->columns (labels). */
size_t *fleet_columns(struct arena *a, const struct plan *p, const struct summary *s, struct fleet *f);

#endif
