/* progress.h: `kunai run`'s view of ninja while it runs (progress.c). */
#ifndef KUNAI_PROGRESS_H
#define KUNAI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct buf;

struct progress {
	const char *dir;          /* the build dir */
	const char *const *dirs;  /* its run dirs (kunai.json), for pending/running */
	size_t n_dirs;
	bool tty;                 /* one redrawn line, else a line per run */
	bool shown, scanned, nothing, pending_plain;
	bool skip_next; /* the line after FAILED: is ninja's internal command line */
	size_t done, total, passed, failed, running, live, pending;
	size_t installs; /* install edges ended: ninja counts them in its total, we do not */
	double t0, last_scan;
	double left_s;            /* the estimate of the time left; < 0: none yet */
	struct timespec wall0;
	char *last; /* the run dir of the last status line */
	struct buf *names; /* the runs running now, for the line */
	size_t n_names;
};

void progress_init(struct progress *p, const char *dir, bool tty);
/* Sets the run dirs (kunai.json's) and, until ninja says, the total: those
 * without a stamp yet. */
void progress_dirs(struct progress *p, const char *const *dirs, size_t n);
/* One line of ninja's output (no newline). */
void progress_line(struct progress *p, const char *line);
/* Called about once a second: redraws the line on a terminal. */
void progress_tick(struct progress *p);
/* Ends the line and prints what is left. */
void progress_end(struct progress *p);

#endif
