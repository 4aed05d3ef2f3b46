/* hostlist.h: Slurm hostlist expansion (hostlist.c). */
#ifndef KUNAI_HOSTLIST_H
#define KUNAI_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* Expands spec ("node-[001-003,7]", "a,b") as CloudAI does (a range pads
 * to the width of its end: the TOML's rule) into names, appending them to
 * *items (*len of them; grown in a). Returns false on malformed input or
 * more than 100,000 names, appending nothing. */
bool hostlist_expand(struct arena *a, const char *spec, const char ***items, size_t *len);
/* The node set of spec as Slurm writes node lists (SLURM_JOB_NODELIST,
 * sacct's NodeList, job.json: "gpu-[01-03,07]", "n[1-2]-ib"; a range pads
 * to the width of its start): its names once each, in order, joined by
 * commas, in a. NULL for NULL or ""; spec itself when it is one name or no
 * hostlist (it is then one node, never lost). */
const char *hostlist_join(struct arena *a, const char *spec);
/* The number of distinct nodes spec names (Slurm's rule, as
 * hostlist_join); 0 for NULL or "", 1 for what is no hostlist. */
size_t hostlist_count(const char *spec);
/* The node set of spec written short, as Slurm does: consecutive names
 * of one prefix, width and suffix as a range ("n1,n2,n3,n5" is
 * "n[1-3,5]"; hostlist_join reads it back), in a. NULL for NULL or "". */
const char *hostlist_compress(struct arena *a, const char *spec);

#endif
