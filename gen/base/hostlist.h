/* hostlist.h: Slurm hostlist expansion (hostlist.c). */
#ifndef KUNAI_HOSTLIST_H
#define KUNAI_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* Expands spec ("node-[001-003,7]", "a,b") into names, appending them to
 * *items (*len of them; grown in a). Returns false on malformed input or
 * more than 100,000 names, appending nothing. */
bool hostlist_expand(struct arena *a, const char *spec, const char ***items, size_t *len);

#endif
