/* job_slurm.c: a run as a Slurm batch job. sbatch from the run dir; then
 * the waiter watches the job's own records (kunai.start, kunai.exit, which
 * the script writes) and asks the scheduler rarely: all waiters of a build
 * dir share one batched query per interval. They register under
 * .kunai/waiting/<jobid>@<submit>@<pid>; whoever finds the interval passed
 * and gets .kunai/poll.lock runs the query (sacct with --starttime where
 * accounting exists, else one `scontrol -o show job`) for every registered
 * job and writes .kunai/poll.state; the others read that file. The interval
 * grows from 2 s to --poll-max with the age of the youngest job; a job
 * whose exit record appeared is polled for at most every URGENT_MS until
 * the scheduler calls it ended. */
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

#include "job.h"
#include "util.h"

enum {
	POLL_MIN_MS = 2000,
	URGENT_MS = 500,        /* after an exit record: wait for the final state */
	URGENT_FOR_S = 20,      /* then back to the normal interval (a requeued job) */
	YOUNG_S = 5,            /* sacct may not list a job this young yet */
	SUBMIT_TRIES = 6,       /* transient sbatch errors: 1+2+4+8+16 s of retries */
	MAX_JOBS_PER_QUERY = 4000,
};

struct slurm_watch {
	struct buf reg;   /* our entry under .kunai/waiting */
	struct buf state; /* poll.state as last read */
	struct stat st;   /* ... and its identity */
	double poll_time, interval;
};

/* ---- parsing ---------------------------------------------------------------------- */

static void
copy_field(char *dst, size_t n, const char *s, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* "A:B" -> exit code A, signal B */
static void
parse_exit(const char *s, struct slurm_row *r)
{
	char *end;

	r->exit_code = r->signal = -1;
	if (!s || !isdigit((unsigned char)*s))
		return;
	r->exit_code = (int)strtol(s, &end, 10);
	if (*end == ':')
		r->signal = (int)strtol(end + 1, NULL, 10);
}

static double
parse_time(const char *s)
{
	double t;

	return job_slurm_time(s, &t) ? t : 0;
}

bool
slurm_parse_sacct(const char *line, struct slurm_row *r)
{
	const char *f[7], *p = line;
	size_t len[7], i;
	char tmp[64];

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 7; i++) {
		f[i] = p;
		len[i] = strcspn(p, "|\n");
		p += len[i];
		if (i < 6 && *p++ != '|')
			return false;
	}
	if (!len[0] || !len[1])
		return false;
	copy_field(r->id, sizeof(r->id), f[0], len[0]);
	/* "CANCELLED by 0" */
	copy_field(r->state, sizeof(r->state), f[1], strcspn(f[1], " |"));
	copy_field(tmp, sizeof(tmp), f[2], len[2]);
	parse_exit(tmp, r);
	copy_field(tmp, sizeof(tmp), f[3], len[3]);
	r->submit = parse_time(tmp);
	copy_field(tmp, sizeof(tmp), f[4], len[4]);
	r->start = parse_time(tmp);
	copy_field(tmp, sizeof(tmp), f[5], len[5]);
	r->end = parse_time(tmp);
	if (len[6] && strncmp(f[6], "None", 4) != 0)
		copy_field(r->nodes, sizeof(r->nodes), f[6], len[6]);
	return true;
}

/* The value of " key=" in a scontrol one-liner, up to the next blank. */
static bool
kv(const char *line, const char *key, char *out, size_t n)
{
	size_t k = strlen(key);
	const char *p;

	for (p = line; (p = strstr(p, key)); p += k)
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			copy_field(out, n, p, strcspn(p, " \n"));
			return true;
		}
	return false;
}

bool
slurm_parse_scontrol(const char *line, struct slurm_row *r)
{
	char tmp[64];

	memset(r, 0, sizeof(*r));
	if (strncmp(line, "JobId=", 6) != 0 || !kv(line, "JobId", r->id, sizeof(r->id)) ||
	    !kv(line, "JobState", r->state, sizeof(r->state)))
		return false;
	parse_exit(kv(line, "ExitCode", tmp, sizeof(tmp)) ? tmp : NULL, r);
	if (kv(line, "SubmitTime", tmp, sizeof(tmp)))
		r->submit = parse_time(tmp);
	if (kv(line, "StartTime", tmp, sizeof(tmp)))
		r->start = parse_time(tmp);
	if (kv(line, "EndTime", tmp, sizeof(tmp)))
		r->end = parse_time(tmp);
	if (kv(line, "NodeList", r->nodes, sizeof(r->nodes)) && strcmp(r->nodes, "(null)") == 0)
		r->nodes[0] = '\0';
	return true;
}

static bool
has_any(const char *s, const char *const *words)
{
	size_t i;

	for (i = 0; s && words[i]; i++)
		if (strstr(s, words[i]))
			return true;
	return false;
}

bool
slurm_transient(const char *err)
{
	static const char *const w[] = {
		"Socket timed out", "slurm_load_jobs error", "Connection refused", "Unable to contact slurm controller",
		"Resource temporarily unavailable", "Zero Bytes were transmitted", "Unexpected message received",
		"Transport endpoint is not connected", "Slurm temporarily unable", "temporarily unavailable",
		"Communication connection failure", "Connection timed out", "slurmdbd: Connection", NULL,
	};
	return has_any(err, w);
}

bool
slurm_limit_error(const char *err)
{
	static const char *const w[] = {
		"QOSMaxSubmitJobPerUserLimit", "AssocMaxSubmitJobLimit", "MaxSubmitJobs", "QOSMaxSubmitJob",
		"Job violates accounting/QOS policy", "AssocGrpSubmitJobsLimit", "QOSGrpSubmitJobsLimit",
		"Slurm job queue full", "Job submit limit", NULL,
	};
	return has_any(err, w);
}

/* ---- submit and cancel ------------------------------------------------------------- */

/* Runs a Slurm command, retrying transient errors up to tries times with
 * growing pauses; a signal ends the retries unless cleanup (scancel is what
 * a signal asks for). Returns its status. */
static int
slurm_cmd(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
          struct buf *err)
{
	long pause = 1000;
	int rc = -1, k;

	for (k = 0; k < tries; k++) {
		if (out)
			out->len = 0;
		err->len = 0;
		rc = job_capture(j, argv, dir, out, err);
		if (rc == 0 || !slurm_transient(buf_str(err)) || k + 1 == tries)
			break;
		warn("%s: %.*s; again in %ld s", argv[0], (int)strcspn(err->data, "\n"), err->data, pause / 1000);
		if (job_sleep(j, pause) && j->signo && !cleanup)
			break;
		pause *= 2;
	}
	return rc;
}

bool
slurm_submit(struct job *j, bool *retryable)
{
	char *argv[] = {"sbatch", "--parsable", "cloudai_sbatch_script.sh", NULL};
	struct buf out = {0}, err = {0}, msg = {0};
	size_t n;
	int rc;

	*retryable = false;
	rc = slurm_cmd(j, argv, j->dir, SUBMIT_TRIES, false, &out, &err);
	n = strspn(buf_str(&out), "0123456789_");
	if (rc == 0 && n > 0 && (out.data[n] == ';' || out.data[n] == '\n' || !out.data[n])) {
		/* "123" or "123;cluster" */
		j->info.job_id = arena_strndup(&j->arena, out.data, n);
		j->info.state = "PENDING";
		buf_free(&out);
		buf_free(&err);
		return true;
	}
	j->info.state = "SUBMIT_FAILED";
	j->info.end_time = job_iso(&j->arena, job_now());
	buf_printf(&msg, "sbatch: %.*s", (int)strcspn(buf_str(&err), "\n"),
	           err.len ? err.data : rc == 0 ? "no job id in its output" : "failed");
	j->info.reason = arena_strdup(&j->arena, msg.data);
	warn("%s: %s", j->dir, msg.data);
	/* a full queue clears by itself; a bad script or partition does not */
	*retryable = slurm_limit_error(err.data) || slurm_transient(err.data);
	buf_free(&out);
	buf_free(&err);
	buf_free(&msg);
	return false;
}

void
slurm_cancel(struct job *j)
{
	char *argv[] = {"scancel", (char *)j->info.job_id, NULL};
	struct buf err = {0};

	if (!j->info.job_id)
		return;
	if (slurm_cmd(j, argv, NULL, 4, true, NULL, &err) != 0)
		warn("scancel %s: %.*s", j->info.job_id, (int)strcspn(buf_str(&err), "\n"), err.data);
	buf_free(&err);
}

/* ---- registration ------------------------------------------------------------------ */

static struct slurm_watch *
watch(struct job *j)
{
	if (!j->watch)
		j->watch = arena_alloc(&j->arena, sizeof(*j->watch));
	return j->watch;
}

static bool
register_job(struct job *j)
{
	struct slurm_watch *w = watch(j);
	double submit = job_now();
	int fd;

	if (w->reg.len)
		return true;
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

static void
unregister(struct job *j)
{
	if (j->watch && j->watch->reg.len) {
		if (unlink(j->watch->reg.data) != 0 && errno != ENOENT)
			warn("remove %s:", j->watch->reg.data);
		j->watch->reg.len = 0;
	}
}

/* ---- the shared poller ------------------------------------------------------------- */

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
	    sscanf(w->state.data, "kunai-poll %lf %lf", &t, &iv) != 2) {
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

struct ids {
	char **id;
	double *submit;
	size_t n;
	double min_submit, youngest;
};

static void
ids_free(struct ids *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->id[i]);
	free(s->id);
	free(s->submit);
}

/* The registered jobs; entries of dead waiters are removed. */
static void
list_waiting(struct ids *s)
{
	struct buf path = {0};
	struct dirent *e;
	DIR *d = opendir(".kunai/waiting");
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!d)
		return;
	while ((e = readdir(d)) && s->n < MAX_JOBS_PER_QUERY) {
		char *at = strchr(e->d_name, '@'), *at2;
		long pid;
		double sub;

		if (!at || at == e->d_name || !(at2 = strchr(at + 1, '@')))
			continue;
		sub = strtod(at + 1, NULL);
		pid = strtol(at2 + 1, NULL, 10);
		if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			path.len = 0;
			buf_printf(&path, ".kunai/waiting/%s", e->d_name);
			unlink(path.data);
			continue;
		}
		*at = '\0';
		for (i = 0; i < s->n && strcmp(s->id[i], e->d_name) != 0; i++)
			;
		if (i < s->n)
			continue;
		s->id = xrealloc(s->id, (s->n + 1) * sizeof(*s->id));
		s->submit = xrealloc(s->submit, (s->n + 1) * sizeof(*s->submit));
		s->id[s->n] = xstrdup(e->d_name);
		s->submit[s->n] = sub;
		if (!s->n || sub < s->min_submit)
			s->min_submit = sub;
		if (!s->n || sub > s->youngest)
			s->youngest = sub;
		s->n++;
	}
	closedir(d);
	buf_free(&path);
}

/* Slurm's local time format, as sacct prints it ("Unknown" for 0). */
static void
put_time(struct buf *out, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char s[32];

	if (t > 0 && localtime_r(&tt, &tm) && strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm))
		buf_puts(out, s);
	else
		buf_puts(out, "Unknown");
}

/* A row of poll.state, in sacct's -P layout so that one parser reads both. */
static void
row_line(struct buf *out, const struct slurm_row *r)
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
	buf_printf(out, "|%s\n", r->nodes);
}

/* Appends the rows of out (sacct -P or scontrol -o lines) whose job is one
 * of s's and not yet found. */
static void
take_rows(const struct ids *s, bool *found, const char *out, bool sacct, struct buf *rows)
{
	struct slurm_row r;
	const char *p;
	size_t i;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!(sacct ? slurm_parse_sacct(p, &r) : slurm_parse_scontrol(p, &r)))
			continue;
		for (i = 0; i < s->n; i++)
			if (!found[i] && strcmp(s->id[i], r.id) == 0) {
				found[i] = true;
				row_line(rows, &r);
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
 * job the scheduler does not know. Returns false when the scheduler could
 * not be asked (the waiters then wait for the next interval). */
static bool
query(struct job *j, const struct ids *s, struct buf *rows)
{
	struct buf out = {0}, err = {0}, list = {0}, start = {0};
	bool *found = xcalloc(s->n ? s->n : 1, sizeof(*found)), acct = !accounting_known_off(), ok = true;
	bool need = !acct, asked_ctld = false;
	double now = job_now();
	size_t i;
	int rc;

	if (acct) {
		char *argv[] = {"sacct", "-X", "-n", "-P", NULL, "-j", NULL,
		                "-o", "JobID,State,ExitCode,Submit,Start,End,NodeList", NULL};
		for (i = 0; i < s->n; i++)
			buf_printf(&list, "%s%s", i ? "," : "", s->id[i]);
		buf_puts(&start, "--starttime=");
		put_time(&start, s->min_submit - 300);
		argv[4] = start.data;
		argv[6] = list.data;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		if (rc == 0) {
			remember_accounting(true);
			take_rows(s, found, out.data, true, rows);
		} else if (strstr(buf_str(&err), "accounting storage is disabled")) {
			remember_accounting(false);
			need = true;
		} else if (slurm_transient(err.data)) {
			ok = false;
		} else {
			warn("sacct: %.*s; asking slurmctld", (int)strcspn(err.data, "\n"), err.data);
			need = true;
		}
		/* a job older than YOUNG_S that accounting does not list: ask slurmctld */
		for (i = 0; ok && i < s->n; i++)
			need |= !found[i] && now - s->submit[i] >= YOUNG_S;
	}
	if (ok && need) {
		char *argv[] = {"scontrol", "-o", "show", "job", NULL};
		out.len = 0;
		rc = slurm_cmd(j, argv, NULL, 1, false, &out, &err);
		if (rc == 0) {
			take_rows(s, found, out.data, false, rows);
			asked_ctld = true;
		} else {
			ok = false;
			if (!slurm_transient(err.data))
				warn("scontrol: %.*s", (int)strcspn(buf_str(&err), "\n"), err.data);
		}
	}
	for (i = 0; asked_ctld && i < s->n; i++)
		if (!found[i])
			buf_printf(rows, "%s|-\n", s->id[i]);
	free(found);
	buf_free(&out);
	buf_free(&err);
	buf_free(&list);
	buf_free(&start);
	return ok;
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Runs the shared query when it is due (urgent: URGENT_MS after the last)
 * and nobody else is running it. */
static void
maybe_poll(struct job *j, bool urgent)
{
	struct slurm_watch *w = watch(j);
	struct buf text = {0}, rows = {0};
	double now = job_now(), due, iv;
	struct ids s;
	bool have, ok;
	int fd;

	have = read_state(j);
	due = urgent ? URGENT_MS : w->interval;
	if (have && (now - w->poll_time) * 1000 < due)
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
	if (!have || (now - w->poll_time) * 1000 >= due) {
		list_waiting(&s);
		ok = query(j, &s, &rows);
		/* young jobs are checked often, old ones rarely; errors back off */
		if (ok)
			iv = clamp((now - s.youngest) * 1000 / 2, POLL_MIN_MS, (double)j->poll_max_ms);
		else
			iv = clamp((have ? w->interval : POLL_MIN_MS) * 2, POLL_MIN_MS, (double)j->poll_max_ms);
		buf_printf(&text, "kunai-poll %.3f %.0f %s\n", now, iv, ok ? "ok" : "error");
		buf_push(&text, rows.data, rows.len);
		write_file_atomic(".kunai/poll.state", text.data, text.len);
		ids_free(&s);
	}
	close(fd);
	buf_free(&text);
	buf_free(&rows);
}

/* ---- waiting --------------------------------------------------------------------- */

static void
fill_row(struct job *j, const struct slurm_row *r)
{
	struct job_info *in = &j->info;
	struct buf rec = {0};

	in->state = arena_strdup(&j->arena, r->state);
	in->has_exit_code = r->exit_code >= 0;
	in->exit_code = r->exit_code;
	in->has_signal = r->signal >= 0;
	in->signal = r->signal;
	if (!in->has_exit_code && job_read_record(j, "kunai.exit", &rec)) {
		in->exit_code = atoi(rec.data);
		in->has_exit_code = true;
	}
	if (r->submit > 0)
		in->submit_time = job_iso(&j->arena, r->submit);
	if (r->start > 0)
		in->start_time = job_iso(&j->arena, r->start);
	if (r->end > 0)
		in->end_time = job_iso(&j->arena, r->end);
	if (r->nodes[0])
		in->nodes = arena_strdup(&j->arena, r->nodes);
	buf_free(&rec);
}

/* The scheduler no longer knows the job: its own exit record is all there is. */
static void
fill_record(struct job *j)
{
	struct job_info *in = &j->info;
	struct buf rec = {0};

	if (job_read_record(j, "kunai.exit", &rec)) {
		in->exit_code = atoi(rec.data);
		in->has_exit_code = true;
		in->state = in->exit_code ? "FAILED" : "COMPLETED";
	} else {
		in->state = "LOST";
		in->reason = "the scheduler forgot the job and it left no exit record";
	}
	in->end_time = job_iso(&j->arena, job_now());
	buf_free(&rec);
}

/* From the job's kunai.start record: start time and node. */
static void
fill_start(struct job *j, const char *rec)
{
	const char *f;
	size_t len;

	if ((f = job_record_field(rec, "start", &len)))
		j->info.start_time = job_iso(&j->arena, strtod(f, NULL));
	if ((f = job_record_field(rec, "host", &len)) && !j->info.nodes)
		j->info.nodes = arena_strndup(&j->arena, f, len);
	j->info.state = "RUNNING";
}

enum job_wait
slurm_wait(struct job *j, bool want_start)
{
	struct buf rec = {0}, p = {0};
	struct slurm_row r;
	double urgent_until = 0, now, last_missing = 0;
	enum job_wait result;
	bool exit_seen = false, terminal;
	long tick = 100;
	int missing = 0, f;

	if (!register_job(j))
		warn("%s: job %s is watched through its own records only", j->dir, j->info.job_id);
	for (;;) {
		if (j->signo) {
			result = JOB_WAIT_INTERRUPTED;
			break;
		}
		if (!j->stopping && job_stop_due(j)) {
			result = JOB_WAIT_STOP;
			break;
		}
		now = job_now();
		if (want_start && job_read_record(j, "kunai.start", &rec)) {
			fill_start(j, rec.data);
			result = JOB_WAIT_STARTED;
			break;
		}
		if (!exit_seen && access(job_path(j, &p, "kunai.exit"), F_OK) == 0) {
			exit_seen = true;
			urgent_until = now + URGENT_FOR_S;
		}
		if (read_state(j)) {
			f = find_row(j, &r);
			if (f == 1) {
				job_state_outcome(r.state, 0, &terminal);
				if (terminal) {
					fill_row(j, &r);
					result = JOB_WAIT_ENDED;
					break;
				}
				if (want_start && r.start > 0 && strcmp(r.state, "PENDING") != 0) {
					fill_row(j, &r);
					result = JOB_WAIT_STARTED;
					break;
				}
			} else if (f == 0 && j->watch->poll_time != last_missing) {
				last_missing = j->watch->poll_time;
				if (exit_seen || ++missing >= 2) {
					fill_record(j);
					result = JOB_WAIT_ENDED;
					break;
				}
			}
		}
		maybe_poll(j, now < urgent_until);
		job_sleep(j, tick);
		tick = now < urgent_until ? 100 : tick < 1000 ? tick * 2 : 1000;
	}
	/* an ended job is nobody's to poll for; a retry registers its own */
	if (result == JOB_WAIT_ENDED)
		unregister(j);
	buf_free(&rec);
	buf_free(&p);
	return result;
}

void
slurm_release(struct job *j)
{
	if (!j->watch)
		return;
	unregister(j);
	buf_free(&j->watch->reg);
	buf_free(&j->watch->state);
}
