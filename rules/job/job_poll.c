/* job_poll.c: one scheduler query for all the waiters of a build dir.
 * They register under .kunai/waiting/<jobid>@<submit>@<pid>; whoever finds
 * the query due and gets .kunai/poll.lock runs it for every registered job
 * (on kubernetes one `kubectl get`, job_k8s.c) and writes .kunai/poll.state,
 * in sacct's -P layout; the others read that file.
 * - The periodic query catches the jobs that die without writing their exit
 *   record (time limit, node failure, cancellation): sacct with --starttime
 *   where accounting exists (squeue -t all -j for the jobs it does not list
 *   yet), else squeue -t all -j of those jobs. Its interval grows from 2 s
 *   to --poll-max with the age of the youngest job, and is at least
 *   MS_PER_JOB times the waiting jobs, so that a thousand jobs that run for
 *   long cost the scheduler a query every 20 s or more.
 * - A waiter whose job wrote an exit record that is not its clean end (a
 *   status other than 0, an OOM kill; job_slurm.c) wants the final state:
 *   it runs the query URGENT_MS after the last one (its wait doubles with
 *   each query after its record that did not end it: a job in its epilog, a
 *   requeue), and that query also asks slurmctld (squeue -t all -j) about
 *   every job that accounting does not call ended, since accounting lags
 *   slurmctld (see query). One query answers every job that ended since
 *   the last, so jobs that end together cost one query; jobs that end one
 *   by one cost up to one query per URGENT_MS of the time over which they
 *   end. */
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
	URGENT_MS = 500,   /* a result within 1 s of its exit record */
	URGENT_DOUBLINGS = 5, /* ... and a job that stays unended after it: every 16 s */
	YOUNG_S = 5, /* sacct may not list a job this young yet */
	IDS_PER_SACCT = 8000, /* 8000 ids of up to 15 digits: under 128 KiB */
	MS_PER_JOB = 20,      /* 1,000 jobs: a periodic query every 20 s at most */
};

struct slurm_watch {
	struct buf reg;   /* our entry under .kunai/waiting */
	struct buf state; /* poll.state as last read */
	struct stat st;   /* ... and its identity */
	double poll_time, interval;
	double since;     /* when we registered: an older poll cannot know our job */
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

	if (stat(".kunai/poll.state", &st) != 0)
		return false;
	if (w->state.len && st.st_ino == w->st.st_ino && st.st_mtim.tv_sec == w->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == w->st.st_mtim.tv_nsec && st.st_size == w->st.st_size)
		return true;
	if (!job_slurp(".kunai/poll.state", &w->state) ||
	    sscanf(w->state.data, "kunai-poll %lf %lf", &t, &iv) < 2) {
		w->state.len = 0;
		return false;
	}
	w->st = st;
	w->poll_time = t;
	w->interval = iv;
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
};

/* The registered jobs, sorted by id, each once. */
struct ids {
	struct waiting *w;
	size_t n;
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
	struct waiting key = {(char *)id, 0};
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
			free(s->w[i].id);
			continue;
		}
		s->w[k++] = s->w[i];
	}
	s->n = k;
	for (i = 0; i < s->n; i++) {
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
 * of s's and not yet found; with unended, a job not ended goes there
 * instead, not found (slurmctld is asked about it next). */
static void
take_rows(const struct ids *s, bool *found, const char *out, bool sacct, struct buf *rows, struct buf *unended)
{
	struct slurm_row r;
	const char *p;
	bool terminal;
	long i;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!(sacct ? slurm_parse_sacct(p, &r) : slurm_parse_squeue(p, &r)))
			continue;
		i = ids_find(s, r.id);
		if (i < 0 || found[i])
			continue;
		job_state_outcome(r.state, 0, &terminal);
		if (unended && !terminal) {
			poll_row_line(unended, &r);
			continue;
		}
		found[i] = true;
		poll_row_line(rows, &r);
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

/* Comma-separated ids of s not found yet, from *i on, at most
 * IDS_PER_SACCT (sacct -j and squeue -j take one argument, which Linux
 * caps at 128 KiB); returns how many. */
static size_t
next_chunk(const struct ids *s, const bool *found, size_t *i, struct buf *list)
{
	size_t k;

	list->len = 0;
	for (k = 0; *i < s->n && k < IDS_PER_SACCT; ++*i)
		if (!found[*i])
			buf_printf(list, "%s%s", k++ ? "," : "", s->w[*i].id);
	return k;
}

/* sacct for the jobs of s not found yet (unended: as take_rows'); false
 * when it could not be asked now (transient). *acct turns false where
 * accounting is off or broken. */
static bool
ask_sacct(struct job *j, const struct ids *s, bool *found, struct buf *rows, struct buf *unended, bool *acct)
{
	struct buf out = {0}, err = {0}, list = {0}, start = {0};
	bool ok = true;
	size_t i = 0;
	int rc;

	while (*acct && ok && next_chunk(s, found, &i, &list)) {
		char *argv[] = {"sacct", "-X", "-n", "-P", NULL, "-j", list.data,
		                "-o", "JobID,State,ExitCode,Submit,Start,End,NodeList", NULL};
		start.len = 0;
		buf_puts(&start, "--starttime=");
		put_time(&start, s->min_submit - 300);
		argv[4] = start.data;
		out.len = 0;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		if (rc == 0) {
			remember_accounting(true);
			take_rows(s, found, out.data, true, rows, unended);
		} else if (strstr(buf_str(&err), "accounting storage is disabled")) {
			remember_accounting(false);
			*acct = false;
		} else if (slurm_transient(buf_str(&err))) {
			ok = false;
		} else {
			warn("sacct: %.*s; asking slurmctld", (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
			*acct = false;
		}
	}
	buf_free(&out);
	buf_free(&err);
	buf_free(&list);
	buf_free(&start);
	return ok;
}

/* slurmctld, for the jobs of s not found yet (ended ones too, while it
 * remembers them): one squeue per chunk of ids, ~80 bytes a job; false
 * when it could not be asked. */
static bool
ask_ctld_all(struct job *j, const struct ids *s, bool *found, struct buf *rows)
{
	struct buf out = {0}, err = {0}, list = {0};
	bool ok = true;
	size_t i = 0;
	int rc;

	while (ok && next_chunk(s, found, &i, &list)) {
		char *argv[] = {"squeue", "-h", "-t", "all", "-j", list.data, "-O", SQUEUE_FIELDS, NULL};
		out.len = 0;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		/* "Invalid job id" when it knows none of them */
		if (rc == 0 || strstr(buf_str(&err), "Invalid job id")) {
			take_rows(s, found, out.data, false, rows, NULL);
		} else {
			ok = false;
			if (!slurm_transient(buf_str(&err)))
				warn("squeue: %.*s", (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
		}
	}
	buf_free(&out);
	buf_free(&err);
	buf_free(&list);
	return ok;
}

/* One query for every registered job: rows into rows, then "<id>|-" for a
 * job the scheduler does not know. sacct first where accounting exists,
 * then slurmctld for the jobs accounting does not list (a job older than
 * YOUNG_S) or without accounting. Urgent (an exit record waits): also for
 * the jobs accounting does not call ended yet, since it lags slurmctld;
 * accounting's ended ones are final (it has them while slurmctld still
 * shows the job COMPLETING), and sacct fails at once where slurmdbd is
 * down, where squeue waits out MessageTimeout. Returns false when the
 * scheduler could not be asked (the waiters then wait for the next
 * interval). */
static bool
query(struct job *j, const struct ids *s, struct buf *rows, bool urgent)
{
	bool *found = xcalloc(s->n ? s->n : 1, sizeof(*found)), acct = !accounting_known_off(), ok = true;
	bool asked_ctld = false, need;
	struct buf unended = {0};
	struct slurm_row r;
	double now = job_now();
	const char *p;
	size_t i;
	long k;

	if (acct)
		ok = ask_sacct(j, s, found, rows, urgent ? &unended : NULL, &acct);
	if (ok) {
		need = !acct;
		for (i = 0; !need && i < s->n; i++)
			need = !found[i] && (urgent || now - s->w[i].submit >= YOUNG_S);
		if (need)
			ok = asked_ctld = ask_ctld_all(j, s, found, rows);
	}
	/* what accounting said of the jobs slurmctld did not answer for */
	for (p = unended.data; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (slurm_parse_sacct(p, &r) && (k = ids_find(s, r.id)) >= 0 && !found[k]) {
			found[k] = true;
			poll_row_line(rows, &r);
		}
	for (i = 0; ok && asked_ctld && i < s->n; i++)
		if (!found[i])
			buf_printf(rows, "%s|-\n", s->w[i].id);
	free(found);
	buf_free(&unended);
	return ok;
}

/* The same for the other backends: one kubectl get (job_k8s.c), bjobs
 * (job_lsf.c) or workload listing (job_runai.c). */
static bool
query_other(struct job *j, const struct ids *s, struct buf *rows)
{
	char **v = xcalloc(s->n ? s->n : 1, sizeof(*v));
	size_t i;
	bool ok;

	for (i = 0; i < s->n; i++)
		v[i] = s->w[i].id;
	ok = j->sched == JOB_LSF     ? lsf_query(j, v, s->n, rows)
	     : j->sched == JOB_RUNAI ? runai_query(j, v, s->n, rows)
	                             : k8s_query(j, v, s->n, rows);
	free(v);
	return ok;
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

long
poll_urgent_ms(int misses)
{
	int n = misses > 1 ? misses - 1 : 0;

	return (long)URGENT_MS << (n < URGENT_DOUBLINGS ? n : URGENT_DOUBLINGS);
}

void
poll_maybe(struct job *j, long urgent_ms)
{
	struct slurm_watch *w = watch(j);
	struct buf text = {0}, rows = {0};
	double now = job_now(), since, iv, lo = j->poll_min_ms > 0 ? (double)j->poll_min_ms : POLL_MIN_MS;
	struct ids s = {0};
	bool have, ok, urgent;
	int fd;

	have = read_state(j);
	since = (now - w->poll_time) * 1000;
	if (have && since < w->interval && (urgent_ms <= 0 || since < (double)urgent_ms))
		return;
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
	urgent = have && since < w->interval;
	if (!urgent || (urgent_ms > 0 && since >= (double)urgent_ms)) {
		list_waiting(&s);
		ok = j->sched == JOB_SLURM ? query(j, &s, &rows, urgent) : query_other(j, &s, &rows);
		/* young jobs are checked often, old ones rarely; errors back off */
		if (ok)
			iv = clamp((now - s.youngest) * 1000 / 2, lo, (double)j->poll_max_ms);
		else
			iv = clamp((have ? w->interval : lo) * 2, lo, (double)j->poll_max_ms);
		if (iv < (double)(s.n * MS_PER_JOB))
			iv = (double)(s.n * MS_PER_JOB);
		buf_printf(&text, "kunai-poll %.3f %.0f %s %zu\n", now, iv, ok ? "ok" : "error", s.n);
		buf_push(&text, rows.data, rows.len);
		write_file_atomic(".kunai/poll.state", text.data, text.len);
		ids_free(&s);
	}
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
