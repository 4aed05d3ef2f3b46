/* again.h: kunai run's confirmation round (again.c). */
#ifndef KUNAI_AGAIN_H
#define KUNAI_AGAIN_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct plan;

/* A flagged run and the peer it is measured again beside. */
struct again_pair {
	size_t run, peer_run;       /* indices in plan.runs */
	const char *job_id;         /* the flagged run's job */
	const char *node, *peer;    /* where each runs again */
	const char *dir, *peer_dir; /* the copies, relative to the build dir */
};

struct again_round {
	struct again_pair *v;
	size_t n;
};

/* From root/report/summary.json: the single-node runs of a Slurm campaign
 * that their peers flagged and that were not measured again for their
 * job, each paired with a healthy peer; their copies and root/again.ninja.
 * Returns the number of pairs (0: nothing to measure again), -1 after
 * reporting; pair K (from 1) is again.ninja's target again-K. */
int again_prepare(struct arena *a, const char *root, const struct plan *p, struct again_round *rd);
/* After `ninja -f again.ninja`: grades each pair and writes the flagged
 * run's again.json. Returns false after reporting a write error. */
bool again_record(struct arena *a, const char *root, const struct plan *p, const struct again_round *rd);

#endif
