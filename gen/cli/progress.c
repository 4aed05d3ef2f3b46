/* progress.c: what `kunai run` shows while ninja runs: done/total, passed,
 * failed, running and pending on the scheduler, elapsed time, the time left
 * and the runs running. ninja's output comes through a pipe (so ninja
 * prints each edge's status when it ends, "[done/total running] RUN
 * dir/kunai.stamp", with FAILED: and its internal command line after a
 * failed one, which are not shown); every other line of it is passed on as
 * it is. On a terminal the counts are one line, redrawn; otherwise each
 * finished run is a line. Pending and running come from the job.json of
 * the runs under way and their own start records (a job that started is
 * running at once), read at most every few seconds. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "gen/base/record.h"
#include "gen/base/util.h"

enum { LIVE_SCAN_MAX = 4096, SCAN_EVERY_S = 10, NAMES_SHOWN = 3 };

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void
progress_init(struct progress *p, const char *dir, bool tty)
{
	memset(p, 0, sizeof(*p));
	p->dir = dir;
	p->tty = tty;
	p->t0 = now();
	p->last_scan = -1e9;
	p->left_s = -1;
	clock_gettime(CLOCK_REALTIME, &p->wall0);
}

static void
clear(struct progress *p)
{
	if (p->tty && p->shown) {
		fputs("\r\033[K", stdout);
		p->shown = false;
	}
}

void
progress_dirs(struct progress *p, const char *const *dirs, size_t n)
{
	struct buf path = {0};
	size_t i;

	p->dirs = dirs;
	p->n_dirs = n;
	p->names = xcalloc(1, sizeof(*p->names));
	for (i = 0; i < n && i < LIVE_SCAN_MAX; i++) {
		path.len = 0;
		buf_printf(&path, "%s/%s/kunai.stamp", p->dir, dirs[i]);
		p->total += access(path.data, F_OK) != 0;
	}
	buf_free(&path);
}

/* When the job of record j started (epoch seconds), from its script's own
 * start record, kunai.start, when that names its job id; 0 when it has not
 * (as far as that record says). job.json says PENDING until the runner
 * hears otherwise from the scheduler, which it asks rarely (DESIGN 9); the
 * start record is there at once. */
static double
started(struct progress *p, const char *dir, const struct job_record *j, struct buf *path)
{
	char rec[256], *at, *st;
	size_t n_id;
	ssize_t n;
	int fd;

	if (!j->job_id)
		return 0;
	path->len = 0;
	buf_printf(path, "%s/%s/kunai.start", p->dir, dir);
	fd = file_open_regular(AT_FDCWD, path->data, O_NOFOLLOW);
	if (fd < 0)
		return 0;
	n = read(fd, rec, sizeof(rec) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	rec[n] = '\0';
	n_id = strlen(j->job_id);
	at = strstr(rec, "\njob=");
	if (!at || strncmp(at + 5, j->job_id, n_id) != 0 || (at[5 + n_id] != '\n' && at[5 + n_id]))
		return 0;
	st = strncmp(rec, "start=", 6) == 0 ? rec + 6 : NULL;
	return st ? strtod(st, NULL) : 0;
}

/* The runs of the build dir whose job.json has no outcome yet: pending
 * (queued) or running, whether this kunai run submitted them or reattached
 * to them; the names of the running ones; and the time left, from the
 * durations of the runs that ended since kunai run began. */
static void
scan_live(struct progress *p)
{
	struct buf path = {0}, why = {0};
	struct arena a = {0};
	struct timespec wall;
	double sum_done = 0, sum_running = 0, t0, mean;
	size_t i, n_done = 0, waiting;

	clock_gettime(CLOCK_REALTIME, &wall);
	p->pending = p->live = 0;
	if (p->names)
		p->names->len = 0;
	p->n_names = 0;
	for (i = 0; i < p->n_dirs && i < LIVE_SCAN_MAX; i++) {
		struct job_record j;
		struct stat st;
		path.len = 0;
		buf_printf(&path, "%s/%s/job.json", p->dir, p->dirs[i]);
		why.len = 0;
		if (stat(path.data, &st) != 0 || record_job_read(&a, path.data, &j, &why) != 1)
			continue;
		if (j.outcome) {
			/* a run that ended in this invocation: its own duration */
			if (st.st_mtim.tv_sec >= p->wall0.tv_sec && (t0 = started(p, p->dirs[i], &j, &path)) > 0) {
				path.len = 0;
				buf_printf(&path, "%s/%s/kunai.exit", p->dir, p->dirs[i]);
				if (stat(path.data, &st) == 0 && (double)st.st_mtim.tv_sec >= t0) {
					sum_done += (double)st.st_mtim.tv_sec - t0;
					n_done++;
				}
			}
			continue;
		}
		t0 = started(p, p->dirs[i], &j, &path);
		if (j.state && (!strcmp(j.state, "PENDING") || !strcmp(j.state, "CONFIGURING") ||
		                !strcmp(j.state, "SUBMITTED")) && t0 <= 0) {
			p->pending++;
			continue;
		}
		p->live++;
		if (t0 > 0)
			sum_running += (double)wall.tv_sec - t0;
		if (p->names && p->n_names++ < NAMES_SHOWN)
			buf_printf(p->names, "%s%s", p->n_names > 1 ? ", " : "", p->dirs[i]);
	}
	if (p->names && p->n_names > NAMES_SHOWN)
		buf_printf(p->names, " and %zu more", p->n_names - NAMES_SHOWN);
	p->scanned = p->n_dirs <= LIVE_SCAN_MAX;
	/* what is left of the running runs at the mean duration, then the
	 * runs still waiting, as many at a time as run now */
	p->left_s = -1;
	if (n_done) {
		mean = sum_done / (double)n_done;
		waiting = p->total > p->done + p->live ? p->total - p->done - p->live : 0;
		p->left_s = mean * (double)p->live - sum_running;
		if (p->left_s < 0)
			p->left_s = 0;
		p->left_s = (p->left_s + mean * (double)waiting) / (double)(p->live ? p->live : 1);
	}
	buf_free(&path);
	buf_free(&why);
	arena_free(&a);
}

/* "1:02:03" or "2:03" */
static void
clock_text(char *out, size_t n, long s)
{
	if (s >= 3600)
		snprintf(out, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(out, n, "%ld:%02ld", s / 60, s % 60);
}

static void
draw(struct progress *p)
{
	double e = now() - p->t0;
	char t[32];

	if (!p->tty)
		return;
	/* job.json of every run: each second for a small campaign */
	if (e - p->last_scan >= (p->n_dirs <= 1000 ? 1 : SCAN_EVERY_S)) {
		scan_live(p);
		p->last_scan = e;
	}
	clear(p);
	printf("kunai: %zu/%zu done, %zu passed, %zu failed, %zu running", p->done, p->total, p->passed, p->failed,
	       p->scanned ? p->live : p->running);
	if (p->scanned)
		printf(", %zu pending", p->pending);
	clock_text(t, sizeof(t), (long)e);
	printf(", %s elapsed", t);
	/* from the durations of the runs that finished (none, once the runs
	 * take longer than those did) */
	if (p->scanned && p->left_s >= 1 && p->total > p->done) {
		clock_text(t, sizeof(t), (long)(p->left_s + 0.5));
		printf(", about %s left", t);
	}
	if (p->scanned && p->names && p->names->len)
		printf(" (running: %s)", p->names->data);
	fflush(stdout);
	p->shown = true;
}

/* A run edge that ended: "[done/total running] RUN dir/kunai.stamp". */
static bool
status_line(struct progress *p, const char *l)
{
	unsigned long f, t, r;
	int n = 0;
	const char *rest, *end;

	if (sscanf(l, "[%lu/%lu %lu]%n", &f, &t, &r, &n) != 3 || n == 0)
		return false;
	rest = l + n;
	if (strncmp(rest, " INSTALL ", 9) == 0)
		p->installs++;
	p->total = t > p->installs ? t - p->installs : 0;
	p->running = r;
	if (strncmp(rest, " RUN ", 5) != 0) /* START, REPORT, PLOT...: not a run's end */
		return true;
	rest += 5;
	end = strstr(rest, "/kunai.stamp");
	p->done++;
	p->passed++;
	p->last = xrealloc(p->last, (size_t)(end ? end - rest : (long)strlen(rest)) + 1);
	memcpy(p->last, rest, (size_t)(end ? end - rest : (long)strlen(rest)));
	p->last[end ? end - rest : (long)strlen(rest)] = '\0';
	p->pending_plain = true;
	return true;
}

/* Whether kunai's program of the run in dir said it skipped (its JSON
 * result line, at the end of stdout.txt): it passed, and the report calls
 * it skipped (reports/grade/kunai.c). */
static bool
said_skipped(struct progress *p, const char *dir)
{
	struct buf path = {0};
	struct stat st;
	char tail[4096];
	ssize_t n = 0;
	int fd;

	buf_printf(&path, "%s/%s/stdout.txt", p->dir, dir);
	fd = file_open_regular(AT_FDCWD, path.data, O_NOFOLLOW);
	buf_free(&path);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0)
		n = pread(fd, tail, sizeof(tail) - 1, st.st_size > (off_t)sizeof(tail) - 1 ? st.st_size - (off_t)sizeof(tail) + 1 : 0);
	close(fd);
	if (n <= 0)
		return false;
	tail[n] = '\0';
	return strstr(tail, "\"result\":\"SKIPPED\"") != NULL;
}

/* The line for the last finished run, once we know whether it failed. */
static void
flush_plain(struct progress *p, bool failed)
{
	if (!p->pending_plain)
		return;
	p->pending_plain = false;
	if (failed) {
		p->passed--;
		p->failed++;
	}
	if (!p->tty)
		printf("kunai: [%zu/%zu] %s %s\n", p->done, p->total, p->last,
		       failed ? "did not pass" : said_skipped(p, p->last) ? "skipped (the program said SKIPPED)" : "passed");
}

void
progress_line(struct progress *p, const char *line)
{
	/* ninja's "FAILED: dir/kunai.stamp" and the internal command line
	 * after it say nothing the runner's own "kunai: dir: failed (why)"
	 * does not: the failure is counted, not shown twice */
	if (strncmp(line, "FAILED: ", 8) == 0) {
		flush_plain(p, true);
		p->skip_next = true;
		return;
	}
	if (p->skip_next) {
		p->skip_next = false;
		return;
	}
	flush_plain(p, false);
	/* kunai run says itself what stopped it, and how each run ended */
	if (strcmp(line, "ninja: build stopped: subcommand failed.") == 0 ||
	    strcmp(line, "ninja: build stopped: cannot make progress due to previous errors.") == 0 ||
	    strcmp(line, "ninja: build stopped: interrupted by user.") == 0)
		return;
	if (status_line(p, line)) {
		draw(p);
		return;
	}
	if (strcmp(line, "ninja: no work to do.") == 0) {
		p->nothing = true;
		return;
	}
	if (strncmp(line, "ninja: Entering directory", 25) == 0)
		return;
	clear(p);
	puts(line);
	draw(p);
}

void
progress_tick(struct progress *p)
{
	draw(p);
}

void
progress_end(struct progress *p)
{
	flush_plain(p, false);
	if (p->tty && p->shown) {
		p->last_scan = -1e9;
		draw(p);
		putchar('\n');
		p->shown = false;
	}
	free(p->last);
	p->last = NULL;
	if (p->names) {
		buf_free(p->names);
		free(p->names);
		p->names = NULL;
	}
	fflush(stdout);
}
