/* write/markdown.h: report/summary.md (write/markdown.c). */
#ifndef KUNAI_MARKDOWN_H
#define KUNAI_MARKDOWN_H

struct buf;
struct summary;

/* Appends s as summary.md: the campaign's status, the paths the runs
 * measured, the fleet verdict, then one table row per run, the worst
 * first. */
void markdown_summary(const struct summary *s, struct buf *out);

#endif
