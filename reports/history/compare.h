/* history/compare.h: results against earlier results. */
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
/* How many earlier campaigns make a history: fewer are "not checked". */
enum { HISTORY_NEEDED = 3 };

struct history_result {
	size_t campaigns;  /* earlier campaigns read */
	size_t unreadable; /* sources that could not be read (reported) */
	int needed;        /* HISTORY_NEEDED */
	bool checked;      /* enough campaigns were read to judge */
	size_t flagged;    /* values outside their history (when checked) */
};

/* Appends the history of cur against the results in dirs (default
 * tolerance def, a fraction) as Markdown to out, and what it found to
 * *res. With fewer than HISTORY_NEEDED readable campaigns nothing is
 * judged, and the page says so. */
void history_check(const struct summary *cur, const char *const *dirs, size_t n, double def, struct buf *out,
                   struct history_result *res);

#endif
