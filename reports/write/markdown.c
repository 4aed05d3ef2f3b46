/* write/markdown.c: report/summary.md (see markdown.h), for a pull
 * request or a chat: the campaign's status first, then the verdict, then
 * the runs, the worst first (DESIGN 18). */
#include <stdlib.h>

#include "reports/results/results.h"
#include "reports/results/campaign.h"
#include "reports/results/format.h"
#include "reports/results/summary.h"
#include "reports/fleet/fleet.h"
#include "reports/write/markdown.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"

void
markdown_summary(const struct summary *s, struct buf *out)
{
	size_t *order = campaign_order(s), i;

	buf_puts(out, "# ");
	md_text(out, s->scenario);
	buf_puts(out, "\n\n**");
	campaign_line(s, out);
	buf_puts(out, "**.\n\n");
	summary_paths(s, out);
	buf_puts(out, ".\n\n");
	if (s->fleet)
		fleet_markdown(s->fleet, out);
	buf_puts(out, "| id | iteration | step | outcome | time | reason |\n");
	buf_puts(out, "| --- | ---: | ---: | --- | ---: | --- |\n");
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[order[i]];
		buf_puts(out, "| ");
		md_text(out, r->id);
		buf_printf(out, " | %d | ", r->iteration);
		if (r->step > 0)
			buf_printf(out, "%d", r->step);
		buf_printf(out, " | %s | ", outcome_name(r->outcome));
		if (r->duration_s >= 0)
			fmt_duration(out, r->duration_s, r->start_time, r->end_time);
		buf_puts(out, " | ");
		md_text(out, r->reason);
		buf_puts(out, " |\n");
	}
	free(order);
}
