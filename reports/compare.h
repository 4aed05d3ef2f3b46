/* compare.h: results against earlier results. */
#ifndef KUNAI_COMPARE_H
#define KUNAI_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct buf;
struct summary;

/* `kunai compare [--tolerance PCT] OLD NEW`: 0, 1 (a value regressed, or
 * bad input), 2 (usage). */
int cmd_compare(int argc, char **argv);
/* Reads the results at path: a build dir (its report/summary.json) or a
 * summary.json. Returns false after reporting. */
bool results_open(struct arena *a, const char *path, struct summary *s);
/* Appends the history table of cur against the results in dirs (default
 * tolerance def, a fraction) as Markdown; returns how many values fall
 * outside their history. */
size_t history_check(const struct summary *cur, const char *const *dirs, size_t n, double def, struct buf *out);

#endif
