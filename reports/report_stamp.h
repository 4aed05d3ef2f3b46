/* report_stamp.h: the mark of kunai report's last complete report
 * (report_stamp.c), for report.c. */
#ifndef KUNAI_REPORT_STAMP_H
#define KUNAI_REPORT_STAMP_H

#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

struct plan;

/* What a complete report concluded, as kunai report prints it: the lines
 * of summary_paths, count_line, summary_note (NULL: none) and the fleet
 * verdict, and whether --check fails (without --history). */
struct stamp_result {
	bool fail;
	char *paths, *counts, *note, *verdict;
	/* read back: the run dirs it covered, in kunai.json's order (in text) */
	char *text;
	const char **dirs;
	size_t n_dirs;
};

/* The files of a build dir's runs, stat'ed from the build dir's descriptor
 * and their parent's (kept open while the runs go on in it, as kunai.json
 * lists them: a campaign's 100,000 stats then walk two components each,
 * not the build dir's path every time). */
struct report_runs;
/* Opens root; NULL when it cannot. */
struct report_runs *report_runs_open(const char *root);
/* stat(2) of the run dir's file name ("." the dir) below root; -1 with
 * errno set (w NULL: EBADF). */
int report_runs_stat(struct report_runs *w, const char *dir, const char *name, struct stat *st);
/* Closes and frees w (NULL: nothing). */
void report_runs_close(struct report_runs *w);
/* Reads path's mtime. Returns false when it cannot be stat'ed. */
bool report_mtime(const char *path, struct timespec *t);
/* Is a before b? */
bool report_older(struct timespec a, struct timespec b);
/* The time (*t) and result (*res, report_stamp_free) of the last complete
 * report in root: false when there is none, its outputs are not all there
 * or newer, or it was made by a kunai that grades otherwise. */
bool report_stamp_read(const char *root, struct timespec *t, struct stamp_result *res);
void report_stamp_free(struct stamp_result *res);
/* Is every run's report.json (res's dirs: kunai.json's runs when it is
 * older than the stamp) as the last complete report (stamp_t) found it:
 * made before it and after kunai.json (plan_t), and not older than the
 * run's job.json and stdout.txt (a run without job.json: no file made or
 * removed in its dir since)? A stat of each, no file read. */
bool report_fresh(const char *root, const struct stamp_result *res, struct timespec plan_t, struct timespec stamp_t);
/* Marks a complete report of p's runs whose result is res: the stamp's
 * mtime is now,
 * once the clock (coarse on most filesystems) is past latest, the newest
 * report.json it covers, and when no report.json changed meanwhile (seen[i]:
 * run i's, as read; a runner shares the lock); else there is no stamp, and
 * the next report makes every output again. Returns false after reporting. */
bool report_stamp_write(const char *root, const struct plan *p, const struct stat *seen, struct timespec latest,
                        const struct stamp_result *res);

#endif
