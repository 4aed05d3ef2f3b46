/* job_poll.c: one scheduler query for all the waiters of a build dir.
 * They register under .kunai/waiting/<jobid>@<submit>@<pid> (with "@x"
 * added once the job wrote its exit record); whoever finds the query due
 * and gets .kunai/poll.lock runs it (sacct with --starttime where
 * accounting exists, else squeue -t all -j of those jobs) for every
 * registered job (on kubernetes one `kubectl get`, job_k8s.c) and writes
 * .kunai/poll.state, in sacct's -P layout; the others read that file.
 * Polls are spaced by load, so that a thousand short jobs cost the
 * scheduler a few dozen queries, not one per job:
 * - the interval grows from 2 s to --poll-max with the age of the
 *   youngest job, and is at least MS_PER_JOB times the waiting jobs;
 * - a waiter whose job wrote its exit record asks sooner, URGENT_MS after
 *   the last query, but only for a batch: when every waiting job has its
 *   exit record (a one-job campaign, the end of a wave), or when exit
 *   records of a twentieth of the campaign's jobs (the peak of waiting
 *   jobs since polling began, at most half of those waiting) are new since
 *   the last query; and at the latest URGENT_MS + URGENT_MS_PER_JOB times
 *   that peak after it. Which waiter checks is rate-limited by the mtime
 *   of .kunai/poll.lock (one directory scan per URGENT_MS). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_sched.h"
#include "gen/base/util.h"

enum {
	POLL_MIN_MS = 2000, /* kubernetes: the system's monitor_interval instead (job_state.h) */
	URGENT_MS = 500,
	YOUNG_S = 5, /* sacct may not list a job this young yet */
	IDS_PER_SACCT = 8000, /* 8000 ids of up to 15 digits: under 128 KiB */
	MS_PER_JOB = 20,        /* 1,000 jobs: a query every 20 s at most */
	URGENT_MS_PER_JOB = 20, /* ... and 20.5 s after an exit record at the latest */
	BATCH_DIV = 20,         /* an urgent query for a twentieth of the peak */
};

struct slurm_watch {
	struct buf reg;   /* our entry under .kunai/waiting */
	struct buf state; /* poll.state as last read */
	struct stat st;   /* ... and its identity */
	double poll_time, interval;
	double since;     /* when we registered: an older poll cannot know our job */
	size_t jobs;      /* how many the last query asked about */
	size_t peak;      /* the most jobs waiting at once since polling began */
	size_t left;      /* exit records the last query found not yet ended */
};

static struct slurm_watch *
watch(struct job *j)
{
	if (!j->watch)
		j->watch = arena_alloc(&j->arena, sizeof(*j->watch));
	return j->watch;
}

bool
poll_register(struct job *j)
{
	struct slurm_watch *w = watch(j);
	double submit = job_now();
	int fd;

	if (w->reg.len)
		return true;
	w->since = submit;
	if (mkdir(".kunai/waiting", 0777) != 0 && errno != EEXIST) {
		warn("mkdir .kunai/waiting:");
		return false;
	}
	/* the submit time bounds sacct's search (--starttime) */
	if (j->info.submit_time)
		job_iso_parse(j->info.submit_time, &submit);
	buf_printf(&w->reg, ".kunai/waiting/%s@%ld@%ld", j->info.job_id, (long)submit, (long)getpid());
	fd = open(w->reg.data, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		warn("create %s:", w->reg.data);
		w->reg.len = 0;
		return false;
	}
	close(fd);
	return true;
}

double
poll_begin(struct job *j, const char *what)
{
	double submit;

	if (!j->info.submit_time || !job_iso_parse(j->info.submit_time, &submit))
		submit = job_now();
	if (!poll_register(j))
		warn("%s: %s%s is not watched by the build dir's poller", j->dir, what, j->info.job_id);
	return submit;
}

void
poll_mark_exited(struct job *j)
{
	struct slurm_watch *w = j->watch;
	struct buf to = {0};

	if (!w || !w->reg.len || (w->reg.len > 2 && strcmp(w->reg.data + w->reg.len - 2, "@x") == 0))
		return;
	buf_printf(&to, "%s@x", w->reg.data);
	if (rename(w->reg.data, to.data) == 0) {
		w->reg.len = 0;
		buf_puts(&w->reg, to.data);
	}
	buf_free(&to);
}

void
poll_unregister(struct job *j)
{
	if (j->watch && j->watch->reg.len) {
		if (unlink(j->watch->reg.data) != 0 && errno != ENOENT)
			warn("remove %s:", j->watch->reg.data);
		j->watch->reg.len = 0;
	}
}

/* Re-reads poll.state when it changed; returns whether there is one. */
static bool
read_state(struct job *j)
{
	struct slurm_watch *w = watch(j);
	struct stat st;
	double t, iv;
	size_t n = 0, peak = 0, left = 0;

	if (stat(".kunai/poll.state", &st) != 0)
		return false;
	if (w->state.len && st.st_ino == w->st.st_ino && st.st_mtim.tv_sec == w->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == w->st.st_mtim.tv_nsec && st.st_size == w->st.st_size)
		return true;
	if (!job_slurp(".kunai/poll.state", &w->state) ||
	    sscanf(w->state.data, "kunai-poll %lf %lf %*s %zu %zu %zu", &t, &iv, &n, &peak, &left) < 2) {
		w->state.len = 0;
		return false;
	}
	w->st = st;
	w->poll_time = t;
	w->interval = iv;
	w->jobs = n;
	w->peak = peak > n ? peak : n;
	w->left = left;
	return true;
}

/* Our job's line in poll.state: 1 found (row), 0 queried but unknown to the
 * scheduler, -1 not in the last query. */
static int
find_row(struct job *j, struct slurm_row *r)
{
	struct slurm_watch *w = watch(j);
	struct buf key = {0};
	const char *p;
	int found = -1;

	if (!w->state.len)
		return -1;
	buf_printf(&key, "\n%s|", j->info.job_id);
	p = strstr(w->state.data, key.data);
	if (p) {
		p++;
		if (p[key.len - 1] == '-')
			found = 0;
		else
			found = slurm_parse_sacct(p, r) ? 1 : -1;
	}
	buf_free(&key);
	return found;
}

struct waiting {
	char *id;
	double submit;
	bool exited; /* it wrote its exit record */
};

/* The registered jobs, sorted by id, each once. */
struct ids {
	struct waiting *w;
	size_t n, exited;
	double min_submit, youngest;
};

static void
ids_free(struct ids *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->w[i].id);
	free(s->w);
}

static int
cmp_waiting(const void *a, const void *b)
{
	return strcmp(((const struct waiting *)a)->id, ((const struct waiting *)b)->id);
}

/* Index of job id in s, or -1. */
static long
ids_find(const struct ids *s, const char *id)
{
	struct waiting key = {(char *)id, 0, false};
	const struct waiting *w = s->n ? bsearch(&key, s->w, s->n, sizeof(*s->w), cmp_waiting) : NULL;

	return w ? w - s->w : -1;
}

/* The registered jobs; entries of dead waiters are removed. */
static void
list_waiting(struct ids *s)
{
	struct buf path = {0};
	struct dirent *e;
	DIR *d = opendir(".kunai/waiting");
	size_t i, k, cap = 0;

	memset(s, 0, sizeof(*s));
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *at = strchr(e->d_name, '@'), *at2;
		long pid;

		if (!at || at == e->d_name || !(at2 = strchr(at + 1, '@')))
			continue;
		pid = strtol(at2 + 1, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			path.len = 0;
			buf_printf(&path, ".kunai/waiting/%s", e->d_name);
			unlink(path.data);
			continue;
		}
		s->w = xreserve(s->w, s->n + 1, &cap, sizeof(*s->w));
		s->w[s->n].submit = strtod(at + 1, NULL);
		s->w[s->n].exited = strstr(at2 + 1, "@x") != NULL;
		*at = '\0';
		s->w[s->n++].id = xstrdup(e->d_name);
	}
	closedir(d);
	buf_free(&path);
	/* a reattached job may be registered twice (the dead waiter's entry) */
	if (s->n)
		qsort(s->w, s->n, sizeof(*s->w), cmp_waiting);
	for (i = k = 0; i < s->n; i++) {
		if (k && strcmp(s->w[k - 1].id, s->w[i].id) == 0) {
			s->w[k - 1].exited |= s->w[i].exited;
			free(s->w[i].id);
			continue;
		}
		s->w[k++] = s->w[i];
	}
	s->n = k;
	for (i = 0; i < s->n; i++) {
		s->exited += s->w[i].exited;
		if (!i || s->w[i].submit < s->min_submit)
			s->min_submit = s->w[i].submit;
		if (!i || s->w[i].submit > s->youngest)
			s->youngest = s->w[i].submit;
	}
}

/* Slurm's local time format, as sacct prints it ("Unknown" for 0). */
static void
put_time(struct buf *out, double t)
{
	time_t tt = (time_t)util_to_long(t, 0);
	struct tm tm;
	char s[32];

	if (tt > 0 && localtime_r(&tt, &tm) && strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm))
		buf_puts(out, s);
	else
		buf_puts(out, "Unknown");
}

/* A row of poll.state, in sacct's -P layout so that one parser reads both. */
void
poll_row_line(struct buf *out, const struct slurm_row *r)
{
	buf_printf(out, "%s|%s|", r->id, r->state);
	if (r->exit_code >= 0)
		buf_printf(out, "%d:%d", r->exit_code, r->signal < 0 ? 0 : r->signal);
	buf_putc(out, '|');
	put_time(out, r->submit);
	buf_putc(out, '|');
	put_time(out, r->start);
	buf_putc(out, '|');
	put_time(out, r->end);
	buf_printf(out, "|%s", r->nodes);
	if (r->reason[0])
		buf_printf(out, "|%s", r->reason);
	buf_putc(out, '\n');
}

/* Appends the rows of out (sacct -P or squeue -O lines) whose job is one
 * of s's and not yet found; counts in *settled the jobs with an exit
 * record that the scheduler calls ended. */
static void
take_rows(const struct ids *s, bool *found, const char *out, bool sacct, struct buf *rows, size_t *settled)
{
	struct slurm_row r;
	const char *p;
	bool terminal;
	long i;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!(sacct ? slurm_parse_sacct(p, &r) : slurm_parse_squeue(p, &r)))
			continue;
		i = ids_find(s, r.id);
		if (i >= 0 && !found[i]) {
			found[i] = true;
			poll_row_line(rows, &r);
			job_state_outcome(r.state, 0, &terminal);
			*settled += s->w[i].exited && terminal;
		}
	}
}

/* .kunai/accounting remembers whether sacct works here; a "no" is checked
 * again after an hour (accounting may have been switched on). */
static bool
accounting_known_off(void)
{
	struct buf m = {0};
	struct stat st;
	bool off;

	off = job_slurp(".kunai/accounting", &m) && strncmp(m.data, "no", 2) == 0 &&
	      stat(".kunai/accounting", &st) == 0 && time(NULL) - st.st_mtime < 3600;
	buf_free(&m);
	return off;
}

static void
remember_accounting(bool on)
{
	write_file_atomic(".kunai/accounting", on ? "yes\n" : "no\n", on ? 4 : 3);
}

/* One query for every registered job: rows into rows, then "<id>|-" for a
 * job the scheduler does not know; *left: the jobs with an exit record
 * that it does not call ended yet. Returns false when the scheduler could
 * not be asked (the waiters then wait for the next interval). */
static bool
query(struct job *j, const struct ids *s, struct buf *rows, size_t *left)
{
	struct buf out = {0}, err = {0}, list = {0}, start = {0};
	bool *found = xcalloc(s->n ? s->n : 1, sizeof(*found)), acct = !accounting_known_off(), ok = true;
	bool need, asked_ctld = false;
	double now = job_now();
	size_t i, k, settled = 0;
	int rc;

	/* sacct -j takes one argument, which Linux caps at 128 KiB: in chunks */
	for (i = 0; acct && ok && i < s->n;) {
		char *argv[] = {"sacct", "-X", "-n", "-P", NULL, "-j", NULL,
		                "-o", "JobID,State,ExitCode,Submit,Start,End,NodeList", NULL};
		list.len = start.len = 0;
		for (k = 0; i < s->n && k < IDS_PER_SACCT; i++, k++)
			buf_printf(&list, "%s%s", k ? "," : "", s->w[i].id);
		buf_puts(&start, "--starttime=");
		put_time(&start, s->min_submit - 300);
		argv[4] = start.data;
		argv[6] = list.data;
		out.len = 0;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		if (rc == 0) {
			remember_accounting(true);
			take_rows(s, found, out.data, true, rows, &settled);
		} else if (strstr(buf_str(&err), "accounting storage is disabled")) {
			remember_accounting(false);
			acct = false;
		} else if (slurm_transient(buf_str(&err))) {
			ok = false;
		} else {
			warn("sacct: %.*s; asking slurmctld", (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
			acct = false;
		}
	}
	need = !acct;
	if (acct) {
		/* a job older than YOUNG_S that accounting does not list: ask slurmctld */
		for (i = 0; ok && i < s->n; i++)
			need |= !found[i] && now - s->w[i].submit >= YOUNG_S;
	}
	/* slurmctld, for this build dir's jobs only (ended ones too, while it
	 * remembers them): one squeue per chunk of ids, ~80 bytes a job */
	for (i = 0; ok && need && i < s->n;) {
		char *argv[] = {"squeue", "-h", "-t", "all", "-j", NULL, "-O", SQUEUE_FIELDS, NULL};
		list.len = 0;
		for (k = 0; i < s->n && k < IDS_PER_SACCT; i++)
			if (!found[i])
				buf_printf(&list, "%s%s", k++ ? "," : "", s->w[i].id);
		if (!k)
			continue;
		argv[5] = list.data;
		out.len = 0;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		/* "Invalid job id" when it knows none of them */
		if (rc == 0 || strstr(buf_str(&err), "Invalid job id")) {
			take_rows(s, found, out.data, false, rows, &settled);
			asked_ctld = true;
		} else {
			ok = asked_ctld = false;
			if (!slurm_transient(buf_str(&err)))
				warn("squeue: %.*s", (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
		}
	}
	for (i = 0; asked_ctld && i < s->n; i++)
		if (!found[i]) {
			buf_printf(rows, "%s|-\n", s->w[i].id);
			settled += s->w[i].exited;
		}
	*left = s->exited - settled;
	free(found);
	buf_free(&out);
	buf_free(&err);
	buf_free(&list);
	buf_free(&start);
	return ok;
}

/* The same for the other backends: one kubectl get (job_k8s.c), bjobs
 * (job_lsf.c) or workload listing (job_runai.c); *left as query's. */
static bool
query_other(struct job *j, const struct ids *s, struct buf *rows, size_t *left)
{
	char **v = xcalloc(s->n ? s->n : 1, sizeof(*v));
	size_t i;
	bool ok;

	for (i = 0; i < s->n; i++)
		v[i] = s->w[i].id;
	ok = j->sched == JOB_LSF     ? lsf_query(j, v, s->n, rows)
	     : j->sched == JOB_RUNAI ? runai_query(j, v, s->n, rows)
	                             : k8s_query(j, v, s->n, rows);
	*left = 0;
	free(v);
	return ok;
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

bool
poll_batch_ready(size_t peak, size_t waiting, size_t exited, size_t left)
{
	size_t want = (peak + BATCH_DIV - 1) / BATCH_DIV, half = (waiting + 1) / 2;

	if (want > half)
		want = half;
	if (want < 1)
		want = 1;
	if (waiting && exited == waiting && exited > left)
		return true;
	return exited >= left + want;
}

void
poll_maybe(struct job *j, bool urgent)
{
	struct slurm_watch *w = watch(j);
	struct buf text = {0}, rows = {0};
	double now = job_now(), since, cap, iv, lo = j->poll_min_ms > 0 ? (double)j->poll_min_ms : POLL_MIN_MS;
	struct ids s = {0};
	struct stat st;
	size_t left = 0, peak;
	bool have, ok, due, listed = false;
	int fd;

	have = read_state(j);
	since = (now - w->poll_time) * 1000;
	cap = (double)URGENT_MS + (double)(w->peak * URGENT_MS_PER_JOB);
	if (have && since < w->interval) {
		if (!urgent || since < URGENT_MS)
			return;
		/* one waiter scans for the batch per URGENT_MS */
		if (since < cap && stat(".kunai/poll.lock", &st) == 0 &&
		    (now - ((double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9)) * 1000 < URGENT_MS)
			return;
	}
	fd = open(".kunai/poll.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		warn("open .kunai/poll.lock:");
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd); /* another waiter is asking for all of us */
		return;
	}
	now = job_now();
	have = read_state(j);
	since = (now - w->poll_time) * 1000;
	cap = (double)URGENT_MS + (double)(w->peak * URGENT_MS_PER_JOB);
	due = !have || since >= w->interval || (urgent && since >= cap);
	if (!due && urgent && since >= URGENT_MS) {
		list_waiting(&s);
		listed = true;
		due = poll_batch_ready(w->peak, s.n, s.exited, w->left);
		if (!due)
			futimens(fd, NULL); /* scanned: the next scan in URGENT_MS */
	}
	if (due) {
		if (!listed)
			list_waiting(&s);
		listed = true;
		ok = j->sched == JOB_SLURM ? query(j, &s, &rows, &left) : query_other(j, &s, &rows, &left);
		/* young jobs are checked often, old ones rarely; errors back off */
		if (ok)
			iv = clamp((now - s.youngest) * 1000 / 2, lo, (double)j->poll_max_ms);
		else
			iv = clamp((have ? w->interval : lo) * 2, lo, (double)j->poll_max_ms);
		if (iv < (double)(s.n * MS_PER_JOB))
			iv = (double)(s.n * MS_PER_JOB);
		/* the peak is this campaign's: polling stopped for long (no
		 * waiter) begins another */
		peak = s.n;
		if (have && since < 2 * w->interval + lo && w->peak > peak)
			peak = w->peak;
		buf_printf(&text, "kunai-poll %.3f %.0f %s %zu %zu %zu\n", now, iv, ok ? "ok" : "error", s.n, peak,
		           left);
		buf_push(&text, rows.data, rows.len);
		write_file_atomic(".kunai/poll.state", text.data, text.len);
	}
	if (listed)
		ids_free(&s);
	close(fd);
	buf_free(&text);
	buf_free(&rows);
}

int
poll_lookup(struct job *j, struct slurm_row *r, double *when)
{
	if (!read_state(j))
		return -2;
	*when = j->watch->poll_time;
	/* a row from before we registered is about another job of that number
	 * (another cluster's, say), never ours */
	if (j->watch->poll_time < j->watch->since)
		return -1;
	return find_row(j, r);
}

void
poll_release(struct job *j)
{
	if (!j->watch)
		return;
	poll_unregister(j);
	buf_free(&j->watch->reg);
	buf_free(&j->watch->state);
}
