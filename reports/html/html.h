/* html.h: the static HTML report and the CSV files. */
#ifndef KUNAI_HTML_H
#define KUNAI_HTML_H

#include <stdbool.h>

struct summary;

/* Writes root/report/index.html and one page per run in root/report/runs/
 * (plots linked where root/report/plots/ has them). Returns false after
 * reporting a write error. */
bool html_write(const char *root, const struct summary *s);
/* Writes root/report/csv/WORKLOAD[_SHAPE].csv (one row per run and node,
 * GPU, size or epoch; a column per metric) and csv/index.html. Returns
 * false after reporting. */
bool csv_write(const char *root, const struct summary *s);

#endif
