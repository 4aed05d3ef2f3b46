/* results/campaign.c: the campaign's one status and the worst-first order of its
 * runs (DESIGN 18), so that every view says the same thing. */
#include <stdlib.h>

#include "reports/results/campaign.h"
#include "reports/results/results.h"
#include "gen/base/util.h"

static const char *const names[] = {"passed", "incomplete", "suspect", "failed"};

const char *
campaign_name(enum campaign_status c)
{
	return (unsigned)c < LEN(names) ? names[c] : "failed";
}

enum campaign_status
campaign_of_run(enum outcome o, bool ran_skipped)
{
	if (o == OUTCOME_SUSPECT)
		return CAMPAIGN_SUSPECT;
	if (outcome_is_failure(o))
		return CAMPAIGN_FAILED;
	if (o == OUTCOME_PASSED || (o == OUTCOME_SKIPPED && ran_skipped))
		return CAMPAIGN_PASSED;
	return CAMPAIGN_INCOMPLETE; /* running, not-run, skipped for another reason */
}

enum campaign_status
campaign_status(const struct summary *s)
{
	enum campaign_status c = s->n_runs ? CAMPAIGN_PASSED : CAMPAIGN_INCOMPLETE, r;
	size_t i;

	for (i = 0; i < s->n_runs; i++) {
		r = campaign_of_run(s->runs[i].outcome, s->runs[i].ran_skipped);
		if (r > c)
			c = r;
	}
	return s->n_drain ? CAMPAIGN_FAILED : c;
}

size_t *
campaign_order(const struct summary *s)
{
	size_t *idx = xcalloc(s->n_runs + 1, sizeof(*idx)), n = 0, i;
	int c;

	/* a counting pass per status keeps scenario order within each */
	for (c = CAMPAIGN_FAILED; c >= CAMPAIGN_PASSED; c--)
		for (i = 0; i < s->n_runs; i++)
			if ((int)campaign_of_run(s->runs[i].outcome, s->runs[i].ran_skipped) == c)
				idx[n++] = i;
	return idx;
}

void
campaign_line(const struct summary *s, struct buf *out)
{
	size_t i;
	bool first = true;

	buf_printf(out, "%s: %zu run%s", campaign_name(campaign_status(s)), s->n_runs, s->n_runs == 1 ? "" : "s");
	for (i = 0; i < OUTCOME_COUNT; i++) {
		if (!s->counts[i])
			continue;
		buf_printf(out, "%s%zu %s", first ? ": " : ", ", s->counts[i], outcome_name((enum outcome)i));
		first = false;
	}
}

const char *
campaign_colour(enum campaign_status c)
{
	switch (c) {
	case CAMPAIGN_PASSED:
		return "\033[1;32m";
	case CAMPAIGN_INCOMPLETE:
	case CAMPAIGN_SUSPECT:
		return "\033[1;33m";
	default:
		return "\033[1;31m";
	}
}
