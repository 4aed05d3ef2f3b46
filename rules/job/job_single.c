/* job_single.c: `kunai gen --single-sbatch`: every run of the scenario as
 * job steps of one Slurm allocation. The allocation's batch script (gen
 * writes it at the build dir's top) runs the run dirs queued in
 * .kunai/single/queue/ one after the other, each with the run's own script, and
 * ends once nothing was queued for a while. `kunai job` queues its run when
 * ninja starts it (ninja starts a run only after its dependencies, so the
 * queue is in dependency order), submits the allocation first when none is
 * alive, and waits for the run's own start and exit records; the run keeps
 * its run dir, job.json (the allocation's id), stamp and report. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_sched.h"
#include "gen/base/util.h"

enum {
	REQUEUE_TRIES = 3, /* the allocation ended before it took the run */
	/* an allocation seen ended while its run's step has not written its
	 * exit record yet: scancel ends the allocation in slurmctld before the
	 * step is signalled, and a loaded node writes the record later */
	RECORD_GRACE_MS = 15000,
};

#define SINGLE_DIR ".kunai/single"
#define QUEUE_DIR SINGLE_DIR "/queue"

/* The allocation's state from squeue ("" when squeue no longer lists it),
 * or NULL when squeue could not be asked. */
static const char *
alloc_state(struct job *j, const char *id)
{
	char *argv[] = {"squeue", "-h", "-j", (char *)id, "-o", "%T", NULL};
	struct buf out = {0}, err = {0};
	const char *s = NULL;

	if (slurm_cmd(j, argv, NULL, 2, false, &out, &err) == 0)
		s = arena_strndup(&j->arena, buf_str(&out), strcspn(buf_str(&out), "\n"));
	else if (strstr(buf_str(&err), "Invalid job id"))
		s = "";
	buf_free(&out);
	buf_free(&err);
	return s;
}

static bool
alive(const char *state)
{
	return state && (strcmp(state, "PENDING") == 0 || strcmp(state, "RUNNING") == 0 ||
	                 strcmp(state, "CONFIGURING") == 0);
}

/* The queue entry that names this run's dir (in p), if any. */
static bool
queued(struct job *j, struct buf *p)
{
	struct buf text = {0};
	struct dirent *e;
	DIR *d = opendir(QUEUE_DIR);
	bool found = false;

	/* entries are few: the runs ninja has started and the allocation has
	 * not taken yet */
	while (d && !found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		p->len = 0;
		buf_printf(p, QUEUE_DIR "/%s", e->d_name);
		text.len = 0;
		found = job_slurp(p->data, &text) && strncmp(buf_str(&text), j->dir, strlen(j->dir)) == 0 &&
		        text.data[strlen(j->dir)] == '\n';
	}
	if (d)
		closedir(d);
	buf_free(&text);
	return found;
}

/* Queues j's run dir for the allocation: .kunai/single/<name>.tmp renamed into
 * the queue, named by the time so that the queue's order is ninja's. */
static bool
enqueue(struct job *j)
{
	struct buf tmp = {0}, dst = {0}, entry = {0};
	struct timeval tv;
	bool ok;

	/* the run dir and its time limit, which the allocation enforces */
	buf_printf(&entry, "%s\n%ld\n", j->dir, j->time_limit);
	gettimeofday(&tv, NULL);
	buf_printf(&tmp, SINGLE_DIR "/%011ld%06ld-%ld.tmp", (long)tv.tv_sec, (long)tv.tv_usec, (long)getpid());
	buf_printf(&dst, QUEUE_DIR "/%011ld%06ld-%ld", (long)tv.tv_sec, (long)tv.tv_usec, (long)getpid());
	ok = write_file_atomic(tmp.data, entry.data, entry.len) && rename(tmp.data, dst.data) == 0;
	if (!ok)
		warn("%s: cannot queue the run for the allocation (%s):", j->dir, dst.data);
	buf_free(&entry);
	buf_free(&tmp);
	buf_free(&dst);
	return ok;
}

bool
single_submit(struct job *j, bool *retryable)
{
	char *argv[] = {"sbatch", "--parsable", "--no-requeue", (char *)j->single, NULL};
	struct buf id = {0}, p = {0}, out = {0}, err = {0};
	const char *state, *first, *cause = NULL;
	int fd, rc;
	size_t n;
	bool ok = false;

	*retryable = false;
	if ((mkdir(".kunai", 0777) != 0 && errno != EEXIST) || (mkdir(SINGLE_DIR, 0777) != 0 && errno != EEXIST) ||
	    (mkdir(QUEUE_DIR, 0777) != 0 && errno != EEXIST) ||
	    (fd = open(SINGLE_DIR "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0) {
		warn("%s: %s:", j->dir, SINGLE_DIR);
		j->info.state = "SUBMIT_FAILED";
		return false;
	}
	/* one allocation for every runner of this build dir */
	while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
		;
	while (queued(j, &p))
		unlink(p.data); /* an earlier attempt's, never taken */
	state = job_slurp(SINGLE_DIR "/job", &id) && id.len ? alloc_state(j, buf_str(&id)) : NULL;
	if (!alive(state)) {
		if ((rc = slurm_cmd(j, argv, NULL, 4, false, &out, &err)) == 0 &&
		    (n = strspn(buf_str(&out), "0123456789_")) > 0) {
			id.len = 0;
			buf_push(&id, out.data, n);
			if (!write_file_atomic(SINGLE_DIR "/job", id.data, id.len))
				warn("%s/job:", SINGLE_DIR);
			warn("%s: allocation %s submitted (%s)", j->dir, id.data, j->single);
		} else {
			/* the allocation's sbatch, run in the build dir: its whole answer */
			job_keep_answer(j, "sbatch.txt",
			                arena_printf(&j->arena, "%s (in the build dir): exit status %d",
			                             job_argv_line(&j->arena, argv), rc),
			                &err, &out);
			/* its first line that says something */
			first = buf_str(&err) + strspn(buf_str(&err), " \t\r\n");
			j->info.reason = arena_printf(&j->arena, "sbatch %s: %.*s", j->single, (int)strcspn(first, "\n"),
			                              *first ? first : rc == 0 ? "no job id in its output" : "failed");
			/* a setting the cluster refuses names its field, as a plain
			 * run's does: failed, never retried (DESIGN 18) */
			if ((cause = job_cause_submit(j, buf_str(&err)))) {
				j->info.reason = cause;
				j->info.outcome = outcome_name(OUTCOME_FAILED);
			}
			warn("%s: %s", j->dir, j->info.reason);
			*retryable = !cause;
			goto out;
		}
	}
	if (!enqueue(j))
		goto out;
	j->info.job_id = arena_strdup(&j->arena, id.data);
	j->info.state = "PENDING";
	ok = true;
out:
	if (!ok) {
		j->info.state = cause ? "CONFIG_ERROR" : "SUBMIT_FAILED";
		j->info.end_time = job_iso(&j->arena, job_now());
	}
	close(fd);
	buf_free(&id);
	buf_free(&p);
	buf_free(&out);
	buf_free(&err);
	return ok;
}

/* The run's end from its exit record: TERM (143) or KILL (137) once its
 * time limit had passed is the allocation's `timeout` ending the step;
 * before it, with the allocation cancelled (scancel), it is a cancelled
 * run, as a plain Slurm run's is. */
static void
from_record(struct job *j, const char *rec)
{
	double t0, now = job_now();
	const char *alloc;

	j->info.exit_code = atoi(rec);
	j->info.has_exit_code = true;
	j->info.state = j->info.exit_code ? "FAILED" : "COMPLETED";
	if ((j->info.exit_code == 143 || j->info.exit_code == 137) && j->time_limit > 0 && j->info.start_time &&
	    job_iso_parse(j->info.start_time, &t0) && now - t0 >= (double)j->time_limit - 1)
		j->info.state = "TIMEOUT";
	/* TERM or KILL with the allocation ending (COMPLETING, CANCELLED or
	 * already gone: squeue keeps no ended job without accounting) and the
	 * run's own limit not reached: the allocation was scancelled (which
	 * ends it in slurmctld before any step is signalled). One still
	 * running had only this step ended: a failure; squeue not answering
	 * tells nothing. */
	if (strcmp(j->info.state, "FAILED") == 0 && (j->info.exit_code == 143 || j->info.exit_code == 137) &&
	    j->info.job_id && (alloc = alloc_state(j, j->info.job_id))) {
		if (strcmp(alloc, "TIMEOUT") == 0)
			j->info.state = "TIMEOUT";
		else if (!*alloc || strncmp(alloc, "CANCELLED", 9) == 0 || strcmp(alloc, "COMPLETING") == 0)
			j->info.state = "CANCELLED";
	}
	j->info.end_time = job_iso(&j->arena, now);
}

enum job_wait
single_wait(struct job *j, bool want_start)
{
	struct buf rec = {0}, p = {0};
	const char *state = NULL, *f;
	double next_ask = 0, now, ended = 0;
	long tick = 100, ask_ms = 1000;
	int requeued = 0;
	size_t len;
	bool retryable;
	enum job_wait over;

	for (;;) {
		if (job_wait_over(j, &over))
			return over;
		if (!j->info.start_time && job_read_record(j, "kunai.start", &rec)) {
			if ((f = job_record_field(rec.data, "start", &len)))
				j->info.start_time = job_iso(&j->arena, strtod(f, NULL));
			if ((f = job_record_field(rec.data, "host", &len)))
				j->info.nodes = arena_strndup(&j->arena, f, len);
			j->info.state = "RUNNING";
			if (want_start)
				break;
		}
		if (job_read_record(j, "kunai.exit", &rec)) {
			from_record(j, rec.data);
			break;
		}
		now = job_now();
		/* the allocation ended under a started run: its record, for a while */
		if (ended > 0 && now - ended < RECORD_GRACE_MS / 1000.0) {
			job_sleep(j, tick);
			continue;
		}
		if (ended > 0 || now >= next_ask) {
			/* the allocation, not the run: ended without the run's end */
			if (ended == 0)
				state = alloc_state(j, j->info.job_id);
			if (state && !alive(state)) {
				if (job_read_record(j, "kunai.exit", &rec)) {
					from_record(j, rec.data);
					break;
				}
				/* a started run's step may still be writing its record */
				if (j->info.start_time && ended == 0) {
					ended = now;
					continue;
				}
				if (queued(j, &p) && !j->info.start_time && requeued++ < REQUEUE_TRIES) {
					/* it ended just before it took this run: a new one */
					unlink(p.data);
					if (single_submit(j, &retryable))
						continue;
				}
				j->info.state = j->info.start_time ? "LOST" : "CANCELLED";
				j->info.reason = arena_printf(&j->arena, "allocation %s ended (%s) before the run did",
				                              j->info.job_id, *state ? state : "gone");
				j->info.end_time = job_iso(&j->arena, now);
				break;
			}
			ask_ms = ask_ms < j->poll_max_ms / 4 ? ask_ms * 2 : ask_ms;
			next_ask = now + (double)ask_ms / 1000;
		}
		job_sleep(j, tick);
		tick = tick < 500 ? tick * 2 : 500;
	}
	buf_free(&rec);
	buf_free(&p);
	return want_start && !j->info.has_exit_code && j->info.start_time ? JOB_WAIT_STARTED : JOB_WAIT_ENDED;
}
