/* job_standalone.c: a run on this machine: DIR/run.sh as its own session
 * and process group, so that Ctrl-C, the time limit and --stop-with reach
 * every process it started, and so that it outlives a killed kunai job
 * (the next invocation reattaches by pid and /proc start time). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_sched.h"
#include "gen/base/util.h"

enum {
	KILL_GRACE_S = 10, /* SIGTERM, then SIGKILL this much later */
	/* the supervisor enforces the limit; the runner steps in only when
	 * it has not ended the job this much after the limit and its grace */
	BACKSTOP_S = KILL_GRACE_S + 5,
};

/* A standalone job as sa_wait sees it. */
struct proc {
	long pid;
	bool ours;        /* our child: waitpid gives the status */
	double deadline;  /* wall clock of the time limit; 0: none */
	double kill_at;   /* wall clock of the SIGKILL after a SIGTERM; 0: none sent */
	bool timed_out;
	bool ended;
	long group;       /* the job's own group, when its supervisor died before it */
	int status;       /* waitpid status when ours */
};

static void
hostname_into(struct job *j)
{
	char h[256];

	if (gethostname(h, sizeof(h) - 1) == 0) {
		h[sizeof(h) - 1] = '\0';
		j->info.host = arena_strdup(&j->arena, h);
	}
}

bool
sa_submit(struct job *j)
{
	struct buf p = {0};
	pid_t pid;

	hostname_into(j);
	if (access(job_path(j, &p, "run.sh"), R_OK) != 0) {
		warn("%s:", p.data);
		j->info.state = "LOST";
		j->info.reason = "no run.sh (run kunai gen)";
		buf_free(&p);
		return false;
	}
	pid = fork();
	if (pid < 0) {
		warn("fork:");
		j->info.state = "LOST";
		j->info.reason = "cannot fork";
		buf_free(&p);
		return false;
	}
	if (pid == 0)
		job_supervise(j, KILL_GRACE_S);
	buf_free(&p);
	j->child = pid;
	p.len = 0;
	buf_printf(&p, "%ld", (long)pid);
	j->info.job_id = arena_strdup(&j->arena, p.data);
	buf_free(&p);
	j->info.pid_start = job_proc_start(pid, NULL);
	j->info.state = "RUNNING";
	j->info.start_time = j->info.submit_time;
	return true;
}

/* The epoch the job started at: its own record, else job.json's time of
 * submission (a standalone job starts when it is submitted), else now. */
static double
start_epoch(struct job *j)
{
	struct buf rec = {0};
	const char *f;
	double t = job_now();
	size_t len;

	if (j->child)
		t = j->t0;
	if (job_read_record(j, "kunai.start", &rec) && (f = job_record_field(rec.data, "start", &len)))
		t = strtod(f, NULL);
	buf_free(&rec);
	return t;
}

/* Sends sig to the job's process group only while its leader is still
 * the process kunai started: our child (not yet reaped), or the pid with
 * the start time recorded. A pid that now names another process (reused
 * after the machine or the supervisor died) is never signalled; nor is
 * one that is gone (its group, led by the supervisor, went with it: the
 * script's own group is the supervisor's to end). */
/* Whether the job's own process group (kunai.start's group=, led by the
 * script the supervisor started, with its start time) still has a
 * process: its leader, with the recorded start time, or, the leader gone,
 * any member (a pgid is never reused while its group has one). *group
 * gets its id. */
static bool
group_alive(struct job *j, long *group)
{
	struct buf rec = {0};
	const char *f;
	long long start = -1, cur;
	size_t len;
	bool alive = false;

	*group = 0;
	if (job_read_record(j, "kunai.start", &rec) && (f = job_record_field(rec.data, "group", &len)))
		*group = strtol(f, NULL, 10);
	if (*group > 0 && (f = job_record_field(rec.data, "group_start", &len)))
		start = strtoll(f, NULL, 10);
	buf_free(&rec);
	if (*group <= 0 || start < 0)
		return false;
	cur = job_proc_start(*group, NULL);
	if (cur >= 0)
		alive = cur == start;
	else
		alive = kill(-(pid_t)*group, 0) == 0 || errno == EPERM;
	return alive;
}

static void
group_signal(struct job *j, struct proc *pr, int sig)
{
	bool zombie = false;
	long group;

	if (pr->group) {
		/* the supervisor died: its job's group, while it is still the one */
		if (group_alive(j, &group) && group == pr->group)
			kill(-(pid_t)group, sig);
		return;
	}
	if (pr->pid <= 0)
		return;
	if (!pr->ours && (j->info.pid_start <= 0 || job_proc_start(pr->pid, &zombie) != j->info.pid_start))
		return;
	kill(-(pid_t)pr->pid, sig);
}

/* Has the job ended? Our child by waitpid; an adopted one (pid of an
 * earlier kunai job) by /proc: gone, a zombie, or another process. */
static bool
check_end(struct job *j, struct proc *pr)
{
	struct buf p = {0};
	bool zombie = false;
	long group;
	pid_t w;

	if (pr->ended)
		return true;
	if (pr->ours) {
		do
			w = waitpid((pid_t)pr->pid, &pr->status, WNOHANG);
		while (w < 0 && errno == EINTR);
		if (w < 0) {
			warn("waitpid %ld:", pr->pid);
			pr->ours = false; /* fall back to /proc and the record */
		} else
			pr->ended = w == (pid_t)pr->pid;
	}
	if (!pr->ours && !pr->ended && !pr->group)
		pr->ended = job_proc_start(pr->pid, &zombie) != j->info.pid_start || zombie;
	/* the supervisor is gone (killed) but not its job: the job has not
	 * ended, and is never started again beside itself; it is waited for
	 * (its watchdog ends it at its limit, as the runner's backstop does) */
	if ((pr->ended && !job_exists(job_path(j, &p, "kunai.exit"))) || pr->group) {
		if (group_alive(j, &group)) {
			if (!pr->group)
				warn("%s: the supervisor of job %ld died; its job (process group %ld) still runs: waiting "
				     "for it", j->dir, pr->pid, group);
			pr->group = group;
			pr->ours = false;
			pr->ended = false;
		} else if (pr->group) {
			pr->ended = true;
			pr->group = 0;
		}
	}
	buf_free(&p);
	if (pr->ended)
		group_signal(j, pr, SIGKILL); /* what the script left behind in its group */
	return pr->ended;
}

/* TERM to the whole group now, KILL after the grace. */
static void
terminate(struct job *j, struct proc *pr)
{
	if (pr->kill_at)
		return;
	group_signal(j, pr, SIGTERM);
	pr->kill_at = job_now() + KILL_GRACE_S;
}

/* Fills j->info with the end of the job. */
static void
record_end(struct job *j, struct proc *pr)
{
	struct job_record *in = &j->info;
	struct buf rec = {0};

	in->end_time = job_iso(&j->arena, job_now());
	in->has_exit_code = in->has_signal = false;
	if (pr->ours) {
		if (WIFEXITED(pr->status)) {
			in->state = "EXITED";
			in->exit_code = WEXITSTATUS(pr->status);
			in->has_exit_code = true;
		} else {
			in->state = "SIGNALED";
			in->signal = WTERMSIG(pr->status);
			in->has_signal = true;
		}
	}
	/* the supervisor's record: the status, and whether it ended the job
	 * for its time limit (also when no runner was there to see it) */
	if (job_read_record(j, "kunai.exit", &rec)) {
		size_t n;
		const char *lim = job_record_field(rec.data, "limit", &n);
		if (!pr->ours) {
			in->state = "EXITED";
			in->exit_code = atoi(rec.data);
			in->has_exit_code = true;
		}
		if (lim && n == 7 && strncmp(lim, "timeout", 7) == 0)
			pr->timed_out = true;
	} else if (!pr->ours) {
		in->state = "LOST";
		in->reason = "the process ended without an exit record";
	}
	if (pr->timed_out)
		in->state = "TIMEOUT";
	buf_free(&rec);
}

static void
proc_init(struct job *j, struct proc *pr)
{
	memset(pr, 0, sizeof(*pr));
	pr->pid = j->info.job_id ? strtol(j->info.job_id, NULL, 10) : 0;
	pr->ours = j->child && j->child == pr->pid;
	if (j->time_limit > 0)
		pr->deadline = start_epoch(j) + (double)(j->time_limit + BACKSTOP_S);
}

/* Whether an adopted pid can be this job at all (same host, pid recorded). */
static bool
adoptable(struct job *j, struct proc *pr)
{
	char h[256];

	if (pr->pid <= 0 || j->info.pid_start <= 0)
		return false;
	if (j->info.host && gethostname(h, sizeof(h) - 1) == 0) {
		h[sizeof(h) - 1] = '\0';
		if (strcmp(h, j->info.host) != 0) {
			warn("%s: job %ld ran on %s, not here; cannot reattach", j->dir, pr->pid, j->info.host);
			return false;
		}
	}
	return true;
}

/* The wait loop shared by sa_wait and sa_cancel; cancel: terminate now and
 * only wait for the end. */
static enum job_wait
wait_proc(struct job *j, struct proc *pr, bool want_start, bool cancel)
{
	struct buf p = {0};
	long tick = 10;
	double now;

	if (!pr->ours && !adoptable(j, pr))
		pr->ended = true;
	if (cancel && !check_end(j, pr))
		terminate(j, pr);
	while (!check_end(j, pr)) {
		if (want_start && access(job_path(j, &p, "kunai.start"), F_OK) == 0) {
			buf_free(&p);
			return JOB_WAIT_STARTED;
		}
		if (!cancel && j->signo) {
			buf_free(&p);
			return JOB_WAIT_INTERRUPTED;
		}
		now = job_now();
		if (pr->deadline && now >= pr->deadline && !pr->kill_at) {
			pr->timed_out = true;
			terminate(j, pr);
		}
		if (pr->kill_at && now >= pr->kill_at)
			group_signal(j, pr, SIGKILL);
		if (!cancel && !pr->kill_at && job_stop_due(j)) {
			buf_free(&p);
			return JOB_WAIT_STOP;
		}
		/* our child wakes us with SIGCHLD; an adopted one is polled */
		job_sleep(j, tick);
		if (tick < 250)
			tick *= 2;
	}
	buf_free(&p);
	record_end(j, pr);
	return JOB_WAIT_ENDED;
}

enum job_wait
sa_wait(struct job *j, bool want_start)
{
	struct proc pr;

	proc_init(j, &pr);
	return wait_proc(j, &pr, want_start, false);
}

void
sa_cancel(struct job *j)
{
	struct proc pr;

	proc_init(j, &pr);
	wait_proc(j, &pr, false, true);
}
