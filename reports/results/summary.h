/* results/summary.h: what the graded runs of a campaign say together
 * (results/summary.c): which not-run runs can no longer start, whether
 * every run passed, and what a pass means here. */
#ifndef KUNAI_SUMMARY_H
#define KUNAI_SUMMARY_H

#include <stdbool.h>

struct arena;
struct buf;
struct plan;
struct run_report;
struct summary;

/* Marks each not-run run whose start condition can no longer hold (its
 * previous iteration or a start_post_comp/start_post_init target did not
 * pass) as skipped, with the reason. reports[i] belongs to p->runs[i]. */
void report_mark_skipped(struct arena *a, const struct plan *p, struct run_report *reports);

/* Did every run pass (or run and skip, as health does without GPUs)? */
bool summary_all_ok(const struct summary *s);
/* Appends whether the runs measured GPUs or the CPU path. */
void summary_paths(const struct summary *s, struct buf *out);
/* Appends what a pass means in s when it is less than it sounds: "CPU
 * path: no GPU was used", "passed = ran and gave correct results; no
 * performance reference was checked" (or how many passed runs had none),
 * joined by "; "; nothing when every pass was on GPUs against a reference.
 * Reads the runs' values (references checked), so call it on the graded
 * reports, before their series are dropped. */
void summary_note(const struct summary *s, struct buf *out);

#endif
