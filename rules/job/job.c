/* job.c: `kunai job run|start`, the runner behind `ninja run`: one run dir,
 * one job. It refuses a second ninja on the build dir, reattaches to a job
 * that an earlier invocation left running, keeps earlier attempts, submits
 * (job_standalone.c, job_slurm.c, job_k8s.c, job_lsf.c, job_runai.c through
 * job_sched.h), waits, records DIR/job.json with the outcome class and
 * writes the stamp only when the run passed. The top of rules/job: nothing
 * below calls into it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_sched.h"
#include "job.h"
#include "gen/base/lock.h"
#include "gen/base/record.h"
#include "gen/base/util.h"

enum {
	RETRY_DELAY_MAX_S = 120, /* the retry delay doubles up to this */
	SUPERSEDE_MAX = 3,       /* new scripts one invocation runs after the one it started */
};

/* The hash of what makes the run's job as it is now (hex, in the arena):
 * its script, then each file the script sources or the scheduler reads
 * with it that the run dir holds (env_vars.sh; k8s.json, the job
 * document kubectl applies), each after its name; NULL when there is no
 * script to read. A script alone hashes as it always did. earlier: the
 * hash the same Slurm script had in an earlier kunai's form (its record
 * lines before record_script_lines gave them nodes; gen keeps such a
 * script's mtime), NULL when it holds no such lines. */
static const char *
script_hash_now(struct job *j, bool earlier)
{
	static const char *const also[] = {"env_vars.sh", "k8s.json"};
	struct buf p = {0}, text = {0}, more = {0};
	char hex[17];
	const char *h = NULL;
	size_t i;
	bool ok = job_slurp(job_path(j, &p, job_script_name(j)), &text);

	if (ok && earlier) {
		ok = record_script_swap(text.data ? text.data : "", text.len, RECORD_SLURM_ID, RECORD_SLURM_NODES,
		                        false, &more);
		text.len = 0;
		buf_push(&text, more.data ? more.data : "", more.len);
	}
	if (ok) {
		for (i = 0; i < LEN(also); i++) {
			more.len = 0;
			if (!job_slurp(job_path(j, &p, also[i]), &more))
				continue;
			buf_push(&text, "", 1);
			buf_push(&text, also[i], strlen(also[i]) + 1);
			buf_push(&text, more.data ? more.data : "", more.len);
		}
		util_hash_hex(text.data, text.len, hex);
		h = arena_strdup(&j->arena, hex);
	}
	buf_free(&p);
	buf_free(&text);
	buf_free(&more);
	return h;
}

/* Whether the attempt in j->info is for the script (and what it sources)
 * now in the run dir. A record without a hash (an older kunai, or one
 * edited by hand) is taken only while the script is not newer than the
 * record: gen rewrites a script only when it changes, so a newer one is a
 * changed plan, and its job is not this run's. */
static bool
same_script(struct job *j)
{
	struct buf p = {0};
	struct stat rec, script;
	const char *now;
	bool same;

	if (!j->info.script_hash) {
		same = stat(job_path(j, &p, "job.json"), &rec) == 0 &&
		       stat(job_path(j, &p, job_script_name(j)), &script) == 0 &&
		       (script.st_mtim.tv_sec < rec.st_mtim.tv_sec ||
		        (script.st_mtim.tv_sec == rec.st_mtim.tv_sec && script.st_mtim.tv_nsec <= rec.st_mtim.tv_nsec));
		buf_free(&p);
		return same;
	}
	now = script_hash_now(j, false);
	if (now && strcmp(now, j->info.script_hash) == 0)
		return true;
	now = j->sched == JOB_SLURM ? script_hash_now(j, true) : NULL;
	return now && strcmp(now, j->info.script_hash) == 0;
}

/* ---- locks --------------------------------------------------------------------- */

/* One ninja per build dir: the first job of an invocation records its
 * driver (ninja, or `kunai run` through KUNAI_DRIVER_PID) in .kunai/driver;
 * a job of another live driver is refused. Without a driver (kunai job run
 * by hand) there is nothing to compare and the run dir lock suffices. */
static bool
driver_check(struct job *j)
{
	long long start;
	long pid, other;
	char cwd[4096];
	int rc;

	pid = job_driver(&start);
	if (!pid)
		return true;
	rc = lock_driver_claim(".", pid, start, &other);
	if (rc == 0)
		warn("another ninja (pid %ld) is running in %s; refusing to run %s", other,
		     getcwd(cwd, sizeof(cwd)) ? cwd : ".", j->dir);
	return rc > 0;
}

/* Whether no directory on the way to the run dir (inside the build dir) is
 * a symbolic link: a planted one would take the job's files outside. */
static bool
no_links(const char *dir)
{
	struct buf p = {0};
	struct stat st;
	size_t i, n = strlen(dir);
	bool ok = true;

	for (i = 1; ok && i <= n; i++) {
		if (i < n && dir[i] != '/')
			continue;
		p.len = 0;
		buf_push(&p, dir, i);
		if (lstat(p.data, &st) == 0 && S_ISLNK(st.st_mode)) {
			warn("job: %s is a symbolic link; kunai does not write through links (remove it)", p.data);
			ok = false;
		}
	}
	buf_free(&p);
	return ok;
}

/* Takes fd's flock for the whole invocation; a kunai job that holds it
 * already is waited for (and may have finished the run meanwhile). Returns
 * 1, 0 after a signal, -1 (errno set) when the file system refuses. */
static int
flock_wait(struct job *j, int fd)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 1;
	if (errno != EWOULDBLOCK)
		return -1;
	/* polled, not blocked on: a Ctrl-C must still end us */
	warn("%s: another kunai job is running it; waiting for it", j->dir);
	while (flock(fd, LOCK_EX | LOCK_NB) != 0)
		if (errno != EWOULDBLOCK || (job_sleep(j, 200) && j->signo))
			return j->signo ? 0 : -1;
	return 1;
}

/* The run dir's lock: the dir itself, flock'ed (a lock file would cost an
 * inode per run dir, see write_stamp); DIR/kunai.lock where the file
 * system locks no directory (NFS turns flock into a write lock, which
 * needs a file open for writing). Returns the descriptor or -1. */
static int
lock_dir(struct job *j)
{
	struct buf p = {0};
	int fd, rc;

	fd = open(j->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		warn("open %s:", j->dir);
		return -1;
	}
	rc = flock_wait(j, fd);
	if (rc < 0 && !j->signo) {
		close(fd);
		fd = open(job_path(j, &p, "kunai.lock"), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0) {
			warn("open %s:", p.data);
			buf_free(&p);
			return -1;
		}
		rc = flock_wait(j, fd);
	}
	if (rc <= 0) {
		if (!j->signo)
			warn("lock %s:", p.len ? p.data : j->dir);
		close(fd);
		fd = -1;
	}
	buf_free(&p);
	return fd;
}

/* ---- job.json, stamp, attempts ------------------------------------------------- */

static bool
remove_file(struct job *j, const char *name)
{
	struct buf p = {0};
	bool ok = true;

	if (unlink(job_path(j, &p, name)) != 0 && errno != ENOENT) {
		warn("remove %s:", p.data);
		ok = false;
	}
	buf_free(&p);
	return ok;
}

static bool
write_marker(struct job *j, const char *name)
{
	struct buf p = {0}, text = {0};
	bool ok;

	buf_printf(&text, "%s\n", j->info.job_id ? j->info.job_id : "");
	ok = write_file_atomic(job_path(j, &p, name), text.data, text.len);
	buf_free(&p);
	buf_free(&text);
	return ok;
}

/* Moves the files of the previous attempt into DIR/attempt-N (N its
 * number, or the next free one: nothing is overwritten). Returns the number
 * of the new attempt, 0 after reporting a failure. */
static int
archive(struct job *j)
{
	static const char *const files[] = {"job.json", "stdout.txt", "stderr.txt", "kunai.start",
	                                    "kunai.exit", "mapping-stdout.txt", "mapping-stderr.txt",
	                                    "k8s.applied.json", "pods.txt", "pods", "sbatch.txt", "bsub.txt",
	                                    "kubectl.txt", "runai.txt"};
	struct buf from = {0}, to = {0};
	int n = j->have_info ? j->info.attempt : 0, next;
	bool any = false;
	size_t i;

	for (i = 0; i < LEN(files) && !any; i++)
		any = job_exists(job_path(j, &from, files[i]));
	if (!any) {
		buf_free(&from);
		return n + 1;
	}
	if (n < 1)
		n = 1;
	for (;; n++) {
		to.len = 0;
		buf_printf(&to, "%s/attempt-%d", j->dir, n);
		if (mkdir(to.data, 0777) == 0)
			break;
		if (errno != EEXIST) {
			warn("mkdir %s:", to.data);
			n = -1;
			break;
		}
	}
	next = n + 1;
	for (i = 0; n > 0 && i < LEN(files); i++) {
		job_path(j, &from, files[i]);
		to.len = 0;
		buf_printf(&to, "%s/attempt-%d/%s", j->dir, n, files[i]);
		if (rename(from.data, to.data) != 0 && errno != ENOENT) {
			warn("move %s to %s:", from.data, to.data);
			next = 0;
		}
	}
	buf_free(&from);
	buf_free(&to);
	return n > 0 ? next : 0;
}

/* ---- the run ------------------------------------------------------------------- */

static const char *const sched_names[] = {"standalone", "slurm", "kubernetes", "lsf", "runai"};

static enum job_wait
backend_wait(struct job *j, bool want_start)
{
	return j->sched == JOB_SLURM || j->sched == JOB_LSF ? slurm_wait(j, want_start)
	       : j->sched == JOB_KUBERNETES                 ? k8s_wait(j, want_start)
	       : j->sched == JOB_RUNAI                      ? runai_wait(j, want_start)
	                                                    : sa_wait(j, want_start);
}

/* Ends the job: for a signal (cancelled) or for --stop-with. */
static void
backend_cancel(struct job *j)
{
	if (j->sched == JOB_SLURM)
		slurm_cancel(j);
	else if (j->sched == JOB_LSF)
		lsf_cancel(j);
	else if (j->sched == JOB_KUBERNETES)
		k8s_cancel(j);
	else if (j->sched == JOB_RUNAI)
		runai_cancel(j);
	else
		sa_cancel(j);
}

/* A fresh job_info for a new attempt: stale stamp and start marker gone,
 * the previous attempt's files moved away. */
static bool
new_attempt(struct job *j)
{
	int n;

	if (!remove_file(j, "kunai.stamp") || !remove_file(j, "kunai.started"))
		return false;
	n = archive(j);
	if (!n)
		return false;
	memset(&j->info, 0, sizeof(j->info));
	j->have_info = true;
	j->info.dir = j->dir;
	j->info.scheduler = sched_names[j->sched];
	j->info.workload = j->workload;
	j->info.command = j->command;
	j->info.attempt = n;
	/* hashed before it is submitted: what ends up running is this script,
	 * or one that differs from it (then its result is not this run's) */
	j->info.script_hash = script_hash_now(j, false);
	j->info.collected = true;
	j->info.state = "SUBMITTED";
	j->info.submit_time = job_iso(&j->arena, job_now());
	return true;
}

/* Sleeps before retry number k (0-based); false when a signal came first. */
static bool
retry_backoff(struct job *j, int k)
{
	long s = j->retry_delay_s << (k < 10 ? k : 10);
	double until;

	if (s > RETRY_DELAY_MAX_S)
		s = RETRY_DELAY_MAX_S;
	warn("%s: %s (%s); attempt %d of %d in %ld s", j->dir, j->info.outcome, j->info.reason ? j->info.reason : "",
	     k + 2, j->retries + 1, s);
	until = job_now() + (double)s;
	while (job_now() < until)
		if (job_sleep(j, (long)((until - job_now()) * 1000) + 1) && j->signo)
			return false;
	return true;
}

/* The stamp of a passed run: a second name of the record job.json holds
 * before the final one is saved over it (link_stamp), so that saving
 * frees no inode and the stamp makes none. ext4 without a journal skips,
 * for every file it creates, each inode freed in the last minute or more,
 * scanning from the start of the group: a freed inode per run makes a
 * campaign's file creations cost more the more runs it has done. Where
 * there was no earlier record, the stamp is a second name of the final
 * one; a marker file of its own where no link can be made. Its mtime is
 * set to now, so that ninja sees it newer than the script; ninja reads
 * only that, and the next attempt removes it before it moves job.json
 * away. */
static bool
link_stamp(struct job *j, struct buf *tmp)
{
	struct buf from = {0};
	bool ok;

	tmp->len = 0;
	file_temp_name(tmp, job_path(j, &from, "kunai.stamp"), "tmp");
	ok = link(job_path(j, &from, "job.json"), tmp->data) == 0;
	buf_free(&from);
	return ok;
}

static bool
write_stamp(struct job *j, struct buf *tmp, bool linked)
{
	struct buf to = {0};
	bool ok = linked || link_stamp(j, tmp);

	if (ok && (utimensat(AT_FDCWD, tmp->data, NULL, 0) != 0 ||
	           rename(tmp->data, job_path(j, &to, "kunai.stamp")) != 0)) {
		unlink(tmp->data);
		ok = false;
	}
	buf_free(&to);
	return ok || write_marker(j, "kunai.stamp");
}

/* The end of a run: the stamp only when it passed; a run that did not pass
 * also loses kunai.started, so that the next ninja starts it afresh before
 * what waits for its start. Returns the exit status. */
static int
conclude(struct job *j, bool passed)
{
	struct buf tmp = {0};
	bool linked = passed && link_stamp(j, &tmp);
	bool ok = job_save(j);

	if (passed)
		ok = ok && write_stamp(j, &tmp, linked);
	else
		remove_file(j, "kunai.started");
	if (linked && !ok)
		unlink(tmp.data);
	buf_free(&tmp);
	if (!passed)
		warn("%s: %s (%s)", j->dir, j->info.outcome, j->info.reason ? j->info.reason : "");
	if (j->signo)
		return 128 + j->signo;
	return ok && passed ? 0 : 1;
}

/* Ends the job of an earlier script that j->info names and records it
 * as cancelled (superseded), so that the next attempt moves it aside. */
static bool
supersede(struct job *j)
{
	backend_cancel(j);
	if (j->sched == JOB_SLURM || j->sched == JOB_LSF)
		backend_wait(j, false);
	j->info.state = "CANCELLED";
	if (!j->info.end_time)
		j->info.end_time = job_iso(&j->arena, job_now());
	j->info.outcome = outcome_name(OUTCOME_CANCELLED);
	j->info.reason = "superseded: its script changed";
	j->info.collected = true;
	return job_save(j) && remove_file(j, "kunai.started");
}

static int
interrupted(struct job *j)
{
	/* a closed terminal is no request to stop (README): the job keeps
	 * running, job.json keeps its id and no outcome, and the next `kunai
	 * run` (or ninja run) reattaches to it instead of submitting again */
	if (j->signo == SIGHUP && j->info.job_id && !j->info.outcome) {
		warn("%s: detached from job %s (hangup); it keeps running, and the same command again reattaches",
		     j->dir, j->info.job_id);
		return 128 + SIGHUP;
	}
	backend_cancel(j);
	j->info.state = "CANCELLED";
	if (!j->info.end_time)
		j->info.end_time = job_iso(&j->arena, job_now());
	job_classify(j);
	j->info.collected = true;
	return conclude(j, false);
}

/* Whether DIR holds a run that passed with these very options, whose
 * stamp is newer than its script: ninja asks again only because it lost
 * its log (killed while our job ran on). Then there is nothing to do. */
static bool
passed_already(struct job *j)
{
	struct stat stamp, script;
	struct buf p = {0};
	bool yes;

	yes = j->have_info && j->info.outcome && strcmp(j->info.outcome, "passed") == 0 && j->info.collected &&
	      j->info.command && strcmp(j->info.command, j->command) == 0 && same_script(j) &&
	      stat(job_path(j, &p, "kunai.stamp"), &stamp) == 0 &&
	      stat(job_path(j, &p, job_script_name(j)), &script) == 0 &&
	      (stamp.st_mtim.tv_sec > script.st_mtim.tv_sec ||
	       (stamp.st_mtim.tv_sec == script.st_mtim.tv_sec && stamp.st_mtim.tv_nsec >= script.st_mtim.tv_nsec)) &&
	      (!j->start_only || job_exists(job_path(j, &p, "kunai.started")));
	buf_free(&p);
	return yes;
}

/* Whether `job start` of this run left its job to us (kunai.started names
 * it): then waiting on it is the plan, not a reattachment. */
static bool
handed_over(struct job *j)
{
	struct buf p = {0}, b = {0};
	size_t n = strlen(j->info.job_id);
	bool yes;

	yes = job_slurp(job_path(j, &p, "kunai.started"), &b) && strncmp(b.data, j->info.job_id, n) == 0 &&
	      b.data[n] == '\n';
	buf_free(&p);
	buf_free(&b);
	return yes;
}

static int
run(struct job *j)
{
	struct buf p = {0}, why = {0};
	bool reattach, retryable;
	enum job_wait w;
	enum outcome o;
	int tries, rc, superseded = 0;

	rc = record_job_read(&j->arena, job_path(j, &p, "job.json"), &j->info, &why);
	if (rc < 0)
		warn("%s: %s; starting a new attempt", p.data, why.data);
	j->have_info = rc > 0;
	if (passed_already(j)) {
		/* its kunai job outlived a killed ninja, which lost the log entry */
		warn("%s: passed already (job %s); not run again", j->dir, j->info.job_id);
		buf_free(&p);
		buf_free(&why);
		return 0;
	}
	buf_free(&p);
	buf_free(&why);
	if (!j->start_only && j->have_info && j->info.outcome && !j->info.collected) {
		/* `job start` saw it end: its result is this run's, if it ran
		 * the script that is there now */
		j->info.collected = true;
		if (same_script(j))
			return conclude(j, strcmp(j->info.outcome, "passed") == 0);
		warn("%s: job %s ran an earlier script; the new one runs", j->dir,
		     j->info.job_id ? j->info.job_id : "");
		if (!job_save(j))
			return 1;
	}
	/* job.json says the last attempt was being submitted, with no job id:
	 * the driver died in between; the job may be queued all the same */
	if (j->sched != JOB_STANDALONE && j->have_info && !j->info.outcome && !j->info.job_id && j->info.state &&
	    strcmp(j->info.state, "SUBMITTED") == 0 &&
	    (j->sched == JOB_SLURM ? slurm_find_submitted(j)
	     : j->sched == JOB_LSF ? lsf_find_submitted(j)
	     : j->sched == JOB_RUNAI ? runai_find_submitted(j)
	                             : k8s_find_submitted(j))) {
		warn("%s: found job %s, submitted before the driver died; not submitting again", j->dir,
		     j->info.job_id);
		j->info.scheduler = sched_names[j->sched];
		if (!job_save(j))
			return 1;
	}
	reattach = j->have_info && !j->info.outcome && j->info.job_id && j->info.scheduler &&
	           strcmp(j->info.scheduler, sched_names[j->sched]) == 0;
	if (reattach && !same_script(j)) {
		/* never wait on, or stamp, a job of another script */
		warn("%s: the script changed since job %s started; cancelling it (kept as attempt-%d)", j->dir,
		     j->info.job_id, j->info.attempt > 0 ? j->info.attempt : 1);
		if (!supersede(j))
			return j->signo ? 128 + j->signo : 1;
		reattach = false;
	}
	if (reattach && !handed_over(j))
		warn("%s: reattaching to job %s of an earlier run", j->dir, j->info.job_id);
	for (tries = 0;; tries++) {
		if (!reattach) {
			if (tries == 0 && !job_pre_waits(j)) {
				warn("%s: interrupted before submitting", j->dir);
				return 128 + j->signo;
			}
			if (!new_attempt(j))
				return 1;
			/* on disk before sbatch: a driver killed before job.json
			 * gets the id leaves this, and the next one looks first */
			if (j->sched != JOB_STANDALONE && !job_save(j))
				return 1;
			retryable = false;
			if (!(j->sched == JOB_SLURM        ? slurm_submit(j, &retryable)
			      : j->sched == JOB_LSF        ? lsf_submit(j, &retryable)
			      : j->sched == JOB_KUBERNETES ? k8s_submit(j, &retryable)
			      : j->sched == JOB_RUNAI      ? runai_submit(j, &retryable)
			                                   : sa_submit(j))) {
				j->info.collected = true;
				if (!j->info.outcome)
					j->info.outcome = outcome_name(OUTCOME_INFRA);
				if (retryable && tries < j->retries && !j->signo) {
					job_save(j);
					if (retry_backoff(j, tries))
						continue;
				}
				return conclude(j, false);
			}
			/* the job id is on disk before anything waits for it */
			if (!job_save(j)) {
				backend_cancel(j);
				return 1;
			}
		}
		reattach = false;
		w = backend_wait(j, j->start_only);
		if (w == JOB_WAIT_STOP) {
			j->stopping = true;
			warn("%s: stopping: %s completed", j->dir, j->stopped_by);
			backend_cancel(j);
			w = j->sched == JOB_SLURM || j->sched == JOB_LSF ? backend_wait(j, false) : JOB_WAIT_ENDED;
		}
		if (w == JOB_WAIT_INTERRUPTED)
			return interrupted(j);
		if (w == JOB_WAIT_STARTED) {
			if (!job_save(j) || !write_marker(j, "kunai.started"))
				return 1;
			return 0;
		}
		o = job_classify(j);
		if (job_outcome_retryable(o) && tries < j->retries) {
			j->info.collected = true;
			if (!job_save(j) || !retry_backoff(j, tries))
				return j->signo ? 128 + j->signo : 1;
			continue;
		}
		if (!same_script(j) && superseded++ < SUPERSEDE_MAX) {
			/* the script changed while it ran: what ran is not this run */
			warn("%s: the script changed while job %s ran; its result is kept as attempt-%d, "
			     "the new script runs", j->dir, j->info.job_id ? j->info.job_id : "", j->info.attempt);
			j->info.collected = true;
			j->info.reason = "superseded: the script changed while it ran";
			if (!job_save(j) || !remove_file(j, "kunai.started"))
				return 1;
			tries--;
			continue;
		}
		if (j->start_only) {
			/* ended before anyone saw it run: the run edge collects it */
			j->info.collected = false;
			if (!job_save(j))
				return 1;
			if (j->info.start_time && write_marker(j, "kunai.started"))
				return 0;
			return conclude(j, false);
		}
		j->info.collected = true;
		return conclude(j, o == OUTCOME_PASSED);
	}
}

int
cmd_job(int argc, char **argv)
{
	struct job j;
	struct stat st;
	int rc, fd, bfd;

	memset(&j, 0, sizeof(j));
	rc = job_parse(&j, argc, argv);
	if (rc)
		goto out;
	rc = 1;
	if (stat(j.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		warn("job: %s is not a run dir (run kunai job from the build dir):", j.dir);
		goto out;
	}
	if (!no_links(j.dir))
		goto out;
	j.t0 = job_now();
	if (!job_signals_init(&j))
		goto out;
	if (!driver_check(&j))
		goto out;
	/* shared: no kunai gen rewrites the build dir under a job */
	bfd = lock_take(".", false, j.dir);
	if (bfd < 0)
		goto out;
	fd = lock_dir(&j);
	if (fd < 0) {
		close(bfd);
		goto out;
	}
	rc = run(&j);
	if (j.sched != JOB_STANDALONE)
		poll_release(&j);
	if (j.sched == JOB_RUNAI)
		runai_release(&j);
	close(fd);
	close(bfd);
out:
	arena_free(&j.arena);
	return rc;
}

