/* progress.c: what `kunai run` shows while ninja runs: done/total, passed,
 * failed, running and pending on the scheduler, elapsed time. ninja's
 * output comes through a pipe (so ninja prints each edge's status when it
 * ends, "[done/total running] RUN dir/kunai.stamp", with FAILED: after a
 * failed one); every other line of it is passed on as it is. On a terminal
 * the counts are one line, redrawn; otherwise each finished run is a line.
 * Pending and running come from the job.json of the runs under way, read
 * at most every few seconds. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "progress.h"
#include "gen/base/record.h"
#include "gen/base/util.h"

enum { LIVE_SCAN_MAX = 4096, SCAN_EVERY_S = 10 };

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

/* The runs of the build dir that have a job.json written since kunai run
 * began and no outcome yet: pending (queued) or running. */
static void
scan_live(struct progress *p)
{
	struct buf path = {0}, why = {0};
	struct arena a = {0};
	size_t i;

	p->pending = p->live = 0;
	for (i = 0; i < p->n_dirs && i < LIVE_SCAN_MAX; i++) {
		struct job_record j;
		struct stat st;
		path.len = 0;
		buf_printf(&path, "%s/%s/job.json", p->dir, p->dirs[i]);
		if (stat(path.data, &st) != 0 || st.st_mtim.tv_sec < p->wall0.tv_sec)
			continue;
		why.len = 0;
		if (record_job_read(&a, path.data, &j, &why) != 1 || j.outcome)
			continue;
		if (j.state && (!strcmp(j.state, "PENDING") || !strcmp(j.state, "CONFIGURING") ||
		                !strcmp(j.state, "SUBMITTED")))
			p->pending++;
		else
			p->live++;
	}
	p->scanned = p->n_dirs <= LIVE_SCAN_MAX;
	buf_free(&path);
	buf_free(&why);
	arena_free(&a);
}

static void
draw(struct progress *p)
{
	double e = now() - p->t0;
	long s = (long)e;

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
	printf(", %ld:%02ld:%02ld elapsed", s / 3600, s / 60 % 60, s % 60);
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
		printf("kunai: [%zu/%zu] %s %s\n", p->done, p->total, p->last, failed ? "did not pass" : "passed");
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
	if (strcmp(line, "ninja: build stopped: subcommand failed.") == 0 ||
	    strcmp(line, "ninja: build stopped: cannot make progress due to previous errors.") == 0)
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
	fflush(stdout);
}
