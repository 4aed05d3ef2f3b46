/* report.h: `kunai report` (report.c), the top of reports/: it grades
 * what changed (grade/), judges the fleet (fleet/), writes the summary and
 * its views (write/) and checks the history (history/). The types every
 * room shares are in results/results.h. */
#ifndef KUNAI_REPORT_H
#define KUNAI_REPORT_H

/* `kunai report`: the process exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_report(int argc, char **argv);

#endif
