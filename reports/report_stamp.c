/* report_stamp.c: root/.kunai/report.stamp, the mark of kunai report's last
 * complete report. Its mtime is the time of that report, its text the
 * grading that made it (every workload's grader version and kunai's, which
 * the runs' files alone would not tell) and what it concluded (the lines
 * kunai report prints, whether --check fails): when nothing changed since,
 * kunai report answers from it, with a stat of each run's files and not one
 * report.json read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "reports/results/results.h"
#include "reports/grade/grade.h"
#include "reports/results/campaign.h"
#include "reports/report_stamp.h"
#include "gen/base/util.h"

static const char *const stamp_made[] = {"report/summary.json", "report/junit.xml", "report/summary.md",
                                         "report/csv/index.html"};

bool
report_mtime(const char *path, struct timespec *t)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return false;
	*t = st.st_mtim;
	return true;
}

bool
report_older(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* The stamp's first line: this kunai's grading. */
static void
stamp_head(struct buf *out)
{
	buf_printf(out, "kunai report: grading %016llx\n", grade_identity());
}

/* Appends s as one line (a newline in it, from a node's name, say, as a
 * space: the stamp is read line by line). */
static void
put_line(struct buf *out, const char *s)
{
	size_t i;

	for (i = 0; s && s[i]; i++)
		buf_push(out, s[i] == '\n' ? " " : &s[i], 1);
	buf_puts(out, "\n");
}

/* Whether a stamp's counts line starts with the campaign's status (a
 * stamp from before kunai had one is made again) */
static bool
has_status(const char *counts)
{
	const char *name;
	int c;

	for (c = CAMPAIGN_PASSED; c <= CAMPAIGN_FAILED; c++) {
		name = campaign_name((enum campaign_status)c);
		if (strncmp(counts, name, strlen(name)) == 0 && counts[strlen(name)] == ':')
			return true;
	}
	return false;
}

bool
report_stamp_read(const char *root, struct timespec *t, struct stamp_result *res)
{
	struct buf path = {0}, have = {0}, want = {0};
	struct timespec m;
	const char *line[6];
	char *p, *nl, *end;
	size_t i, n = 0, cap;
	unsigned long runs = 0;
	bool ok;

	memset(res, 0, sizeof(*res));
	buf_printf(&path, "%s/.kunai/report.stamp", root);
	stamp_head(&want);
	ok = report_mtime(path.data, t) && read_file(path.data, &have) && have.len >= want.len &&
	     memcmp(have.data, want.data, want.len) == 0;
	for (i = 0; i < LEN(stamp_made) && ok; i++) {
		path.len = 0;
		buf_printf(&path, "%s/%s", root, stamp_made[i]);
		ok = report_mtime(path.data, &m) && !report_older(*t, m);
	}
	/* "fail 0|1", the paths, counts, note and verdict lines, "runs N",
	 * then N run dirs */
	for (p = ok ? have.data + want.len : NULL; p && n < LEN(line) && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		line[n++] = p;
	}
	ok = ok && n == LEN(line) && (strcmp(line[0], "fail 0") == 0 || strcmp(line[0], "fail 1") == 0) &&
	     has_status(line[2]) && strncmp(line[5], "runs ", 5) == 0 && (runs = strtoul(line[5] + 5, &end, 10), !*end) &&
	     runs <= have.len;
	if (ok) {
		cap = (size_t)runs;
		res->dirs = xcalloc(cap + 1, sizeof(*res->dirs));
		for (; p && res->n_dirs < cap && (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			res->dirs[res->n_dirs++] = p;
		}
		ok = res->n_dirs == cap && p == have.data + have.len;
	}
	if (ok) {
		res->fail = line[0][5] == '1';
		res->paths = xstrdup(line[1]);
		res->counts = xstrdup(line[2]);
		res->note = line[3][0] ? xstrdup(line[3]) : NULL;
		res->verdict = xstrdup(line[4]);
		res->text = have.data;
		have.data = NULL;
	} else {
		free(res->dirs);
		res->dirs = NULL;
		res->n_dirs = 0;
	}
	buf_free(&path);
	buf_free(&have);
	buf_free(&want);
	return ok;
}

void
report_stamp_free(struct stamp_result *res)
{
	free(res->paths);
	free(res->counts);
	free(res->note);
	free(res->verdict);
	free(res->text);
	free(res->dirs);
	memset(res, 0, sizeof(*res));
}

struct report_runs {
	int root, parent;
	struct buf dir, rel;
	size_t len;
};

struct report_runs *
report_runs_open(const char *root)
{
	struct report_runs *w;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	w = xcalloc(1, sizeof(*w));
	w->root = fd;
	w->parent = -1;
	return w;
}

int
report_runs_stat(struct report_runs *w, const char *dir, const char *name, struct stat *st)
{
	const char *slash = strrchr(dir, '/');
	size_t len = slash ? (size_t)(slash - dir) : 0;

	if (!w || *dir == '/') {
		/* (a stamp's line is no path of the build dir's) */
		errno = w ? EINVAL : EBADF;
		return -1;
	}
	/* the run's parent, opened when it is not the last run's */
	if (slash && (w->parent < 0 || w->len != len || memcmp(w->dir.data, dir, len) != 0)) {
		if (w->parent >= 0)
			close(w->parent);
		w->dir.len = 0;
		buf_push(&w->dir, dir, len);
		w->len = len;
		w->parent = openat(w->root, w->dir.data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->parent < 0)
			return -1;
	}
	w->rel.len = 0;
	buf_printf(&w->rel, "%s/%s", slash ? slash + 1 : dir, name);
	return fstatat(slash ? w->parent : w->root, w->rel.data, st, 0);
}

void
report_runs_close(struct report_runs *w)
{
	if (!w)
		return;
	if (w->parent >= 0)
		close(w->parent);
	close(w->root);
	buf_free(&w->dir);
	buf_free(&w->rel);
	free(w);
}

/* The mtime of a run's file (report_runs_stat). */
static bool
run_mtime(struct report_runs *w, const char *dir, const char *name, struct timespec *t)
{
	struct stat st;

	if (report_runs_stat(w, dir, name, &st) != 0)
		return false;
	*t = st.st_mtim;
	return true;
}

bool
report_fresh(const char *root, const struct stamp_result *res, struct timespec plan_t, struct timespec stamp_t)
{
	struct report_runs *w = report_runs_open(root);
	struct timespec rep, t;
	size_t i;
	bool fresh = w != NULL;

	for (i = 0; i < res->n_dirs && fresh; i++) {
		const char *dir = res->dirs[i];
		/* made before the stamp, after kunai.json */
		fresh = run_mtime(w, dir, "report.json", &rep) && report_older(rep, stamp_t) &&
		        !report_older(rep, plan_t);
		if (fresh && run_mtime(w, dir, "job.json", &t))
			fresh = !report_older(rep, t);
		else if (fresh) {
			/* never run when the stamp was made, and nothing made or
			 * removed in its dir since (a job.json removed, say) */
			fresh = run_mtime(w, dir, ".", &t) && report_older(t, stamp_t);
		}
		if (fresh && run_mtime(w, dir, "stdout.txt", &t))
			fresh = !report_older(rep, t);
	}
	report_runs_close(w);
	return fresh;
}

/* Is every run's report.json still the file read (seen[i]: a writer's
 * rename makes a new inode)? */
static bool
unchanged(const char *root, const struct plan *p, const struct stat *seen)
{
	struct report_runs *w = report_runs_open(root);
	struct stat st;
	size_t i;
	bool same = w != NULL;

	for (i = 0; i < p->n_runs && same; i++) {
		if (report_runs_stat(w, p->runs[i].dir, "report.json", &st) != 0)
			same = !seen[i].st_ino;
		else
			same = st.st_ino == seen[i].st_ino && st.st_dev == seen[i].st_dev &&
			       !report_older(st.st_mtim, seen[i].st_mtim) && !report_older(seen[i].st_mtim, st.st_mtim);
	}
	report_runs_close(w);
	return same;
}

bool
report_stamp_write(const char *root, const struct plan *p, const struct stat *seen, struct timespec latest,
                   const struct stamp_result *res)
{
	struct timespec tick = {0, 1000000};
	struct buf path = {0}, text = {0};
	struct stat st;
	int fd = -1;
	size_t i;
	bool ok, made, past = false;

	buf_printf(&path, "%s/.kunai", root);
	if (make_dir(path.data, &made)) {
		buf_puts(&path, "/report.stamp");
		fd = open(path.data, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	}
	ok = fd >= 0;
	stamp_head(&text);
	buf_printf(&text, "fail %d\n", res->fail ? 1 : 0);
	put_line(&text, res->paths);
	put_line(&text, res->counts);
	put_line(&text, res->note);
	put_line(&text, res->verdict);
	buf_printf(&text, "runs %zu\n", p->n_runs);
	for (i = 0; (size_t)i < p->n_runs; i++)
		put_line(&text, p->runs[i].dir);
	ok = ok && write(fd, text.data, text.len) == (ssize_t)text.len;
	for (i = 0; ok && !past && i < 100; i++) {
		ok = futimens(fd, NULL) == 0 && fstat(fd, &st) == 0;
		past = ok && report_older(latest, st.st_mtim);
		if (ok && !past)
			nanosleep(&tick, NULL);
	}
	if (!ok)
		warn("%s:", path.data);
	if (fd >= 0 && close(fd) != 0 && ok) {
		warn("%s:", path.data);
		ok = false;
	}
	if (ok && (!past || !unchanged(root, p, seen)))
		unlink(path.data);
	buf_free(&path);
	buf_free(&text);
	return ok;
}
