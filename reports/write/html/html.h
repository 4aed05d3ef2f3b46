/* write/html/html.h: the static HTML report and the CSV files. */
#ifndef KUNAI_HTML_H
#define KUNAI_HTML_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct summary;

/* html/fleet.c: the styles of the fleet section. */
extern const char html_fleet_style[];
/* Appends the fleet verdict of s->fleet: the line, the multi-node runs
 * tied to nodes, the peers' notes (nothing when NULL). */
void html_fleet_verdict(struct buf *out, const struct summary *s);
/* Appends the nodes x tests and GPUs x metrics views of s->fleet
 * (nothing when NULL); stems[i] names run i's page. */
void html_fleet_views(struct buf *out, const struct summary *s, const char *const *stems);

/* Writes root/report/index.html and one page per run in root/report/runs/
 * (plots linked where root/report/plots/ has them). Returns false after
 * reporting a write error. */
bool html_write(const char *root, const struct summary *s);
struct csv;
struct run_report;
/* The CSV files being made: csv_add each run (its series included) as it
 * is read, then csv_finish. */
struct csv *csv_begin(void);
/* Spools the rows of s->runs[i], whose full report is r. */
void csv_add(struct csv *c, size_t i, const struct run_report *r);
/* Writes root/report/csv/WORKLOAD[_SHAPE].csv (one row per run and node,
 * GPU, size or epoch; a column per metric; the run's outcome from
 * s->runs) and csv/index.html, and frees c. Returns false after
 * reporting. */
bool csv_finish(struct csv *c, const char *root, const struct summary *s);
/* Frees c, writing nothing. */
void csv_free(struct csv *c);

#endif
