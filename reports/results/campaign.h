/* results/campaign.h: the one status of a campaign (DESIGN 18) that the terminal,
 * summary.json, JUnit, the HTML report and `kunai status` all show, and the
 * order they list runs in: the worst first. */
#ifndef KUNAI_CAMPAIGN_H
#define KUNAI_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/base/record.h"

struct buf;
struct summary;

/* From best to worst: a campaign's status is its worst run's. */
enum campaign_status {
	CAMPAIGN_PASSED,
	CAMPAIGN_INCOMPLETE, /* a run has not ended, not run, or was skipped with nothing failed */
	CAMPAIGN_SUSPECT,    /* nothing failed, but a value is far from its peers' */
	CAMPAIGN_FAILED,     /* a run failed (any failure class), or a node is to be drained */
};

/* Returns "passed", "incomplete", "suspect" or "failed". */
const char *campaign_name(enum campaign_status c);
/* What one run with outcome o says of its campaign (ran_skipped: the
 * program ran and reported SKIPPED, which passes). */
enum campaign_status campaign_of_run(enum outcome o, bool ran_skipped);
/* The campaign's status: its worst run's; failed when n_drain; incomplete
 * when it has no run. */
enum campaign_status campaign_status(const struct summary *s);
/* Indices of s's runs, the worst first, in scenario order within one
 * status (xmalloc'd; the caller frees). */
size_t *campaign_order(const struct summary *s);
/* Appends "failed: 3 runs: 2 failed, 1 skipped". */
void campaign_line(const struct summary *s, struct buf *out);
/* The ANSI colour of status c for a terminal ("\033[1;31m"...). */
const char *campaign_colour(enum campaign_status c);

#endif
